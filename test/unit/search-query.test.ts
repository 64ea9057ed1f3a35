import { describe, expect, it } from 'vitest';
import { scoreRanking, summarise } from '../../eval/metrics.js';
import { parseSearchQuery } from '../../src/search/search-query.js';

describe('parseSearchQuery', () => {
  it('keeps every word of a question to rank by', () => {
    expect(parseSearchQuery('which animal is quick and brown?')).toEqual({
      words: 'which animal is quick and brown?', excluded: '', readerWords: ['which', 'animal', 'is', 'quick', 'and', 'brown?'],
    });
  });

  it('splits -excluded words and phrases from the rest, and unquotes phrases', () => {
    expect(parseSearchQuery('"graph view" tags -daily -"block anchors"')).toMatchObject({ words: 'graph view tags', excluded: 'daily block anchors' });
  });

  it('takes an unclosed quote and a bare dash without failing', () => {
    expect(parseSearchQuery('"open ended x')).toMatchObject({ words: 'open ended x', excluded: '' });
    expect(parseSearchQuery('a - b')).toMatchObject({ words: 'a - b', excluded: '', readerWords: ['a', 'b'] });
  });

  it('reads --option, one-letter flags and dashes inside words literally', () => {
    expect(parseSearchQuery('start with --verbose')).toMatchObject({ words: 'start with --verbose', excluded: '' });
    expect(parseSearchQuery('grep -v lines')).toMatchObject({ words: 'grep -v lines', excluded: '' });
    expect(parseSearchQuery('send an e-mail')).toMatchObject({ words: 'send an e-mail', excluded: '' });
    expect(parseSearchQuery('sync git-based -dropbox')).toMatchObject({ words: 'sync git-based', excluded: 'dropbox' });
  });

  it('excludes only while positive words remain; otherwise the dash is part of the word', () => {
    expect(parseSearchQuery('-verbose')).toMatchObject({ words: '-verbose', excluded: '' });
    expect(parseSearchQuery('-"graph view" -tags')).toMatchObject({ words: 'graph view -tags', excluded: '' });
    expect(parseSearchQuery('notes -tags')).toMatchObject({ words: 'notes', excluded: 'tags' });
  });

  it('searches a fused token whole and by its parts, and keeps the reader\'s words apart', () => {
    expect(parseSearchQuery('Plugins/Backlinks panel')).toEqual({
      words: 'Plugins/Backlinks panel Plugins Backlinks', excluded: '', readerWords: ['Plugins/Backlinks', 'panel'],
    });
    expect(parseSearchQuery('edit config.json')).toMatchObject({ words: 'edit config.json config json' });
    expect(parseSearchQuery('end of sentence.')).toMatchObject({ words: 'end of sentence.' });
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

  it('averages per query (the table: eval-metrics.test.ts)', () => {
    const summary = summarise([scoreRanking(['a'], ['a']), scoreRanking([], ['a'])]);
    expect(summary).toMatchObject({ queries: 2, recall: 0.5, mrr: 0.5, zeroRate: 0.5 });
  });
});
