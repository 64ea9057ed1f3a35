import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVaultFile, scanVault } from '../src/cli/vault-files.js';
import { pagesOfVault } from '../src/cli/vault-pages.js';
import { PagesService } from '../src/pages/pages.service.js';
import { SearchService } from '../src/search/search.service.js';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
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

/**
 * One way of answering a query with ranked page slugs. Add vector, hybrid and hybrid + graph here when they exist:
 * each is a name and a function over the running application.
 */
interface SearchConfiguration {
  name: string;
  search(t: TestApp, query: string): Promise<string[]>;
}

const CONFIGURATIONS: SearchConfiguration[] = [
  // The ranker search shipped before BM25 (strict-then-any tsquery, ts_rank_cd): the baseline the new one must beat.
  { name: 'lexical-tsrank (before)', search: async (t, q) => (await t.app.get(PagesService).fullTextSearch(q, 10, 0)).hits.map((hit) => hit.slug) },
  { name: 'lexical-bm25', search: async (t, q) => (await t.app.get(SearchService).search(q, 1, 10)).hits.map((hit) => hit.slug) },
];

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
