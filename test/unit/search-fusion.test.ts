import { describe, expect, it } from 'vitest';
import { fuseRankings, groupChunksToPages, strongestList } from '../../src/search/rank-fusion.js';

describe('weighted reciprocal-rank fusion', () => {
  const settings = { k: 60, topN: 50 };

  it('adds weight / (k + rank) over the lists and ranks by the sum', () => {
    const fused = fuseRankings(
      [
        { list: 'lexical', weight: 1, keys: ['a', 'b', 'c'] },
        { list: 'vector', weight: 1, keys: ['c', 'b'] },
      ],
      settings,
    );
    // c: 1/63 + 1/61 = 0.032266 just beats b: 2/62 = 0.032258.
    expect(fused.map((f) => f.key)).toEqual(['c', 'b', 'a']);
    expect(fused[0].score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[0].ranks).toEqual({ lexical: 3, vector: 1 });
    expect(fused[1].ranks).toEqual({ lexical: 2, vector: 2 });
    expect(fused[2].ranks).toEqual({ lexical: 1 });
    expect(fused[0].contributions.vector).toBeCloseTo(1 / 61, 12);
  });

  it('lets a heavier list win and ignores a list of weight 0', () => {
    const lists = (vectorWeight: number) =>
      fuseRankings(
        [
          { list: 'lexical', weight: 1, keys: ['a', 'b'] },
          { list: 'vector', weight: vectorWeight, keys: ['b', 'a'] },
        ],
        settings,
      );
    expect(lists(2)[0].key).toBe('b');
    expect(lists(0).map((f) => f.key)).toEqual(['a', 'b']);
    expect(lists(0)[0].ranks).toEqual({ lexical: 1 });
  });

  it('counts only the first N of each list', () => {
    const fused = fuseRankings([{ list: 'lexical', weight: 1, keys: ['a', 'b', 'c', 'd'] }, { list: 'graph', weight: 1, keys: ['d'] }], { k: 60, topN: 2 });
    // d is 4th in the lexical list (ignored) and 1st in the graph list: it ties with a, and the first list decides.
    expect(fused.map((f) => f.key)).toEqual(['a', 'd', 'b']);
    expect(fused[1].ranks).toEqual({ graph: 1 });
    expect(fused[1].score).toBeCloseTo(1 / 61, 12);
  });

  it('breaks ties by the stronger single list, then by the order of the lists', () => {
    const fused = fuseRankings(
      [
        { list: 'lexical', weight: 1, keys: ['x', 'y'] },
        { list: 'vector', weight: 1, keys: ['y', 'x'] },
      ],
      settings,
    );
    // Equal sums, equal best contributions: the first list's order decides.
    expect(fused.map((f) => f.key)).toEqual(['x', 'y']);
    expect(strongestList(fused[1])).toBe('vector');
    expect(strongestList(fused[0])).toBe('lexical');
  });

  it('with k = 0 the first ranks dominate: first in one list and third in another beats second in both', () => {
    const fused = fuseRankings([{ list: 'lexical', weight: 1, keys: ['a', 'b', 'c'] }, { list: 'vector', weight: 1, keys: ['c', 'b'] }], { k: 0, topN: 10 });
    expect(fused.map((f) => f.key)).toEqual(['c', 'a', 'b']);
  });
});

describe('chunks grouped to pages', () => {
  it('scores a page by the sum of its best three chunks and keeps the closest chunk', () => {
    const pages = groupChunksToPages([
      { pageId: 'p1', chunkId: '1', similarity: 0.9 },
      { pageId: 'p2', chunkId: '2', similarity: 0.5 },
      { pageId: 'p2', chunkId: '3', similarity: 0.45 },
      { pageId: 'p2', chunkId: '4', similarity: 0.4 },
      { pageId: 'p2', chunkId: '5', similarity: 0.39 },
    ]);
    expect(pages.map((p) => p.pageId)).toEqual(['p2', 'p1']);
    expect(pages[0].score).toBeCloseTo(1.35, 10);
    expect(pages[0].bestChunk.chunkId).toBe('2');
    expect(groupChunksToPages([{ pageId: 'p', similarity: 0.2 }, { pageId: 'p', similarity: 0.3 }], 1)[0].score).toBeCloseTo(0.3, 10);
  });
});
