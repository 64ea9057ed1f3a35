import { LRUCache } from 'lru-cache';
import { plainText } from '../pages/markdown/plain-text.js';

/**
 * Search snippets as people read them: the card's text as plain text (no Markdown syntax, no comments), cut into
 * sentences; PostgreSQL ranks the candidate sentences by the query (its stemming, so "running" matches "run") and
 * marks the matched words; the window is the best sentence with its neighbours up to about SNIPPET_WORDS words.
 */
export const SNIPPET_WORDS = 32;
/**
 * What the database puts around a matched word (ts_headline's StartSel and StopSel), turned into <mark> once the
 * snippet is escaped: two code points of Unicode's private use area, which the sentences never hold (they are taken
 * out of the text first). `⟦` and `⟧`, used before, are characters people write: a page holding them got <mark>s of
 * its own in its snippets.
 */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';
const MARKS = /[\uE000\uE001]/g;
// Sentences sent to the database per card: the ones sharing a word's first letters with the query, else the first.
const MAX_CANDIDATES = 40;
const LONG_SENTENCE_WORDS = 60;

export interface SnippetSource {
  /** Shared with later searches of the same text: never changed. */
  sentences: readonly string[];
  /** Indexes (into `sentences`) worth ranking. */
  candidates: number[];
}

/**
 * A card's text as the search reads it: `key` names the text for good (a content hash: another text is another key),
 * and `text` is the text itself, or null when the search did not read it because its sentences are held here
 * (`heldTextKeys`: the search names them to the database, which then leaves the text out).
 */
export interface CardText {
  key: string;
  text: string | null;
  /** The text's sentences, when the search took them from here (heldSentences) instead of reading the text. */
  sentences?: readonly string[];
}

/**
 * A card's text as sentences, kept by the text's key: a search shows the same pages again and again, and parsing
 * their Markdown to plain text was a fifth of the web process's CPU under a mixed load (bench/RESULTS.md). An edited
 * page or chunk is a new key, so an entry is never wrong, only evicted. Bounded by characters held, not entries: one
 * page may be a megabyte. Keyed by the text itself before, each search hashed and compared every card's whole text
 * (a tenth of a millisecond a search), after reading it from the database for nothing.
 */
const SENTENCE_CACHE_CHARS = 16_000_000;
const sentenceCache = new LRUCache<string, readonly string[]>({
  maxSize: SENTENCE_CACHE_CHARS,
  sizeCalculation: (sentences, key) => Math.max(1, key.length + sentences.reduce((n, s) => n + s.length, 0)),
});

/** The keys of the texts held for each page (its Markdown, its chunks), newest last; a few per page. */
const KEYS_PER_PAGE = 8;
const textKeysByPage = new LRUCache<string, string[]>({ max: 50_000 });

/** The keys of this page's texts whose sentences are held here: a search need not read those texts. */
export function heldTextKeys(pageId: string): string[] {
  const keys = textKeysByPage.get(pageId);
  return keys ? keys.filter((key) => sentenceCache.has(key)) : [];
}

/** The sentences of the text under this key, when they are held here (a frozen array: keep it, it stays valid). */
export function heldSentences(key: string): readonly string[] | undefined {
  return sentenceCache.get(key);
}

function sentencesOfCard(pageId: string, card: CardText): readonly string[] {
  let sentences = card.sentences ?? sentenceCache.get(card.key);
  if (!sentences) {
    if (card.text === null) throw new Error(`The text ${card.key} was neither read nor held`);
    sentences = Object.freeze(sentencesOf(plainText(card.text)));
    // A text of over a quarter of the cache is not kept: it would push most of the others out.
    if (card.text.length < SENTENCE_CACHE_CHARS / 4) {
      sentenceCache.set(card.key, sentences);
      const keys = (textKeysByPage.get(pageId) ?? []).filter((key) => key !== card.key);
      keys.push(card.key);
      textKeysByPage.set(pageId, keys.slice(-KEYS_PER_PAGE));
    }
  }
  return sentences;
}

/**
 * Finished snippets, kept by the card's text key and then the reader's words: the same question shows the same pages,
 * and marking their sentences was a quarter of the database's time under a mixed load (bench/RESULTS.md, 2026-12-05).
 * A snippet is a function of the two (and of PostgreSQL's English stemming), so an entry is never wrong, only
 * evicted. Bounded by characters held, like the sentences. Setting an entry again after adding a snippet makes the
 * cache count its new size.
 */
const SNIPPET_CACHE_CHARS = 8_000_000;
const snippetCache = new LRUCache<string, Map<string, string>>({
  maxSize: SNIPPET_CACHE_CHARS,
  sizeCalculation: (byWords, key) => {
    let size = key.length;
    for (const [words, snippet] of byWords) size += words.length + snippet.length;
    return Math.max(1, size);
  },
});
// One text keeps the snippets of at most this many different questions; the oldest gives way.
const SNIPPETS_PER_TEXT = 32;

/** The snippet of this text for these words, when one was made before (undefined: make it). */
export function cachedSnippet(key: string, words: string): string | undefined {
  return snippetCache.get(key)?.get(words);
}

/** Keeps a snippet made for this text and these words. */
export function keepSnippet(key: string, words: string, snippet: string): void {
  const byWords = snippetCache.get(key) ?? new Map<string, string>();
  if (byWords.size >= SNIPPETS_PER_TEXT && !byWords.has(words)) byWords.delete(byWords.keys().next().value!);
  byWords.set(words, snippet);
  snippetCache.set(key, byWords);
}

/**
 * A card's text as sentences, with the ones worth ranking against the reader's words. `card.text` may be null only
 * when the card carries its sentences (heldSentences); `pageId`: the page the text is of (heldTextKeys).
 */
export function snippetSource(card: CardText, words: string, pageId = ''): SnippetSource {
  const sentences = sentencesOfCard(pageId, card);
  const stems = [...new Set((words.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1).map((w) => w.slice(0, Math.max(3, Math.min(5, w.length - 1)))))];
  const candidates: number[] = [];
  if (stems.length > 0) {
    sentences.forEach((sentence, i) => {
      const lower = sentence.toLowerCase();
      if (candidates.length < MAX_CANDIDATES && stems.some((stem) => lower.includes(stem))) candidates.push(i);
    });
  }
  if (candidates.length === 0) candidates.push(...sentences.slice(0, 1).map((_s, i) => i));
  return { sentences, candidates };
}

/** Sentences of plain text: a line (a block) ends one, and so does `.`, `!` or `?` before a space and a capital or digit. */
export function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.!?…])\s+(?=[\p{Lu}\p{N}"'(“‘])/u))
    .map((sentence) => sentence.replace(MARKS, '').trim())
    .filter(Boolean);
}

/**
 * The snippet around the best sentence: `marked` holds the sentences the database marked (MARK_START, word,
 * MARK_END), by index, the
 * best one and its neighbours. Sentences are added after the best one, then before it, while the window has room.
 */
export function snippetWindow(source: SnippetSource, best: number, marked: Map<number, string>): string {
  const text = (i: number) => marked.get(i) ?? source.sentences[i];
  const count = (s: string) => s.split(/\s+/).filter(Boolean).length;
  if (source.sentences.length === 0) return '';
  let first = best;
  let last = best;
  let words = count(text(best));
  while (words < SNIPPET_WORDS) {
    if (last + 1 < source.sentences.length && count(text(last + 1)) + words <= SNIPPET_WORDS * 1.5) words += count(text(++last));
    else if (first > 0 && count(text(first - 1)) + words <= SNIPPET_WORDS * 1.5) words += count(text(--first));
    else break;
  }
  const parts: string[] = [];
  for (let i = first; i <= last; i++) parts.push(text(i));
  const window = trimAroundMark(parts.join(' '));
  return `${first > 0 ? '… ' : ''}${window}${last < source.sentences.length - 1 && !window.endsWith('…') ? ' …' : ''}`;
}

/** A very long sentence is cut to the words around its first marked word. */
function trimAroundMark(text: string): string {
  const words = text.split(/\s+/);
  if (words.length <= LONG_SENTENCE_WORDS) return text;
  const at = Math.max(0, words.findIndex((w) => w.includes(MARK_START)));
  const start = Math.max(0, at - 10);
  const cut = words.slice(start, start + SNIPPET_WORDS);
  // A cut must not leave a mark open.
  let joined = cut.join(' ');
  if (joined.split(MARK_START).length > joined.split(MARK_END).length) joined += MARK_END;
  return `${start > 0 ? '… ' : ''}${joined} …`;
}
