import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HASHING_EMBEDDER_DIMENSIONS, HASHING_EMBEDDER_MODEL, HashingEmbedder, hashEmbedding } from '../../src/embedders/hashing.embedder.js';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));

describe('the built-in hashing embedder', () => {
  const embedder = new HashingEmbedder();

  it('names its model and dimension', () => {
    expect(embedder).toMatchObject({ name: 'builtin', model: HASHING_EMBEDDER_MODEL, dimensions: HASHING_EMBEDDER_DIMENSIONS });
    expect(HASHING_EMBEDDER_MODEL).toBe('kurate-hash-384-v1');
    expect(HASHING_EMBEDDER_DIMENSIONS).toBe(384);
  });

  it('is deterministic, across calls and instances, and keeps the batch order', async () => {
    const texts = ['The graph view shows notes as nodes.', 'Backlinks list the notes that link here.'];
    const first = await embedder.embed(texts);
    const second = await new HashingEmbedder().embed([...texts].reverse());
    expect(second.reverse()).toEqual(first);
    expect(first.every((v) => v.length === 384)).toBe(true);
  });

  it('gives unit-length vectors, including for texts without words', async () => {
    for (const vector of await embedder.embed(['Foam', 'a much longer text about knowledge graphs and wikis', '', '  ...  '])) {
      expect(norm(vector)).toBeCloseTo(1, 10);
      expect(vector.every(Number.isFinite)).toBe(true);
    }
  });

  it('puts similar texts closer than unrelated ones', () => {
    const graph = hashEmbedding('The graph view shows your notes as a network of nodes and links.');
    const graphToo = hashEmbedding('In the graph view, notes are nodes and the links between them are edges.');
    const graphs = hashEmbedding('graphs');
    const graphWord = hashEmbedding('graph');
    const cooking = hashEmbedding('Whisk the eggs with sugar, then fold in the flour and bake for twenty minutes.');
    expect(cosine(graph, graphToo)).toBeGreaterThan(cosine(graph, cooking) + 0.2);
    // The stem and character trigrams: a word and its plural share much of their vector.
    expect(cosine(graphs, graphWord)).toBeGreaterThan(0.35);
    expect(cosine(graphWord, hashEmbedding('flour'))).toBeLessThan(0.2);
  });

  it('ignores case and Unicode compatibility forms', () => {
    expect(hashEmbedding('Graph View')).toEqual(hashEmbedding('graph view'));
    expect(hashEmbedding('ｇｒａｐｈ')).toEqual(hashEmbedding('graph'));
  });

  it('weighs stopwords lightly', () => {
    const base = hashEmbedding('knowledge graph');
    expect(cosine(base, hashEmbedding('the knowledge of the graph'))).toBeGreaterThan(0.8);
  });

  it('never changes its vectors under the same model id (stored chunks and new queries must agree)', () => {
    // Fingerprints of vectors computed when kurate-hash-384-v1 was defined: words, stems (`graphing`, `libraries`),
    // bigrams, character trigrams, stopwords, Unicode (NFKC, non-Latin scripts) and the empty text.
    const fingerprint = (text: string) => createHash('sha256').update(hashEmbedding(text).map((x) => x.toFixed(12)).join(',')).digest('hex').slice(0, 16);
    expect(fingerprint('The graph view shows your notes as a network of nodes and links; graphing, graphed, libraries and boxes.')).toBe('a1aaa726a6ae0952');
    expect(fingerprint('Ünïcödé wörds: Zürich’s café — C++ and C# and node.js, Berners-Lee, 2024-11-30, ｇｒａｐｈ 東京 タワー')).toBe('98c3cd1bd5b44a99');
    expect(fingerprint('a an the of')).toBe('bb97304cd80bfaa2');
    expect(fingerprint('')).toBe('1d7a3a62517019be');
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['x'], controller.signal)).rejects.toMatchObject({ name: 'ExtractorError', retryable: true });
  });
});
