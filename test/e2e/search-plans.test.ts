import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SearchRepository } from '../../src/search/search.repository.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { foamDocsPages, importPages } from './kg-test-helpers.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * How PostgreSQL plans the lexical ranker once the table has statistics (ANALYZE, as autovacuum or a restore gives
 * it). With them the planner used to read a candidate page's term by walking every page of the term in the impact
 * index and filtering the page out (8 ms a search at 1,000 pages, instead of under 1 ms): every read of
 * page_search_terms that knows the page must find it through an index condition, never a filter.
 */
describe('search: the lexical ranker probes a page term by its key once the table has statistics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const foam = await foamDocsPages();
    // Four copies of the Foam docs (344 pages): common words are on hundreds of pages, as in a real wiki.
    const pages = [0, 1, 2, 3].flatMap((copy) => foam.map((p) => ({ ...p, path: `copy${copy}/${p.path}`, title: `${p.title} ${copy}` })));
    await importPages(await t.as('author'), pages);
    await t.dataSource.query('VACUUM ANALYZE page_search_terms');
  });
  afterAll(() => t?.close());

  it.each(['daily notes', 'graph view of my notes', 'templates'])('plans "%s" with index probes by page', async (words) => {
    const query = vi.spyOn(t.dataSource, 'query');
    let statement: { text: string; values: unknown[] } | undefined;
    try {
      const result = await t.app.get(SearchRepository).lexicalSearch(words, '', 50);
      expect(result.hits.length).toBeGreaterThan(0);
      const call = query.mock.calls.find(([sql]) => typeof sql === 'object' && String((sql as { text: string }).text).includes('per_term AS MATERIALIZED'));
      statement = call && { text: (call[0] as unknown as { text: string }).text, values: call[1] as unknown[] };
    } finally {
      query.mockRestore();
    }
    expect(statement).toBeDefined();
    const [row] = await t.dataSource.query(`EXPLAIN (FORMAT JSON) ${statement!.text}`, statement!.values);
    const plan = (typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'])[0].Plan as PlanNode;
    const reads = nodesOf(plan).filter((n) => n['Relation Name'] === 'page_search_terms' || n['Index Name']?.startsWith('page_search_terms'));
    expect(reads.length).toBeGreaterThan(0);
    const filteredByPage = reads.filter((n) => /page_id = /.test(n.Filter ?? ''));
    expect(filteredByPage.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}: ${n['Index Cond'] ?? ''} / filter ${n.Filter}`)).toEqual([]);
  });
});
