import { headingAnchor, headingIds } from '../pages/markdown/markdown-renderer.js';
import { chunkMarkdown, type Chunk } from './chunker.js';

export interface AnchoredChunk extends Chunk {
  /**
   * The id the heading the chunk sits under has on the rendered page, for links to the section: de-duplicated the
   * way the renderer does it (a page's second "Setup" is `setup-2`); null at the top of the page.
   */
  anchor: string | null;
}

/** A page body's chunks (frontmatter already removed), each with its section's anchor on the rendered page. */
export function chunkPage(markdown: string): AnchoredChunk[] {
  const chunks = chunkMarkdown(markdown);
  // Only a page with headings is parsed a second time, by the renderer's own parser, for the ids it gives them.
  const ids = chunks.some((chunk) => chunk.headingLine !== null) ? headingIds(markdown) : new Map<number, string>();
  return chunks.map((chunk) => ({ ...chunk, anchor: anchorOf(chunk, ids) }));
}

function anchorOf(chunk: Chunk, ids: ReadonlyMap<number, string>): string | null {
  if (chunk.headingLine === null) return null;
  // The chunker and the renderer agree on the line a heading starts on; where they ever do not, the heading's slug.
  return ids.get(chunk.headingLine) ?? headingAnchor(chunk.headingPath[chunk.headingPath.length - 1]);
}
