import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVaultFile, scanVault } from '../src/cli/vault-files.js';
import { pagesOfVault } from '../src/cli/vault-pages.js';
import { SearchService } from '../src/search/search.service.js';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';

// How long the lexical ranker takes at 10,000 pages: the Foam docs imported, then copied in SQL with a per-copy
// word so that copies differ. A rough measure for the ranker's design; the full benchmark belongs in bench/.
const TARGET_PAGES = Number(process.env.KURATE_EVAL_PAGES ?? 10_000);
const FOAM_DOCS = path.resolve(REPO_ROOT, '../shared/corpus/foam-docs');
const QUERIES: { query: string }[] = JSON.parse(readFileSync(path.resolve(REPO_ROOT, 'eval/foam-queries.json'), 'utf8')).queries;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

describe('lexical search speed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const scan = await scanVault(FOAM_DOCS);
    const sources = await Promise.all(scan.files.map(async (file) => ({ relativePath: file.relativePath, source: await readVaultFile(FOAM_DOCS, file) })));
    const author = await t.as('author');
    await author.post('/api/import').send({ pages: pagesOfVault(sources).pages }).expect(200);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM pages`);
    const copies = Math.ceil((TARGET_PAGES - n) / n);
    await t.dataSource.query(
      `INSERT INTO pages (slug, title, body, cluster, clusters, tags, aliases, content_hash, created_by, updated_by, search)
       SELECT p.slug || '-copy-' || i, p.title || ' ' || i, p.body || E'\\n\\nvariant' || i, p.cluster, p.clusters, p.tags, p.aliases,
              p.content_hash, 'eval', 'eval',
              p.search || setweight(to_tsvector('english', 'variant' || i), 'C')
         FROM pages p, generate_series(1, $1::int) i`,
      [copies],
    );
    await t.dataSource.query(`ANALYZE pages; ANALYZE page_search_stats`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('prints p50/p95 of SearchService.search over the labelled queries', async () => {
    const search = t.app.get(SearchService);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM pages`);
    for (const { query } of QUERIES.slice(0, 5)) await search.search(query, 1, 20);
    const times: number[] = [];
    for (const { query } of QUERIES) {
      const start = performance.now();
      await search.search(query, 1, 20);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    console.log(`\n${n} pages, ${times.length} queries: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms\n`);
    expect(n).toBeGreaterThanOrEqual(TARGET_PAGES);
  });
});
