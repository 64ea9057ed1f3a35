import { describe, expect, it } from 'vitest';
import { floorBreaches, markdownTable, percentile, scoreRanking, summarise, type Floors } from '../../eval/metrics.js';

describe('evaluation metrics', () => {
  it('scores recall, reciprocal rank and nDCG@10 of a ranking against the judged pages', () => {
    const scores = scoreRanking(['a', 'x', 'b', 'y'], ['a', 'b', 'c']);
    expect(scores.recall).toBeCloseTo(2 / 3);
    expect(scores.mrr).toBe(1);
    const ideal = 1 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(scores.ndcg).toBeCloseTo((1 + 1 / Math.log2(4)) / ideal);
    expect(scoreRanking([], ['a'])).toEqual({ recall: 0, mrr: 0, ndcg: 0, zeroResults: true });
  });

  it('counts only the first ten results', () => {
    const ranked = [...'abcdefghij'.split(''), 'k'];
    expect(scoreRanking(ranked, ['k']).recall).toBe(0);
    expect(scoreRanking(ranked, ['j']).mrr).toBe(0.1);
  });

  it('averages scores over queries', () => {
    const summary = summarise([scoreRanking(['a'], ['a']), scoreRanking(['b'], ['a'])]);
    expect(summary).toMatchObject({ queries: 2, recall: 0.5, mrr: 0.5, ndcg: 0.5, zeroRate: 0 });
  });

  it('takes the nearest-rank percentile', () => {
    const values = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile(values, 100)).toBe(20);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 95)).toBeNaN();
  });

  it('prints one row per configuration and graph state with a column pair per kind', () => {
    const s = summarise([scoreRanking(['a'], ['a'])]);
    const table = markdownTable([{ config: 'default', graph: 'none', all: s, byKind: [{ kind: 'keyword', summary: s }], p95Ms: 12.34 }]);
    expect(table.split('\n')).toEqual([
      '| configuration | knowledge graph | all (1) R@10 | nDCG@10 | keyword (1) R@10 | nDCG@10 | p95 ms |',
      '|---|---|---:|---:|---:|---:|---:|',
      '| default | none | 1.000 | 1.000 | 1.000 | 1.000 | 12.3 |',
    ]);
  });
});

describe('nDCG@10 floors', () => {
  const floors: Floors = { tolerance: 0.02, corpora: { foam: { 'without graph': 0.6, 'with graph': 0.65 } } };

  it('passes a measurement within the tolerance below its floor, and one above it', () => {
    expect(floorBreaches(floors, { foam: { 'without graph': 0.58, 'with graph': 0.9 } }, ['foam'])).toEqual([]);
  });

  it('fails a measurement more than the tolerance below its floor', () => {
    expect(floorBreaches(floors, { foam: { 'without graph': 0.6, 'with graph': 0.629 } }, ['foam'])).toEqual([
      'foam, with graph: nDCG@10 0.629 is more than 0.02 below the floor 0.650',
    ]);
  });

  it('fails a floor that was not measured, and a corpus without floors', () => {
    expect(floorBreaches(floors, { foam: { 'without graph': 0.6 } }, ['foam', 'dendron'])).toEqual([
      'foam, with graph: not measured (floor 0.650)',
      'dendron: no floor recorded in eval/floors.json',
    ]);
  });

  it('checks only the corpora that ran', () => {
    expect(floorBreaches(floors, {}, [])).toEqual([]);
  });
});
