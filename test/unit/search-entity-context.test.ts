import { describe, expect, it } from 'vitest';
import { buildContextIndex, CONTEXT_FULL_WEIGHT_SHARE, contextCeiling, scoreContext, type ContextTermRow } from '../../src/search/entity-context.js';
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

  it('weighs scores against the ideal page\'s when the best falls short: a common word alone earns a small bonus', () => {
    // `notes` is in most of twenty contexts; `unlinked` in none: "unlinked notes" reaches pages only by its common word.
    const others = Array.from({ length: 17 }, (_, i) => [row(`page${i}`, 'notes'), row(`page${i}`, `word${i}`)]).flat();
    const index = buildContextIndex([row('daily', 'notes', 2), row('daily', 'journal'), row('embeds', 'transclude'), row('orphans', 'orphan'), ...others]);
    const terms = [{ lexeme: 'unlink', weight: 1 }, { lexeme: 'notes', weight: 1 }];
    const ceiling = contextCeiling(index, terms);
    const idf = (n: number) => Math.log(1 + (20 - n + 0.5) / (n + 0.5));
    expect(ceiling).toBeCloseTo(idf(0) + idf(18), 10);
    expect(contextCeiling(index, [{ lexeme: 'journal', weight: 0.5 }])).toBeCloseTo(0.5 * idf(1), 10);

    const scored = scoreContext(index, terms);
    const blended: BlendedPage[] = [
      { pageId: 'orphans', score: 1, lexical: 10, named: 0 },
      { pageId: 'daily', score: 0.9, lexical: 9, named: 0 },
    ];
    // Against the best alone, `daily` (notes ×2) would gain the full 0.4 and overtake the words' first page.
    expect(withContext(blended, scored, 0.4)[0].pageId).toBe('daily');
    const out = withContext(blended, scored, 0.4, CONTEXT_FULL_WEIGHT_SHARE * ceiling);
    expect(out[0].pageId).toBe('orphans');
    const bonus = out.find((p) => p.pageId === 'daily')!.score - 0.9;
    expect(bonus).toBeGreaterThan(0);
    expect(bonus).toBeLessThan(0.1);
    // A match that reaches the ideal share still gets the full weight, relative to the best.
    const strong = scoreContext(index, [{ lexeme: 'journal', weight: 1 }]);
    const full = withContext(blended, strong, 0.4, CONTEXT_FULL_WEIGHT_SHARE * contextCeiling(index, [{ lexeme: 'journal', weight: 1 }]));
    expect(full.find((p) => p.pageId === 'daily')!.score).toBeCloseTo(0.9 + 0.4, 10);
  });
});
