import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from 'typeorm';
import { HASHING_EMBEDDER_DIMENSIONS, HASHING_EMBEDDER_MODEL } from '../src/embedders/hashing.embedder.js';
import { SearchVectorRepository } from '../src/search/search-vector.repository.js';
import { SearchNamesService } from '../src/search/search-names.service.js';
import { SearchNamesRepository } from '../src/search/search-names.repository.js';
import { SearchService, type SearchOptions } from '../src/search/search.service.js';
import { setPolicy, startWorker, waitForJobs, importPages } from '../test/e2e/kg-test-helpers.js';
import { FOAM_DOCS } from '../test/support/fixtures.js';
import { corpusPages } from './corpora.js';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';

// Search speed at 10,000 pages (issue 7): the Foam docs imported and extracted (chunks, embeddings, proposals
// approved at confidence ≥ 0.7), then copied in SQL with a per-copy word, their chunks copied with slightly moved
// vectors and their mentions, and random approved edges added up to ~20,000. Measured in one run: /api/search over
// HTTP, SearchService.search, and the raw SQL the service issued for each query replayed on a plain connection
// (the floor), and how long every process takes to read the names, neighbours and entity contexts again after an
// approval. `KURATE_EVAL_PAGES` changes the size, `KURATE_EVAL_EDGES` the edge count, `KURATE_EVAL_ENTITIES` the
// approved entities (each added one bears the title of a page, so it has a home page and what other pages say of it).
const TARGET_PAGES = Number(process.env.KURATE_EVAL_PAGES ?? 10_000);
const TARGET_EDGES = Number(process.env.KURATE_EVAL_EDGES ?? 20_000);
const TARGET_ENTITIES = Number(process.env.KURATE_EVAL_ENTITIES ?? 5_000);
const QUERIES: { query: string }[] = JSON.parse(readFileSync(path.resolve(REPO_ROOT, 'eval/foam-queries.json'), 'utf8')).queries;
const ROUNDS = 3;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (times: number[]) => {
  const s = [...times].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(1)} ms, p95 ${percentile(s, 95).toFixed(1)} ms, max ${s.at(-1)!.toFixed(1)} ms`;
};

/** Records every statement TypeORM sends (text and parameters), to replay them as the raw-SQL floor. */
class CapturingLogger implements Logger {
  /** `name`: a prepared statement's (src/db/prepared-query.ts), which the floor replays prepared too. */
  statements: { sql: string; name?: string; params: unknown[] }[] = [];
  logQuery(query: string | { name: string; text: string }, parameters?: unknown[]) {
    const prepared = typeof query === 'object' ? query : null;
    this.statements.push({ sql: prepared ? prepared.text : (query as string), ...(prepared ? { name: prepared.name } : {}), params: parameters ?? [] });
  }
  logQueryError() {}
  logQuerySlow() {}
  logSchemaBuild() {}
  logMigration() {}
  log() {}
}

describe('hybrid search speed', () => {
  let t: TestApp;
  let pages = 0;
  let edges = 0;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    const admin = await t.as('admin');
    await importPages(await t.as('author'), await corpusPages(FOAM_DOCS));
    await startWorker(t);
    for (const cluster of ['user', 'dev']) await setPolicy(admin, cluster, 'include');
    await waitForJobs(t, { timeoutMs: 600_000 });
    await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'approve', minConfidence: 0.7 }).expect(200);
    const db = t.dataSource;
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM pages`);
    const copies = Math.ceil((TARGET_PAGES - n) / n);
    const started = performance.now();
    // Inserting into an HNSW index row by row is slow: build it once the copies are in.
    await db.query(`DROP INDEX IF EXISTS ${SearchVectorRepository.indexName(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS)}`);
    await db.query(
      `INSERT INTO pages (slug, title, body, cluster, clusters, tags, aliases, content_hash, created_by, updated_by, search)
       SELECT p.slug || '-copy-' || i, p.title || ' ' || i, p.body || E'\\n\\nvariant' || i, p.cluster, p.clusters, p.tags, p.aliases,
              p.content_hash, 'eval', 'eval', p.search || setweight(to_tsvector('english', 'variant' || i), 'C')
         FROM pages p, generate_series(1, $1::int) i`,
      [copies],
    );
    await db.query(
      `INSERT INTO kg_content_chunks (page_id, position, heading_path, text, content_hash, token_estimate, embedding, embedding_model, embedding_dims, search)
       SELECT cp.id, c.position, c.heading_path, c.text, c.content_hash, c.token_estimate,
              (SELECT array_agg(x + (random() - 0.5) * 0.02 ORDER BY o) FROM unnest(c.embedding::real[]) WITH ORDINALITY u(x, o))::vector,
              c.embedding_model, c.embedding_dims, c.search
         FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id JOIN pages cp ON cp.slug LIKE p.slug || '-copy-%' AND cp.slug ~ ('^' || p.slug || '-copy-[0-9]+$')`,
    );
    await db.query(
      `INSERT INTO kg_mentions (chunk_id, signature, node_id, surface, confidence)
       SELECT cc.id, m.signature, m.node_id, m.surface, m.confidence
         FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id JOIN pages p ON p.id = c.page_id
         JOIN pages cp ON cp.slug ~ ('^' || p.slug || '-copy-[0-9]+$')
         JOIN kg_content_chunks cc ON cc.page_id = cp.id AND cc.position = c.position
        WHERE m.node_id IS NOT NULL`,
    );
    // Entities up to the target, named by pages' titles (so each has a home page), each mentioned in the first
    // chunks of the pages that link to its home; approved edges between random entities up to the target.
    await db.query(
      `INSERT INTO kg_nodes (signature, name, node_type, origin, created_by)
       SELECT 'eval-node-' || p.id, p.title, 'concept', 'manual', 'eval'
         FROM (SELECT id, title FROM pages ORDER BY slug LIMIT greatest(0, $1::int - (SELECT count(*)::int FROM kg_nodes))) p`,
      [TARGET_ENTITIES],
    );
    await db.query(
      `INSERT INTO kg_mentions (chunk_id, signature, node_id, surface, confidence)
       SELECT c.id, n.signature, n.id, split_part(n.name, ' ', 1), 0.8
         FROM kg_nodes n JOIN pages h ON n.signature = 'eval-node-' || h.id
         JOIN LATERAL (SELECT c.id FROM kg_content_chunks c JOIN pages s ON s.id = c.page_id
                        WHERE s.id <> h.id AND s.cluster IS NOT DISTINCT FROM h.cluster ORDER BY c.id LIMIT 5 OFFSET (abs(hashtext(h.slug)) % 500)) c ON true
       ON CONFLICT DO NOTHING`,
    );
    await db.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT DISTINCT ON (least(a, b), greatest(a, b)) least(a, b), greatest(a, b), 'co_mention', 'co_mention', 1 + floor(random() * 3), 'manual', 'eval'
         FROM (SELECT (SELECT id FROM kg_nodes ORDER BY random() + g * 0 LIMIT 1) AS a, (SELECT id FROM kg_nodes ORDER BY random() + g * 0 LIMIT 1) AS b
                 FROM generate_series(1, $1::int - (SELECT count(*)::int FROM kg_edges)) g) r
        WHERE a <> b
       ON CONFLICT DO NOTHING`,
      [TARGET_EDGES],
    );
    await t.app.get(SearchVectorRepository).ensureIndex(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS);
    // As autovacuum would soon: statistics, and the visibility map that lets counts be read from indexes alone.
    await db.query(`VACUUM ANALYZE`);
    [{ pages, edges }] = await db.query(`SELECT (SELECT count(*) FROM pages)::int AS pages, (SELECT count(*) FROM kg_edges)::int AS edges`);
    const [sizes] = await db.query(
      `SELECT (SELECT count(*) FROM kg_content_chunks)::int AS chunks, (SELECT count(*) FROM kg_mentions WHERE node_id IS NOT NULL)::int AS mentions,
              (SELECT count(*) FROM kg_nodes)::int AS nodes, (SELECT count(*) FROM kg_mentions WHERE node_id IS NOT NULL)::int AS approved_mentions, (SELECT count(*) FROM page_search_terms)::int AS term_rows`,
    );
    console.log(`\nBuilt ${pages} pages, ${edges} approved edges, ${JSON.stringify(sizes)} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('prints p50/p95 of /api/search, of SearchService.search and of the raw SQL it issues', async () => {
    const search = t.app.get(SearchService);
    const config = t.config.database;
    const logger = new CapturingLogger();
    const original = t.dataSource.logger;
    const lines: string[] = [`${pages} pages, ${edges} edges, ${QUERIES.length} queries × ${ROUNDS} rounds, ${config.kind}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`];
    for (const [label, options] of [
      ['default (lexical; vector when no word matches)', {}],
      ['all lists (lexical + vector + graph, weights 1)', { weights: { lexical: 1, vector: 1, graph: 1 } }],
    ] as [string, SearchOptions][]) {
      for (const { query } of QUERIES.slice(0, 10)) await search.search(query, 1, 20, options);
      const service: number[] = [];
      const captured: CapturingLogger['statements'][] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const { query } of QUERIES) {
          logger.statements = [];
          (t.dataSource as { logger: Logger }).logger = logger;
          const start = performance.now();
          await search.search(query, 1, 20, options);
          service.push(performance.now() - start);
          (t.dataSource as { logger: Logger }).logger = original;
          if (round === 0) captured.push(logger.statements);
        }
      }
      lines.push(`${label}: SearchService.search ${stats(service)}; ${(captured.reduce((s, c) => s + c.length, 0) / captured.length).toFixed(1)} statements per query`);
      console.log(lines.at(-1));
      {
        // The floor: the same statements with the same parameters, one after the other on a plain connection
        // (embedded: straight through the data source, PGlite has one connection).
        // With JIT off, as every connection of the server's pool has it (src/db/database.module.ts): with it on, the
        // floor paid for compiling the lexical statement (about 30 ms) and came out above the service it bounds.
        const client = config.kind === 'postgres' ? new pg.Client({ connectionString: config.url, options: '-c jit=off' }) : null;
        await client?.connect();
        const raw: number[] = [];
        const byStatement = new Map<string, number[]>();
        // KURATE_EVAL_EXPLAIN=1: the plan of the slowest run of the slowest statement, printed below the figures.
        let slowestRun: { sql: string; params: unknown[]; ms: number } | null = null;
        for (let round = 0; round < ROUNDS; round++) {
          for (const statements of captured) {
            const start = performance.now();
            for (const s of statements) {
              const one = performance.now();
              const statement = s.name ? { name: s.name, text: s.sql } : s.sql;
              await (client ? client.query(statement, s.params as unknown[]) : t.dataSource.query(statement as string, s.params as unknown[]));
              const key = s.sql.replace(/\s+/g, ' ').slice(0, 70);
              byStatement.set(key, [...(byStatement.get(key) ?? []), performance.now() - one]);
              if (!slowestRun || performance.now() - one > slowestRun.ms) slowestRun = { sql: s.sql, params: s.params, ms: performance.now() - one };
            }
            raw.push(performance.now() - start);
          }
        }
        if (process.env.KURATE_EVAL_EXPLAIN === '1' && slowestRun && /^\s*(WITH|SELECT)/i.test(slowestRun.sql)) {
          const explain = `EXPLAIN (ANALYZE, BUFFERS) ${slowestRun.sql}`;
          const plan = (await (client ? client.query(explain, slowestRun.params as unknown[]).then((r) => r.rows) : t.dataSource.query(explain, slowestRun.params as unknown[]))) as { 'QUERY PLAN': string }[];
          console.log(`${label}: the slowest statement (${slowestRun.ms.toFixed(1)} ms), params ${JSON.stringify(slowestRun.params).slice(0, 300)}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
        }
        await client?.end();
        lines.push(`${label}: raw SQL ${stats(raw)}`);
        const slowest = [...byStatement.entries()].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0)).slice(0, 4);
        for (const [key, times] of slowest) lines.push(`    ${stats(times)} × ${times.length}: ${key}`);
        console.log(lines.at(-1));
      }
      if (Object.keys(options).length === 0) {
        const http: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          for (const { query } of QUERIES) {
            const start = performance.now();
            const res = await fetch(`${t.baseUrl}/api/search?${new URLSearchParams({ q: query })}`);
            await res.json();
            http.push(performance.now() - start);
            expect(res.status).toBe(200);
          }
        }
        lines.push(`${label}: GET /api/search ${stats(http)}`);
      }
    }
    // After an approval every process reads the dictionary, neighbour lists and entity contexts again (NOTIFY).
    const names = t.app.get(SearchNamesService);
    const reloads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      names.changed();
      const start = performance.now();
      await names.knowledge();
      reloads.push(performance.now() - start);
    }
    const knowledge = await names.knowledge();
    const repository = t.app.get(SearchNamesRepository);
    for (const [label, read] of [
      ['names', () => repository.named()],
      ['edges', () => repository.neighbours()],
    ] as const) {
      const start = performance.now();
      await read();
      lines.push(`    of which ${label}: ${(performance.now() - start).toFixed(0)} ms`);
    }
    lines.push(`knowledge read again after an approval (${knowledge.dictionary.size} names, ${knowledge.context.size} pages with entity context): ${stats(reloads)}`);
    console.log(`\n${lines.join('\n')}\n`);
    expect(pages).toBeGreaterThanOrEqual(TARGET_PAGES);
  });
});
