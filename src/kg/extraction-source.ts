import { createHash } from 'node:crypto';
import { parseFrontmatter } from '../pages/markdown/frontmatter.js';
import { stripComments } from '../pages/markdown/obsidian-syntax.js';
import { HEADING_PATH_SEPARATOR } from './chunker.js';

/** The parts of a page extraction reads: a change to anything else (tags, other frontmatter) needs no extraction. */
export interface ExtractionSourceInput {
  title: string;
  /** The primary cluster (it goes into the embedded text). */
  cluster: string | null;
  /** The page's full source, frontmatter included. */
  body: string;
}

export interface ExtractionSource {
  /** The Markdown the chunker reads: the body without its frontmatter and its %%comments%%. */
  markdown: string;
  /** Identifies this source: equal hashes need no new extraction. */
  sourceHash: string;
  /** Identifies the title and cluster, which are embedded with every chunk. */
  contextHash: string;
}

/** `markdown`: the body without frontmatter and comments, when the caller has it already (a save parsed it). */
export function extractionSourceOf(page: ExtractionSourceInput, markdown = markdownOf(page.body)): ExtractionSource {
  const sourceHash = createHash('sha256')
    .update(page.title)
    .update('\u0000')
    .update(page.cluster ?? '')
    .update('\u0000')
    .update(markdown)
    .digest('hex');
  const contextHash = createHash('sha256').update(page.title).update('\u0000').update(page.cluster ?? '').digest('hex');
  return { markdown, sourceHash, contextHash };
}

// Comments are never extracted: an LLM backend must not see what the author hid.
function markdownOf(body: string): string {
  try {
    return stripComments(parseFrontmatter(body).body);
  } catch {
    // A stored page always parsed when it was saved; should that ever change, extract the text as it stands.
    return stripComments(body);
  }
}

/** What is embedded for a chunk: the chunk with its page title, cluster and heading path as context. */
export function chunkEmbeddingText(context: { title: string; cluster: string | null; headingPath: readonly string[] }, text: string): string {
  const lines = [context.title];
  if (context.cluster) lines.push(`Cluster: ${context.cluster}`);
  if (context.headingPath.length > 0) lines.push(`Section: ${context.headingPath.join(HEADING_PATH_SEPARATOR)}`);
  return `${lines.join('\n')}\n\n${text}`;
}

/** What is embedded for an entity: its name and type, then its description and other names. */
export function nodeEmbeddingText(node: { name: string; type: string; description?: string; aliases?: readonly string[] }): string {
  const lines = [`${node.name} (${node.type})`];
  if (node.aliases && node.aliases.length > 0) lines.push(`Also known as: ${node.aliases.join(', ')}`);
  if (node.description) lines.push(node.description);
  return lines.join('\n');
}
