import { describe, expect, it } from 'vitest';
import { markdownTable, scoreRanking, summarise } from '../../eval/metrics.js';
import { parseSearchQuery } from '../../src/search/search-query.js';

describe('parseSearchQuery', () => {
  it('keeps every word of a question to rank by', () => {
    expect(parseSearchQuery('which animal is quick and brown?')).toEqual({ words: 'which animal is quick and brown?', excluded: '' });
  });

  it('splits -excluded words and phrases from the rest, and unquotes phrases', () => {
    expect(parseSearchQuery('"graph view" tags -daily -"block anchors"')).toEqual({ words: 'graph view tags', excluded: 'daily block anchors' });
  });

  it('takes an unclosed quote and a bare dash without failing', () => {
    expect(parseSearchQuery('"open ended x')).toEqual({ words: 'open ended x', excluded: '' });
    expect(parseSearchQuery('a - b')).toEqual({ words: 'a b', excluded: '' });
  });
});

describe('search evaluation metrics', () => {
  it('scores a ranking by recall@10, MRR@10 and nDCG@10', () => {
    const s = scoreRanking(['a', 'x', 'b'], ['b', 'a']);
    expect(s.recall).toBe(1);
    expect(s.mrr).toBe(1);
    // DCG = 1 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3).
    expect(s.ndcg).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 6);
    expect(s.zeroResults).toBe(false);
  });

  it('counts only the top ten, and an empty list as a zero-result query', () => {
    const late = scoreRanking([...'abcdefghij'.split(''), 'rel'], ['rel']);
    expect(late).toMatchObject({ recall: 0, mrr: 0, ndcg: 0 });
    expect(scoreRanking([], ['rel']).zeroResults).toBe(true);
  });

  it('averages per query and prints a Markdown table', () => {
    const summary = summarise([scoreRanking(['a'], ['a']), scoreRanking([], ['a'])]);
    expect(summary).toMatchObject({ queries: 2, recall: 0.5, mrr: 0.5, zeroRate: 0.5 });
    expect(markdownTable([{ config: 'lexical', kind: 'all', summary }])).toContain('| lexical | all | 2 | 0.500 | 0.500 | 0.500 | 0.500 |');
  });
});
