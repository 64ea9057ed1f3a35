import { ExtractorError } from '../llm-client/llm-errors.js';
import { type Embedder } from './embedder.js';

export const HASHING_EMBEDDER_MODEL = 'kurate-hash-384-v1';
export const HASHING_EMBEDDER_DIMENSIONS = 384;

// Feature weights (docs/extractors.md). Words carry the meaning; a crude stem lets `graph` and `graphs` share a
// feature; bigrams of neighbouring content words keep a little word order; character trigrams catch spelling variants.
const WORD_WEIGHT = 1;
const STOPWORD_WEIGHT = 0.15;
const STEM_WEIGHT = 0.7;
const BIGRAM_WEIGHT = 0.7;
const TRIGRAM_WEIGHT = 0.25;

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can do does for from had has have he her his how i if in into is it its me my no ' +
    'not of on or our she so than that the their them then there these they this those to too up us was we were what ' +
    'when where which while who why will with you your'
  ).split(' '),
);

/**
 * The offline default embedder: deterministic feature hashing (words, crude stems, bigrams of content words,
 * character trigrams of each word) into 384 signed dimensions, L2-normalised. No model file, no network; similar
 * wording gives close vectors, synonyms do not. Version the model id if any of this changes.
 */
export class HashingEmbedder implements Embedder {
  readonly name = 'builtin' as const;
  readonly model = HASHING_EMBEDDER_MODEL;
  readonly dimensions = HASHING_EMBEDDER_DIMENSIONS;

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (signal?.aborted) throw new ExtractorError('Embedding cancelled (builtin)', true);
    return texts.map((text) => hashEmbedding(text, this.dimensions));
  }
}

/** One text's vector. A text without any word gets a fixed unit vector, so that cosine distance stays defined. */
export function hashEmbedding(text: string, dimensions = HASHING_EMBEDDER_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+(?:['’.+#-][\p{L}\p{N}]+)*/gu) ?? [];
  // Each feature is a string such as `w graph` or `b knowledge graph`; its FNV-1a hash is computed over those
  // characters without building the string (this runs for every chunk extraction writes).
  const add = (hash: number, weight: number) => {
    const h = fmix32(hash);
    vector[h % dimensions] += h & 0x80000000 ? -weight : weight;
  };
  let previous: string | null = null;
  for (const word of words) {
    if (STOPWORDS.has(word)) {
      add(fnv1a(WORD_PREFIX, word, 0, word.length), STOPWORD_WEIGHT);
      continue;
    }
    add(fnv1a(WORD_PREFIX, word, 0, word.length), WORD_WEIGHT);
    const stemEnd = stemLength(word);
    let stemHash = fnv1a(STEM_PREFIX, word, 0, stemEnd);
    if (stemEnd === word.length - 3 && word.endsWith('ies')) stemHash = fnv1aChar(stemHash, 121); // `y`
    add(stemHash, STEM_WEIGHT);
    // Stopwords are skipped: `knowledge of the graph` has the bigram `knowledge graph`.
    if (previous !== null) add(fnv1a(fnv1aChar(fnv1a(BIGRAM_PREFIX, previous, 0, previous.length), 32), word, 0, word.length), BIGRAM_WEIGHT);
    previous = word;
    // Character trigrams of `<word>`.
    const last = word.length + 1;
    for (let i = 0; i + 2 <= last; i++) {
      let h = TRIGRAM_PREFIX;
      for (let k = i; k < i + 3; k++) h = fnv1aChar(h, k === 0 ? 60 : k === last ? 62 : word.charCodeAt(k - 1)); // `<`, `>`
      add(h, TRIGRAM_WEIGHT);
    }
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  const out = new Array<number>(dimensions);
  if (norm === 0) {
    out.fill(0);
    out[0] = 1;
    return out;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) out[i] = vector[i] * scale;
  return out;
}

/**
 * A crude English stem: plural and -ing/-ed endings off (`graphs`, `graphing`, `graphed` → `graph`; `libraries` →
 * `library`), as the length of the word kept (`-ies` words then get a `y`).
 */
function stemLength(word: string): number {
  const n = word.length;
  if (n > 4 && word.endsWith('ies')) return n - 3;
  if (n > 5 && word.endsWith('ing')) return n - 3;
  if (n > 4 && word.endsWith('ed')) return n - 2;
  if (n > 3 && word.endsWith('s') && !word.endsWith('ss')) return n - 1;
  return n;
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a (32 bits) of `text[start, end)`, continuing from the hash `h` of what came before. */
function fnv1a(h: number, text: string, start: number, end: number): number {
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function fnv1aChar(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193) >>> 0;
}

// The hashes of the features' prefixes: `w ` word, `s ` stem, `b ` bigram, `c ` character trigram.
const WORD_PREFIX = fnv1a(FNV_OFFSET, 'w ', 0, 2);
const STEM_PREFIX = fnv1a(FNV_OFFSET, 's ', 0, 2);
const BIGRAM_PREFIX = fnv1a(FNV_OFFSET, 'b ', 0, 2);
const TRIGRAM_PREFIX = fnv1a(FNV_OFFSET, 'c ', 0, 2);

/** MurmurHash3's finaliser: spreads FNV's bits so that the bucket and the sign are independent. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
