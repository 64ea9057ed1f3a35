import { estimateTokens } from '../kg/chunker.js';
import { chunkPage } from '../kg/page-chunks.js';
import { parseFrontmatter } from '../pages/markdown/frontmatter.js';
import { stripComments } from '../pages/markdown/obsidian-syntax.js';

/** A piece of a page under one heading path (the chunker's sections: heading-aware, a few hundred tokens each). */
export interface Passage {
  position: number;
  headingPath: string[];
  /** The id of its heading on the rendered page (null at the top). */
  anchor: string | null;
  text: string;
  tokens: number;
  /** How well it answers the question (0 without one). */
  score: number;
}

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'does', 'for', 'from', 'how', 'i', 'in', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'what', 'when', 'where', 'which', 'who', 'why', 'with', 'you']);

/** The words of a question that can tell passages apart (lower case, no stop words, at least two letters). */
export function questionWords(question: string): string[] {
  const words = question.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOP_WORDS.has(w)))];
}

/** The Markdown of a page (frontmatter left out) cut into passages, each scored against the question's words. */
export function passagesOf(source: string, words: string[]): Passage[] {
  let text = source;
  try {
    text = parseFrontmatter(source).body;
  } catch {
    // A page saved before its frontmatter became invalid is still readable as it is.
  }
  return chunkPage(stripComments(text)).map((chunk) => ({
    position: chunk.position,
    headingPath: chunk.headingPath,
    anchor: chunk.anchor,
    text: chunk.text,
    tokens: chunk.tokenEstimate,
    score: scorePassage(chunk.headingPath, chunk.text, words),
  }));
}

/** Distinct question words found (a word in a heading counts double), damped by length so that long sections do not win by size. */
function scorePassage(headingPath: string[], text: string, words: string[]): number {
  if (words.length === 0) return 0;
  const body = new Set(questionWords(text));
  const heading = new Set(questionWords(headingPath.join(' ')));
  let hits = 0;
  for (const word of words) hits += (body.has(word) ? 1 : 0) + (heading.has(word) ? 1 : 0);
  return hits / words.length / Math.log2(4 + estimateTokens(text) / 128);
}

/**
 * The best passages that fit in `budget` tokens (the best first, then each further one only if it still fits),
 * returned in page order when `inPageOrder`, else best first. Passages that match nothing are left out when the
 * question has words.
 */
export function fitToBudget(passages: Passage[], budget: number, options: { inPageOrder: boolean; needMatch: boolean }): Passage[] {
  const ranked = [...passages].filter((p) => !options.needMatch || p.score > 0).sort((a, b) => b.score - a.score || a.position - b.position);
  const chosen: Passage[] = [];
  let used = 0;
  for (const passage of ranked) {
    if (used + passage.tokens > budget) continue;
    chosen.push(passage);
    used += passage.tokens;
  }
  return options.inPageOrder ? chosen.sort((a, b) => a.position - b.position) : chosen;
}
