import { ExtractorError, type Embedder } from './extraction.types.js';

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
  const add = (feature: string, weight: number) => {
    const h = fmix32(fnv1a(feature));
    vector[h % dimensions] += h & 0x80000000 ? -weight : weight;
  };
  let previous: string | null = null;
  for (const word of words) {
    if (STOPWORDS.has(word)) {
      add(`w ${word}`, STOPWORD_WEIGHT);
      continue;
    }
    add(`w ${word}`, WORD_WEIGHT);
    add(`s ${stem(word)}`, STEM_WEIGHT);
    // Stopwords are skipped: `knowledge of the graph` has the bigram `knowledge graph`.
    if (previous !== null) add(`b ${previous} ${word}`, BIGRAM_WEIGHT);
    previous = word;
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c ${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT);
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

/** A crude English stem: plural and -ing/-ed endings off (`graphs`, `graphing`, `graphed` → `graph`). */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's finaliser: spreads FNV's bits so that the bucket and the sign are independent. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
