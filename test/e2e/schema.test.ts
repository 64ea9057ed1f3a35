import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations, rollback, migrate } from '../../src/db/migration-runner.js';
import { SEARCH_CORPUS } from '../../src/db/search-corpus.js';
import { KgExtractionRepository } from '../../src/kg/kg-extraction.repository.js';
import { termCounts } from '../../src/kg/term-stats.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('database schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('matches the entities exactly (no drift between migrations and TypeORM entities)', async () => {
    // TypeORM computes what it would change to make the database match the entities; nothing may be pending.
    const pending = await t.dataSource.driver.createSchemaBuilder().log();
    const statements = pending.upQueries.map((q) => q.query);
    expect(statements).toEqual([]);
  });

  it('has the GIN indexes TypeORM cannot describe', async () => {
    const rows: { indexname: string }[] = await t.dataSource.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE '%USING gin%' ORDER BY indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['kg_content_chunks_search_idx', 'pages_aliases_trgm_idx', 'pages_link_keys_idx', 'pages_tags_idx', 'pages_title_trgm_idx']);
  });

  it("takes the pages' GIN entries straight into the index: no pending list for every save's link lookups to read", async () => {
    const rows: { name: string; options: string[] | null }[] = await t.dataSource.query(
      `SELECT c.relname AS name, c.reloptions AS options FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid JOIN pg_am a ON a.oid = c.relam
        WHERE a.amname = 'gin' AND i.indrelid = 'pages'::regclass ORDER BY c.relname`,
    );
    expect(rows.map((r) => [r.name, r.options])).toEqual([
      ['pages_aliases_trgm_idx', ['fastupdate=off']],
      ['pages_link_keys_idx', ['fastupdate=off']],
      ['pages_tags_idx', ['fastupdate=off']],
      ['pages_title_trgm_idx', ['fastupdate=off']],
    ]);
  });

  it('has the search indexes: term statistics in impact order, and an HNSW index for the embedder made at start', async () => {
    const rows: { indexname: string; indexdef: string }[] = await t.dataSource.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND (tablename = 'page_search_terms' OR indexdef LIKE '%USING hnsw%') ORDER BY indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      'kg_content_chunks_embedding_384_64fad15d8d_m8_idx', 'page_search_terms_impact_idx', 'page_search_terms_pkey',
    ]);
    expect(rows[0].indexdef).toContain("WHERE ((embedding_model = 'kurate-hash-384-v1'::text) AND (embedding_dims = 384))");
  });

  it('keeps page_search_terms to live pages without a foreign key: trash, restore and a deleted row', async () => {
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Term Keeper', body: 'Lighthouse keepers polish brass lanterns.' }).expect(201);
    const terms = async () => Number((await t.dataSource.query('SELECT count(*) AS n FROM page_search_terms WHERE page_id = $1', [created.body.id]))[0].n);
    expect(await terms()).toBeGreaterThan(4);
    await author.delete('/api/pages/term-keeper').expect(204);
    expect(await terms()).toBe(0);
    await author.post('/api/pages/term-keeper/restore').expect(201);
    expect(await terms()).toBeGreaterThan(4);
    await t.dataSource.query('DELETE FROM pages WHERE id = $1', [created.body.id]);
    expect(await terms()).toBe(0);
  });

  it('keeps kg_page_terms to live pages without a foreign key: trash, restore, a deleted row and a late writer (migration 0036)', async () => {
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Count Keeper', body: 'Lighthouse keepers polish brass lanterns.' }).expect(201);
    const counts = async () => Number((await t.dataSource.query('SELECT count(*) AS n FROM kg_page_terms WHERE page_id = $1', [created.body.id]))[0].n);
    expect(await counts()).toBeGreaterThan(3);
    await author.delete('/api/pages/count-keeper').expect(204);
    expect(await counts()).toBe(0);
    // A writer outside the save (a backfill of a page saved before the statistics existed) writes none for a page in
    // the trash, nor for one that is gone.
    const repository = t.app.get(KgExtractionRepository);
    await repository.replacePageTerms(created.body.id, termCounts('Lighthouse keepers polish brass lanterns.'));
    expect(await counts()).toBe(0);
    await author.post('/api/pages/count-keeper/restore').expect(201);
    expect(await counts()).toBeGreaterThan(3);
    await t.dataSource.query('DELETE FROM kg_page_terms WHERE page_id = $1', [created.body.id]);
    await repository.replacePageTerms(created.body.id, termCounts('Lighthouse keepers polish brass lanterns.'));
    expect(await counts()).toBeGreaterThan(3);
    await t.dataSource.query('DELETE FROM pages WHERE id = $1', [created.body.id]);
    expect(await counts()).toBe(0);
    await repository.replacePageTerms(created.body.id, termCounts('Lighthouse keepers polish brass lanterns.'));
    expect(await counts()).toBe(0);
    const keys: { name: string }[] = await t.dataSource.query(
      `SELECT conname AS name FROM pg_constraint WHERE conrelid = 'kg_page_terms'::regclass AND contype = 'f'`,
    );
    expect(keys).toEqual([]);
  });

  it('keeps the search totals (BM25’s page count and average length) in step with page_search_stats (migration 0037)', async () => {
    const author = await t.as('author');
    const drift = async () => {
      const [row] = await t.dataSource.query(
        `SELECT c.n::int AS n, c.avgdl::text AS avgdl, (SELECT sum(length)::int FROM page_search_totals) AS length,
                (SELECT count(*)::int FROM page_search_stats) AS "statsN", (SELECT greatest(avg(length), 1)::text FROM page_search_stats) AS "statsAvgdl",
                (SELECT sum(length)::int FROM page_search_stats) AS "statsLength"
           FROM (${SEARCH_CORPUS}) c`,
      );
      expect(row.n).toBe(row.statsN);
      expect(row.avgdl).toBe(row.statsAvgdl);
      return row.length - row.statsLength;
    };
    expect(await drift()).toBe(0);
    // Created at once (on PostgreSQL, in concurrent transactions), edited longer, renamed, trashed, restored, deleted.
    const titles = Array.from({ length: 12 }, (_, i) => `Totals Page ${i}`);
    await Promise.all(titles.map((title, i) => author.post('/api/pages').send({ title, body: 'word '.repeat(i + 1) }).expect(201)));
    expect(await drift()).toBe(0);
    const [first] = await t.dataSource.query(`SELECT length FROM page_search_stats s JOIN pages p ON p.id = s.page_id WHERE p.slug = 'totals-page-0'`);
    await author.put('/api/pages/totals-page-0').send({ body: 'many more words than it had before', baseVersion: 1 }).expect(200);
    const [after] = await t.dataSource.query(`SELECT length FROM page_search_stats s JOIN pages p ON p.id = s.page_id WHERE p.slug = 'totals-page-0'`);
    expect(after.length).toBeGreaterThan(first.length);
    expect(await drift()).toBe(0);
    await author.post('/api/pages/totals-page-1/rename').send({ title: 'Totals Page One' }).expect(201);
    await author.delete('/api/pages/totals-page-2').expect(204);
    expect(await drift()).toBe(0);
    await author.post('/api/pages/totals-page-2/restore').expect(201);
    await author.delete('/api/pages/totals-page-3').expect(204);
    await t.dataSource.query(`DELETE FROM pages WHERE slug = 'totals-page-4'`);
    expect(await drift()).toBe(0);
  });

  it('keeps a page’s search rows with one trigger, and an edit that keeps the page’s length leaves its stats row untouched (migration 0038)', async () => {
    const author = await t.as('author');
    const triggers: { name: string }[] = await t.dataSource.query(
      `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'pages'::regclass AND NOT tgisinternal AND tgname LIKE 'pages_search_%' AND tgname NOT LIKE 'pages_search_names_%'`,
    );
    expect(triggers.map((r) => r.name)).toEqual(['pages_search_rows']);
    const created = await author.post('/api/pages').send({ title: 'Length Keeper', body: 'Amber lamps glow softly.' }).expect(201);
    const stats = async () =>
      (await t.dataSource.query(`SELECT length, xmin::text AS xmin, xmax::text AS xmax FROM page_search_stats WHERE page_id = $1`, [created.body.id]))[0] as
        { length: number; xmin: string; xmax: string } | undefined;
    const before = (await stats())!;
    // Same number of words: the stats row is neither rewritten nor locked (an upsert's DO UPDATE locks it first).
    await author.put('/api/pages/length-keeper').send({ body: 'Amber lamps glow brightly.', baseVersion: created.body.version }).expect(200);
    expect(await stats()).toEqual(before);
    expect(before.xmax).toBe('0');
    // A longer text: the row follows, and the words' rows carry the stepped length as a fresh page's would.
    await author.put('/api/pages/length-keeper').send({ body: 'Amber lamps glow brightly over the quiet harbour tonight.', baseVersion: created.body.version + 1 }).expect(200);
    const longer = (await stats())!;
    expect(longer.length).toBeGreaterThan(before.length);
    const [{ differ }] = await t.dataSource.query(
      `SELECT count(*)::int AS differ FROM (
         (SELECT lexeme, tf_a, tf_b, tf_c, length FROM page_search_terms WHERE page_id = $1
          EXCEPT SELECT r.lexeme, r.tf_a, r.tf_b, r.tf_c, r.length FROM pages p, page_search_terms_rows(p.id, p.search) r WHERE p.id = $1)
         UNION ALL
         (SELECT r.lexeme, r.tf_a, r.tf_b, r.tf_c, r.length FROM pages p, page_search_terms_rows(p.id, p.search) r WHERE p.id = $1
          EXCEPT SELECT lexeme, tf_a, tf_b, tf_c, length FROM page_search_terms WHERE page_id = $1)) d`,
      [created.body.id],
    );
    expect(differ).toBe(0);
    // The trash takes both, a restore brings both back.
    await author.delete('/api/pages/length-keeper').expect(204);
    expect(await stats()).toBeUndefined();
    await author.post('/api/pages/length-keeper/restore').expect(201);
    expect((await stats())!.length).toBe(longer.length);
  });

  it("gives every mention its chunk's page, whatever a writer sends (migration 0029)", async () => {
    const author = await t.as('author');
    const [a, b] = await Promise.all(['Mention Home', 'Mention Elsewhere'].map(async (title) => (await author.post('/api/pages').send({ title, body: 'Text.' }).expect(201)).body.id as string));
    const chunkOf = async (pageId: string) => (await t.dataSource.query(
      `INSERT INTO kg_content_chunks (page_id, position, heading_path, text, content_hash) VALUES ($1, 0, '{}', 'Text.', md5('Text.')) RETURNING id`, [pageId],
    ))[0].id as string;
    const [chunkA, chunkB] = [await chunkOf(a), await chunkOf(b)];
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO kg_mentions (chunk_id, signature, surface, page_id) VALUES ($1, 'x', 'Text', $2) RETURNING id`, [chunkA, b],
    );
    const pageOf = async () => (await t.dataSource.query('SELECT page_id FROM kg_mentions WHERE id = $1', [id]))[0].page_id;
    expect(await pageOf()).toBe(a);
    await t.dataSource.query('UPDATE kg_mentions SET page_id = $2 WHERE id = $1', [id, b]);
    expect(await pageOf()).toBe(a);
    await t.dataSource.query('UPDATE kg_mentions SET chunk_id = $2 WHERE id = $1', [id, chunkB]);
    expect(await pageOf()).toBe(b);
  });

  it('rewrites only the search-term rows of the words an edit changed, and ends with the rows a fresh page would have', async () => {
    const author = await t.as('author');
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo'];
    const words = Array.from({ length: 120 }, (_, i) => `${syllables[i % 8]}${syllables[Math.floor(i / 8) % 8]}${syllables[Math.floor(i / 64)]}n`);
    const created = await author.post('/api/pages').send({ title: 'Edit In Place', body: `${words.join(' ')} otter.` }).expect(201);
    const rows = async () =>
      new Map(
        ((await t.dataSource.query('SELECT lexeme, xmin::text AS xmin, tf_a, tf_b, tf_c, length FROM page_search_terms WHERE page_id = $1', [created.body.id])) as { lexeme: string; xmin: string; tf_c: number; length: number }[]).map((r) => [r.lexeme, r]),
      );
    const before = await rows();
    // One word replaced, one repeated: the page's length stays on its step.
    await author.put('/api/pages/edit-in-place').send({ body: `${words.join(' ')} walrus ${words[0]}.`, baseVersion: 1 }).expect(200);
    const after = await rows();
    expect(after.has('otter')).toBe(false);
    expect(after.get('walrus')?.tf_c).toBe(1);
    expect(before.get(words[0])?.tf_c).toBe(1);
    expect(after.get(words[0])?.tf_c).toBe(2);
    expect(after.get(words[0])?.xmin).not.toBe(before.get(words[0])?.xmin);
    expect(after.get(words[1])?.length).toBe(before.get(words[1])?.length);
    const untouched = [...after.keys()].filter((lexeme) => !['walrus', words[0]].includes(lexeme) && before.has(lexeme));
    expect(untouched.length).toBeGreaterThan(100);
    expect(untouched.filter((lexeme) => after.get(lexeme)!.xmin !== before.get(lexeme)!.xmin)).toEqual([]);
    // The same rows as the page's text gives from scratch.
    const fresh: { lexeme: string; tf_a: number; tf_b: number; tf_c: number; length: number }[] = await t.dataSource.query(
      'SELECT r.lexeme, r.tf_a, r.tf_b, r.tf_c, r.length FROM pages p, page_search_terms_rows(p.id, p.search) r WHERE p.id = $1 ORDER BY r.lexeme',
      [created.body.id],
    );
    expect([...after.values()].map(({ xmin: _x, ...r }) => r).sort((a, b) => (a.lexeme < b.lexeme ? -1 : 1))).toEqual(fresh);
  });

  it('applies every migration file and rolls each back cleanly', async () => {
    const versions = readMigrations().map((m) => m.version);
    const applied = (await t.dataSource.query('SELECT version FROM schema_migrations ORDER BY version')).map((r: { version: string }) => r.version);
    expect(applied).toEqual(versions);
    const tablesBefore = await tableNames(t);
    const rolledBack = await rollback(t.dataSource, versions.length);
    expect(rolledBack).toEqual([...versions].reverse());
    expect((await tableNames(t)).filter((n) => n !== 'schema_migrations')).toEqual([]);
    expect(await migrate(t.dataSource)).toEqual(versions);
    expect(await tableNames(t)).toEqual(tablesBefore);
  });

  it('has pgvector and pg_trgm available', async () => {
    const rows: { extname: string }[] = await t.dataSource.query(`SELECT extname FROM pg_extension WHERE extname IN ('vector', 'pg_trgm') ORDER BY extname`);
    expect(rows.map((r) => r.extname)).toEqual(['pg_trgm', 'vector']);
  });
});

async function tableNames(t: TestApp): Promise<string[]> {
  const rows: { table_name: string }[] = await t.dataSource.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}
