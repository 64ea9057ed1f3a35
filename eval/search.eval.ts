import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVaultFile, scanVault } from '../src/cli/vault-files.js';
import { pagesOfVault } from '../src/cli/vault-pages.js';
import { PagesService } from '../src/pages/pages.service.js';
import { SearchService } from '../src/search/search.service.js';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from '../test/e2e/kg-test-helpers.js';
import { markdownTable, scoreRanking, summarise, type QueryScores } from './metrics.js';

interface LabelledQuery {
  id: string;
  kind: 'paraphrase' | 'keyword' | 'linked' | 'alias';
  query: string;
  relevant: string[];
}

const FOAM_DOCS = path.resolve(REPO_ROOT, '../shared/corpus/foam-docs');
const QUERIES: LabelledQuery[] = JSON.parse(readFileSync(path.resolve(REPO_ROOT, 'eval/foam-queries.json'), 'utf8')).queries;
const KINDS = ['paraphrase', 'keyword', 'linked', 'alias'] as const;

/** One way of answering a query with ranked page slugs: a name and a function over the running application. */
interface SearchConfiguration {
  name: string;
  search(t: TestApp, query: string): Promise<string[]>;
}

const CONFIGURATIONS: SearchConfiguration[] = [
  // The ranker search shipped before BM25 (strict-then-any tsquery, ts_rank_cd): the baseline the new one must beat.
  { name: 'lexical-tsrank (before)', search: async (t, q) => (await t.app.get(PagesService).fullTextSearch(q, 10, 0)).hits.map((hit) => hit.slug) },
  ...(
    [
      ['lexical-bm25', { lexical: 1, vector: 0, graph: 0 }],
      ['lexical, vector when no word matches', {}],
      ['vector', { lexical: 0, vector: 1, graph: 0 }],
      ['hybrid', { lexical: 1, vector: 1, graph: 0 }],
      ['hybrid+graph', { lexical: 1, vector: 1, graph: 1 }],
      // A coarse sweep of the weights (never of single queries): does a lighter vector or graph list help?
      ['hybrid (vector 0.5)', { lexical: 1, vector: 0.5, graph: 0 }],
      ['hybrid (vector 0.25)', { lexical: 1, vector: 0.25, graph: 0 }],
      ['hybrid (vector 0.25) + graph 0.25', { lexical: 1, vector: 0.25, graph: 0.25 }],
      ['lexical + graph', { lexical: 1, vector: 0, graph: 1 }],
    ] as const
  ).map(([name, weights]) => ({
    name,
    search: async (t: TestApp, q: string) => (await t.app.get(SearchService).search(q, 1, 10, { weights: weights as { lexical?: number }, linkedSlots: 0 })).hits.map((hit) => hit.slug),
  })),
  // The Page Graph instead of the knowledge graph: slots (ranks 4, 7, 10) for pages the best three hits link to.
  ...[1, 2, 3].map((slots) => ({
    name: `lexical, vector when no word matches, ${slots} linked slot${slots === 1 ? '' : 's'}`,
    search: async (t: TestApp, q: string) => (await t.app.get(SearchService).search(q, 1, 10, { linkedSlots: slots })).hits.map((hit) => hit.slug),
  })),
  // Query understanding (issue 17): names in the query (titles, aliases, entities) lift their pages and expand it.
  ...(
    [
      ['default, no query understanding', { namedBoost: 0, expansionWeight: 0 }],
      ['default, named boost only', { expansionWeight: 0 }],
      ['default, named boost 0.5', { namedBoost: 0.5 }],
      ['default, named boost 2', { namedBoost: 2 }],
      ['default, expansion 0.6', { expansionWeight: 0.6 }],
      ['default + graph 0.25', { weights: { graph: 0.25 } }],
      ['default + graph 0.5', { weights: { graph: 0.5 } }],
      ['default + graph 1', { weights: { graph: 1 } }],
    ] as const
  ).map(([name, options]) => ({ name, search: async (t: TestApp, q: string) => (await t.app.get(SearchService).search(q, 1, 10, options)).hits.map((hit) => hit.slug) })),
  // What the server does with no KURATE_SEARCH_* set.
  { name: 'default configuration', search: async (t, q) => (await t.app.get(SearchService).search(q, 1, 10)).hits.map((hit) => hit.slug) },
];

// How the knowledge graph is built for the evaluation, as an admin would: include the Foam docs' clusters, let the
// built-in extractor (and the built-in hashing embedder) run, then approve in bulk every proposal at or above this
// confidence (nodes, then edges). Pages outside a cluster (the vault's root) stay excluded by the default policy.
const INCLUDED_CLUSTERS = ['user', 'dev'];
const APPROVE_AT = Number(process.env.KURATE_EVAL_APPROVE_AT ?? 0.7);

describe('search evaluation over the Foam docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const scan = await scanVault(FOAM_DOCS);
    const sources = await Promise.all(scan.files.map(async (file) => ({ relativePath: file.relativePath, source: await readVaultFile(FOAM_DOCS, file) })));
    const { pages } = pagesOfVault(sources);
    const author = await t.as('author');
    for (let i = 0; i < pages.length; i += 100) {
      await author.post('/api/import').send({ pages: pages.slice(i, i + 100) }).expect(200);
    }
    const admin = await t.as('admin');
    await startWorker(t);
    for (const cluster of INCLUDED_CLUSTERS) await setPolicy(admin, cluster, 'include');
    await waitForJobs(t, { timeoutMs: 600_000 });
    for (let round = 0; round < 20; round++) {
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'pending' AND confidence >= $1`, [APPROVE_AT]);
      if (n === 0) break;
      await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'approve', minConfidence: APPROVE_AT }).expect(200);
    }
    const [graph] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM pages WHERE deleted_at IS NULL)::int AS pages,
              (SELECT count(*) FROM kg_visible_pages v WHERE v.deleted_at IS NULL)::int AS included,
              (SELECT count(*) FROM kg_content_chunks WHERE embedding IS NOT NULL)::int AS chunks,
              (SELECT count(*) FROM kg_proposals)::int AS proposals,
              (SELECT count(*) FROM kg_nodes)::int AS nodes,
              (SELECT count(*) FROM kg_edges WHERE kind = 'typed')::int AS typed_edges,
              (SELECT count(*) FROM kg_edges WHERE kind = 'co_mention')::int AS co_mention_edges,
              (SELECT count(*) FROM kg_mentions WHERE node_id IS NOT NULL)::int AS linked_mentions`,
    );
    console.log(`\nGraph for the evaluation (clusters ${INCLUDED_CLUSTERS.join(', ')} included, proposals with confidence ≥ ${APPROVE_AT} approved): ${JSON.stringify(graph)}\n`);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('judges only pages that exist', async () => {
    const rows: { slug: string }[] = await t.dataSource.query(`SELECT slug FROM pages WHERE deleted_at IS NULL`);
    const slugs = new Set(rows.map((r) => r.slug));
    const missing = QUERIES.flatMap((q) => q.relevant.filter((slug) => !slugs.has(slug)).map((slug) => `${q.id}: ${slug}`));
    expect(missing).toEqual([]);
    for (const kind of KINDS) expect(QUERIES.filter((q) => q.kind === kind).length).toBeGreaterThanOrEqual(12);
  });

  it('prints recall@10, MRR@10, nDCG@10 and the zero-result rate per configuration and kind', async () => {
    const rows: Parameters<typeof markdownTable>[0] = [];
    const misses: string[] = [];
    for (const configuration of CONFIGURATIONS) {
      const scored: { query: LabelledQuery; scores: QueryScores }[] = [];
      for (const query of QUERIES) {
        const ranked = await configuration.search(t, query.query);
        const scores = scoreRanking(ranked, query.relevant);
        scored.push({ query, scores });
        if (scores.mrr === 0) misses.push(`${configuration.name} ${query.id} "${query.query}" → ${ranked.slice(0, 3).join(', ') || '(nothing)'}`);
      }
      rows.push({ config: configuration.name, kind: 'all', summary: summarise(scored.map((s) => s.scores)) });
      for (const kind of KINDS) rows.push({ config: configuration.name, kind, summary: summarise(scored.filter((s) => s.query.kind === kind).map((s) => s.scores)) });
    }
    console.log(`\n${markdownTable(rows)}\n\nQueries with no relevant page in the top 10:\n${misses.join('\n')}\n`);
    expect(rows.length).toBe(CONFIGURATIONS.length * (KINDS.length + 1));
  });
});
