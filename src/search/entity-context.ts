/**
 * What other pages say about an approved entity, credited to the entity's own page: the knowledge graph's anchor
 * text. An approved entity is mentioned on many pages; the sentences that mention it describe it in their own
 * words ("open today's journal entry with the daily note command"). Those words become a field of the page that
 * bears the entity's name (its title or an alias), so a question worded like the wiki's other pages finds the page
 * the question is about. Pure functions: the service reads the sentences' words, these index and rank.
 */

/** One word of what other pages say about the entities a page bears the name of, and how often they say it. */
export interface ContextTermRow {
  pageId: string;
  lexeme: string;
  /** Σ over the other pages of min(MAX_COUNT_PER_SOURCE, the word's count there). */
  count: number;
}

/** The context field of every home page: lexeme → page → term frequency, with each page's field length. */
export interface ContextIndex {
  postings: ReadonlyMap<string, ReadonlyMap<string, number>>;
  lengths: ReadonlyMap<string, number>;
  averageLength: number;
  /** How many pages have a context field. */
  size: number;
}

export const EMPTY_CONTEXT_INDEX: ContextIndex = { postings: new Map(), lengths: new Map(), averageLength: 1, size: 0 };

/**
 * One other page's sentences count at most this many times per word (the SQL applies it): a page that repeats the
 * entity's name in every line of a long list does not outweigh ten pages that each describe it once.
 */
export const MAX_COUNT_PER_SOURCE = 2;

/** Builds the index from the rows (one per page and word). */
export function buildContextIndex(rows: readonly ContextTermRow[]): ContextIndex {
  const postings = new Map<string, Map<string, number>>();
  const lengths = new Map<string, number>();
  for (const row of rows) {
    if (row.count <= 0) continue;
    let pages = postings.get(row.lexeme);
    if (!pages) postings.set(row.lexeme, (pages = new Map()));
    pages.set(row.pageId, (pages.get(row.pageId) ?? 0) + row.count);
    lengths.set(row.pageId, (lengths.get(row.pageId) ?? 0) + row.count);
  }
  const total = [...lengths.values()].reduce((s, n) => s + n, 0);
  return { postings, lengths, averageLength: lengths.size ? total / lengths.size : 1, size: lengths.size };
}

/** A query term as the lexical ranker weighs it: its stem and its weight (1: the reader's word; less: an expansion). */
export interface WeightedTerm {
  lexeme: string;
  weight: number;
}

/** A home page's context score, and the query's stems its context holds. */
export interface ContextScore {
  pageId: string;
  score: number;
  lexemes: string[];
}

/**
 * BM25 of each home page's context field for the query's terms (k1 1.2, b 0.75; idf over the pages that have a
 * context field), best first. Terms no context holds add nothing; a page no term reaches is absent.
 */
export function scoreContext(index: ContextIndex, terms: readonly WeightedTerm[], k1 = 1.2, b = 0.75): ContextScore[] {
  if (index.size === 0) return [];
  const scores = new Map<string, ContextScore>();
  for (const { lexeme, weight } of terms) {
    const pages = index.postings.get(lexeme);
    if (!pages || weight <= 0) continue;
    const idf = contextIdf(index, pages.size);
    for (const [pageId, tf] of pages) {
      const length = index.lengths.get(pageId) ?? 1;
      const part = (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / index.averageLength));
      let score = scores.get(pageId);
      if (!score) scores.set(pageId, (score = { pageId, score: 0, lexemes: [] }));
      score.score += part;
      score.lexemes.push(lexeme);
    }
  }
  return [...scores.values()].sort((a, b) => b.score - a.score || (a.pageId < b.pageId ? -1 : 1));
}

/**
 * The score of an ideal home page for these terms: one of average length whose context holds each term once (BM25
 * gives such a term exactly its weighted idf). A term no context holds counts at the idf of a word on no page.
 */
export function contextCeiling(index: ContextIndex, terms: readonly WeightedTerm[]): number {
  let ceiling = 0;
  for (const { lexeme, weight } of terms) {
    if (weight <= 0) continue;
    ceiling += weight * contextIdf(index, index.postings.get(lexeme)?.size ?? 0);
  }
  return ceiling;
}

/**
 * The share of the ideal page's score (contextCeiling) that the best context match must reach to get the signal's
 * full weight. Below it, scores count against that share, not against the best: when the only context a query
 * reaches is its most common word (`notes` of "unlinked notes"), every page it reaches gets a small bonus instead of
 * the full one, and the words' ranking stands. Measured on both in-repo corpora (bench/RESULTS.md, 2026-12-05):
 * 0.25–0.75 all beat 0 (relative to the best alone), 0.5 the most; 1 and above lose what the signal gains.
 */
export const CONTEXT_FULL_WEIGHT_SHARE = 0.5;

/** BM25's idf of a word that `pages` of the index's context fields hold (never negative). */
function contextIdf(index: ContextIndex, pages: number): number {
  return Math.log(1 + (index.size - pages + 0.5) / (pages + 0.5));
}
