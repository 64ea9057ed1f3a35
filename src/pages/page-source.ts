import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { frontmatterBeyondBounds, FrontmatterError, parseFrontmatter, type ParsedSource } from './markdown/frontmatter.js';

/**
 * Parses a page's source as it comes in (a save, a preview, an import); invalid frontmatter becomes a 400 that names
 * the line, and a frontmatter block too large or too deeply nested to parse quickly a 422.
 */
export function parsePageSource(source: string): ParsedSource {
  const beyond = frontmatterBeyondBounds(source);
  if (beyond) throw new DomainException(DomainErrorCode.TooComplex, beyond);
  try {
    return parseFrontmatter(source);
  } catch (error) {
    if (error instanceof FrontmatterError) {
      throw new DomainException(DomainErrorCode.InvalidFrontmatter, error.message, { line: error.line });
    }
    throw error;
  }
}
