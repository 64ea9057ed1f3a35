import { describe, expect, it } from 'vitest';
import { buildContextIndex, scoreContext, type ContextTermRow } from '../../src/search/entity-context.js';
import { withContext, type BlendedPage } from '../../src/search/query-ranking.js';

const row = (pageId: string, lexeme: string, count = 1): ContextTermRow => ({ pageId, lexeme, count });

describe('entity context: what other pages say about an entity, credited to its page', () => {
  it('indexes each page\'s words with their counts, adding up rows of one page and word', () => {
    const index = buildContextIndex([row('home', 'journal', 3), row('home', 'journal', 1), row('home', 'today', 1), row('other', 'export', 1), row('empty', 'nothing', 0)]);
    expect(index.size).toBe(2);
    expect(index.postings.get('journal')?.get('home')).toBe(4);
    expect(index.lengths.get('home')).toBe(5);
    expect(index.averageLength).toBe(3);
    expect(index.postings.has('nothing')).toBe(false);
  });

  it('ranks by BM25 over the context field: rarer words weigh more, expansions by their weight, and lists the stems matched', () => {
    const index = buildContextIndex([
      row('daily', 'journal'),
      row('daily', 'today'),
      row('templates', 'today'),
      row('templates', 'boilerplate'),
      row('export', 'pdf'),
    ]);
    const scored = scoreContext(index, [{ lexeme: 'journal', weight: 1 }, { lexeme: 'today', weight: 1 }]);
    expect(scored.map((s) => s.pageId)).toEqual(['daily', 'templates']);
    expect(scored[0].lexemes.sort()).toEqual(['journal', 'today']);
    const rare = scoreContext(index, [{ lexeme: 'journal', weight: 1 }])[0].score;
    const common = scoreContext(index, [{ lexeme: 'today', weight: 1 }]).find((s) => s.pageId === 'daily')!.score;
    expect(rare).toBeGreaterThan(common);
    const expanded = scoreContext(index, [{ lexeme: 'journal', weight: 0.3 }])[0].score;
    expect(expanded).toBeCloseTo(rare * 0.3, 10);
    expect(scoreContext(index, [{ lexeme: 'unknown', weight: 1 }])).toEqual([]);
    expect(scoreContext(buildContextIndex([]), [{ lexeme: 'journal', weight: 1 }])).toEqual([]);
  });

  it('adds each page its context score relative to the best, bringing in pages no word matched', () => {
    const blended: BlendedPage[] = [
      { pageId: 'a', score: 1, lexical: 10, named: 0 },
      { pageId: 'b', score: 0.9, lexical: 9, named: 0 },
    ];
    const out = withContext(blended, [{ pageId: 'c', score: 4 }, { pageId: 'b', score: 2 }], 0.4);
    expect(out.map((p) => [p.pageId, Number(p.score.toFixed(3))])).toEqual([['b', 1.1], ['a', 1], ['c', 0.4]]);
    expect(out.find((p) => p.pageId === 'c')?.lexical).toBe(0);
    expect(withContext(blended, [{ pageId: 'c', score: 4 }], 0)).toEqual(blended);
  });
});
