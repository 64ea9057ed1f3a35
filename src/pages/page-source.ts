import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { FrontmatterError, parseFrontmatter, type ParsedSource } from './markdown/frontmatter.js';

/** Parses a page's source; invalid frontmatter becomes a 400 that names the line. */
export function parsePageSource(source: string): ParsedSource {
  try {
    return parseFrontmatter(source);
  } catch (error) {
    if (error instanceof FrontmatterError) {
      throw new DomainException(DomainErrorCode.InvalidFrontmatter, error.message, { line: error.line });
    }
    throw error;
  }
}
