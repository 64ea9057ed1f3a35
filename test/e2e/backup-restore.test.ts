// @module-tag slow (three whole apps, two of them on embedded databases migrated from scratch when the suite runs on PostgreSQL): docs/testing.md
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type supertest from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../../src/app.setup.js';
import { BackupError } from '../../src/backup/backup-archive.js';
import { BackupService, RestoreService } from '../../src/backup/backup.service.js';
import { BACKUP_TABLES, DERIVED_TABLES, INSTANCE_TABLES } from '../../src/backup/backup-tables.js';
import { BackupRepository } from '../../src/backup/backup.repository.js';
import { loadConfig, type KurateConfig } from '../../src/config/kurate-config.js';
import { KgConsistencyService } from '../../src/consistency/kg-consistency.service.js';
import { EMBED_NODES_QUEUE, EXTRACT_PAGE_QUEUE, REEMBED_QUEUE } from '../../src/kg/kg-extraction-queue.service.js';
import { PagesService } from '../../src/pages/pages.service.js';
import { pgliteTemplate, pgliteTemplatePath, realPostgresUrl } from '../support/database.js';
import { freshTestConfig, startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const KG = '/admin/knowledge-graph';
const BACKUP_ACTIONS = ['backup.create', 'backup.restore'];

/** Every row of a table, as JSON text in key order, without the columns a restore rebuilds; timestamps in UTC. */
async function rowsOf(db: DataSource, table: string, omit: string[] = []): Promise<string[]> {
  const spec = BACKUP_TABLES.find((t) => t.name === table)!;
  const without = [...(spec.derivedColumns ?? []), ...omit];
  return db.transaction(async (tx) => {
    await tx.query(`SET LOCAL TIME ZONE 'UTC'`);
    const rows: { row: string }[] = await tx.query(
      `SELECT (to_jsonb(t) - $1::text[])::text AS row FROM ${table} t
        WHERE $2::text <> 'audit_log' OR NOT (to_jsonb(t) ->> 'action' = ANY($3::text[]))
        ORDER BY ${spec.orderBy}`,
      [without, table, BACKUP_ACTIONS],
    );
    return rows.map((r) => r.row);
  });
}

async function query<T>(db: DataSource, sql: string, params: unknown[] = []): Promise<T[]> {
  return db.query(sql, params);
}

/** What a restore rebuilds rather than loads: the Page Graph, search, the policy's decisions, word statistics. */
async function derived(db: DataSource) {
  return {
    links: await query(db, 'SELECT from_page_id, kind, target, target_key, heading, position, resolved_page_id, resolved_attachment_id FROM page_links ORDER BY from_page_id, position'),
    excluded: await query(db, 'SELECT page_id, reason, policy_cluster FROM kg_excluded_pages ORDER BY page_id'),
    terms: await query(db, 'SELECT page_id, term, lower, capitalised FROM kg_page_terms ORDER BY page_id, term'),
    searchTerms: await query(db, 'SELECT page_id, lexeme, tf_a, tf_b, tf_c FROM page_search_terms ORDER BY page_id, lexeme'),
    pageSearch: await query(db, 'SELECT id, search::text FROM pages ORDER BY id'),
    chunkSearch: await query(db, 'SELECT id, search::text FROM kg_content_chunks ORDER BY id'),
    mentionContext: await query(db, 'SELECT id, context::text FROM kg_mentions ORDER BY id'),
  };
}

/** Open extraction jobs, and whether a restore's rebuild is still owed. */
async function leftOwed(db: DataSource): Promise<{ owed: number; jobs: number }> {
  const [row] = await query<{ owed: number; jobs: number }>(db, `SELECT (SELECT count(*)::int FROM restore_rebuild_owed) AS owed,
    (SELECT count(*)::int FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')) AS jobs`, [EXTRACT_PAGE_QUEUE]);
  return row;
}

/** A restore killed right after its load committed: its first rebuild step fails, as a kill -9 there would leave it. */
async function restoreKilledAfterLoad(app: NestExpressApplication, file: string): Promise<void> {
  const cut = vi.spyOn(app.get(PagesService), 'rebuildIndex').mockRejectedValueOnce(new Error('killed after the load committed'));
  try {
    await expect(app.get(RestoreService).restore(file)).rejects.toThrow(/killed after the load committed/);
  } finally {
    cut.mockRestore();
  }
  // What the audit found left behind: no links, no search, every page excluded, no extraction.
  const db = app.get(DataSource);
  const [left] = await query<Record<string, number>>(db, `SELECT (SELECT count(*)::int FROM page_links) AS links, (SELECT count(*)::int FROM page_search_terms) AS terms,
    (SELECT count(*)::int FROM pages WHERE search IS NOT NULL) AS searchable, (SELECT count(*)::int FROM kg_content_chunks WHERE search IS NOT NULL) AS chunks,
    (SELECT count(*)::int FROM kg_excluded_pages) - (SELECT count(*)::int FROM pages) AS included, (SELECT count(*)::int FROM restore_rebuild_owed) AS owed`);
  expect(left).toEqual({ links: 0, terms: 0, searchable: 0, chunks: 0, included: 0, owed: 1 });
  expect((await leftOwed(db)).jobs).toBe(0);
}

describe(`backup and restore: embedded → ${realPostgresUrl() ? 'PostgreSQL' : 'embedded (set DATABASE_URL for the PostgreSQL leg)'} → embedded`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kurate-backup-'));
  const first = path.join(dir, 'first.kbk');
  const second = path.join(dir, 'second.kbk');
  let source: TestApp;
  let middle: TestApp;
  let last: TestApp;
  let admin: supertest.Agent;
  let author: supertest.Agent;
  let authorToken: string;

  beforeAll(async () => {
    [source, middle, last] = await Promise.all([
      startTestApp({ database: 'embedded' }),
      startTestApp(),
      startTestApp({ database: 'embedded' }),
    ]);
    admin = await source.as('admin', { name: 'Grace' });
    author = await source.as('author', { name: 'Ada' });
    authorToken = (await source.user('author', { name: 'Ada' })).token;
    const create = async (title: string, body: string) => (await author.post('/api/pages').send({ title, body }).expect(201)).body as { slug: string; version: number };
    await create('PostgreSQL', '---\ncluster: docs\ntags: [database]\n---\n# PostgreSQL\n\nPostgreSQL is a database made by the PostgreSQL Global Development Group. See [[Redis]] and [[Kubernetes]].\n');
    const redis = await create('Redis', '---\ncluster: docs\n---\nRedis is a cache written by Salvatore Sanfilippo. It works with [[PostgreSQL]].\n');
    await author.put(`/api/pages/${redis.slug}`).send({ body: '---\ncluster: docs\naliases: [Remote Dictionary]\n---\nRedis is a cache written by Salvatore Sanfilippo in Sicily. It works with [[PostgreSQL]].\n', baseVersion: redis.version, message: 'where' }).expect(200);
    await create('Kubernetes', '---\ncluster: docs\n---\nKubernetes runs [[PostgreSQL]] and [[Redis]] in containers. Google designed Kubernetes.\n');
    const diary = await create('Diary', '---\ncluster: private\n---\nMet Linus Torvalds in Helsinki. [[PostgreSQL]] again.\n');
    await author.post(`/api/pages/${diary.slug}/rename`).send({ title: 'Private Diary' }).expect(201);
    // A file (attachments, migration 0015) that a page embeds: its bytes, catalogue row and reference are backed up.
    await author.post('/api/attachments').attach('file', Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex'), 'diagram.png').field('path', 'img/diagram.png').expect(201);
    await create('Architecture', 'The picture: ![[diagram.png]]\n');
    const scratch = await create('Scratch', 'Throwaway notes about [[Nothing]].\n');
    await author.delete(`/api/pages/${scratch.slug}`).expect(204);
    await setPolicy(admin, 'docs', 'include');
    await startWorker(source);
    await waitForJobs(source);
    await waitForJobs(source, { queue: EMBED_NODES_QUEUE });

    // The review's history: an approval, a rejection, and an undo of that rejection.
    // Read the queue again after each action: approving an edge approves its pending endpoints too.
    const pending = async () => (await admin.get(`${KG}/proposals?limit=50`).expect(200)).body.items as { id: string; name: string }[];
    expect((await pending()).length).toBeGreaterThanOrEqual(3);
    await admin.post(`${KG}/proposals/${(await pending())[0].id}/approve`).send({ note: 'yes' }).expect(200);
    const left = await pending();
    expect(left.length).toBeGreaterThanOrEqual(2);
    const rejected = await admin.post(`${KG}/proposals/${left[0].id}/reject`).send({ reason: 'noise' }).expect(200);
    await admin.post(`${KG}/proposals/${left[1].id}/reject`).send({ reason: 'kept rejected' }).expect(200);
    await admin.post(`${KG}/audit/${rejected.body.actionId}/undo`).send({}).expect(200);
    await waitForJobs(source, { queue: EMBED_NODES_QUEUE });
  });

  afterAll(async () => {
    await Promise.all([source?.close(), middle?.close(), last?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('declares every table of the schema as backed up, rebuilt or per instance, once', async () => {
    const declared = [...BACKUP_TABLES.map((t) => t.name), ...DERIVED_TABLES.map((t) => t.name), ...INSTANCE_TABLES.map((t) => t.name)];
    expect(new Set(declared).size).toBe(declared.length);
    expect([...declared].sort()).toEqual(await source.app.get(BackupRepository).schemaTables());
  });

  it('writes one archive with the schema version, row counts and a checksum; audited', async () => {
    const summary = await source.app.get(BackupService).write(first);
    const lines = gunzipSync(readFileSync(first)).toString('utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0]);
    expect(header).toMatchObject({ format: 'kurate-backup', formatVersion: 1, database: 'embedded' });
    expect(header.schemaVersion).toEqual((await query<{ version: string }>(source.dataSource, 'SELECT version FROM schema_migrations ORDER BY 1')).map((r) => r.version));
    expect(lines.at(-1)).toBe(`#sha256 ${summary.checksum}`);
    const rows = Object.fromEntries(summary.tables.map((t) => [t.name, t.rows]));
    expect(rows.page_revisions).toBe(8);
    expect([rows.attachments, rows.attachment_blobs, rows.page_file_refs]).toEqual([1, 1, 1]);
    expect(rows.page_redirects).toBe(1);
    expect(rows.kg_review_actions).toBeGreaterThanOrEqual(3);
    for (const table of ['users', 'api_tokens', 'pages', 'kg_content_chunks', 'kg_proposals', 'kg_nodes', 'kg_mentions', 'kg_rejections', 'kg_review_journal', 'kg_cluster_policy', 'kg_policy_audit', 'audit_log', 'server_secrets']) {
      expect(rows[table], table).toBeGreaterThan(0);
    }
    // Derived columns are not in it: neither the pages' search vectors nor the chunks' vectors.
    const section = (table: string) => {
      const start = lines.findIndex((l) => l.startsWith(`#table ${table} `));
      return lines.slice(start + 1, start + 1 + rows[table]).map((l) => Object.keys(JSON.parse(l)));
    };
    expect(section('pages').every((keys) => keys.includes('body') && !keys.includes('search'))).toBe(true);
    expect(section('kg_content_chunks').every((keys) => keys.includes('text') && !keys.some((k) => k.startsWith('embedding') || k === 'search'))).toBe(true);
    const audit = await query<{ target: string; details: { checksum: string } }>(source.dataSource, `SELECT target, details FROM audit_log WHERE action = 'backup.create'`);
    expect(audit).toEqual([{ target: 'first.kbk', details: expect.objectContaining({ checksum: summary.checksum }) }]);
  });

  it('refuses a damaged, cut-short or foreign file, and a restore into an instance that is not empty, changing nothing', async () => {
    const restoreInto = (file: string, force = false) => source.app.get(RestoreService).restore(file, { force });
    const text = gunzipSync(readFileSync(first)).toString('utf8');
    const changed = path.join(dir, 'changed.kbk');
    writeFileSync(changed, gzipSync(text.replace('Salvatore', 'Salvador')));
    const cut = path.join(dir, 'cut.kbk');
    writeFileSync(cut, gzipSync(text.slice(0, text.lastIndexOf('#sha256'))));
    const foreign = path.join(dir, 'foreign.kbk');
    writeFileSync(foreign, gzipSync('{"hello":"world"}\n'));
    const pagesBefore = await rowsOf(source.dataSource, 'pages');
    // The source is not empty: refused before the file is even read past its header.
    await expect(restoreInto(first)).rejects.toThrow(/not empty: users \(\d+ rows\).*--force/);
    await expect(middle.app.get(RestoreService).restore(changed)).rejects.toThrow(/does not match its checksum/);
    await expect(middle.app.get(RestoreService).restore(cut)).rejects.toThrow(/ends before its checksum line/);
    await expect(middle.app.get(RestoreService).restore(foreign)).rejects.toThrow(BackupError);
    await expect(middle.app.get(RestoreService).restore(path.join(dir, 'missing.kbk'))).rejects.toThrow(/There is no file/);
    expect(await rowsOf(source.dataSource, 'pages')).toEqual(pagesBefore);
    expect(await query(middle.dataSource, 'SELECT id FROM pages')).toEqual([]);
  });

  it('refuses an archive of another schema version, saying what to do', async () => {
    const text = gunzipSync(readFileSync(first)).toString('utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n')));
    const older = path.join(dir, 'older.kbk');
    writeFileSync(older, gzipSync(`${JSON.stringify({ ...header, schemaVersion: header.schemaVersion.slice(0, -1) })}\n#sha256 x\n`));
    await expect(middle.app.get(RestoreService).restore(older)).rejects.toThrow(/older schema .*Restore it with the Kurate version that wrote it/);
    const newer = path.join(dir, 'newer.kbk');
    writeFileSync(newer, gzipSync(`${JSON.stringify({ ...header, schemaVersion: [...header.schemaVersion, '9999_future'] })}\n#sha256 x\n`));
    await expect(middle.app.get(RestoreService).restore(newer)).rejects.toThrow(/newer Kurate \(schema 9999_future/);
  });

  it(`restores into an empty ${realPostgresUrl() ? 'PostgreSQL' : 'embedded'} instance: every table row for row, derived data rebuilt`, async () => {
    const summary = await middle.app.get(RestoreService).restore(first);
    expect(summary.rebuilt.pages).toBe(6);
    for (const table of BACKUP_TABLES) expect(await rowsOf(middle.dataSource, table.name), table.name).toEqual(await rowsOf(source.dataSource, table.name));
    const restoreAudit = await query<{ actor_name: string; details: { forced: boolean } }>(middle.dataSource, `SELECT actor_name, details FROM audit_log WHERE action = 'backup.restore'`);
    expect(restoreAudit).toEqual([{ actor_name: 'kurate backup', details: expect.objectContaining({ forced: false, from: 'embedded' }) }]);

    // Rebuilt at once: the Page Graph, search, the policy's decisions, word statistics.
    const before = await derived(source.dataSource);
    expect(before.links.length).toBeGreaterThan(3);
    expect(await derived(middle.dataSource)).toEqual(before);
    expect(await query(middle.dataSource, 'SELECT * FROM restore_rebuild_owed')).toEqual([]);
    const http = middle.http;
    expect(before.links.some((l) => (l as { resolved_attachment_id: string | null }).resolved_attachment_id !== null)).toBe(true);
    expect((await http.get('/files/img/diagram.png').expect(200)).headers['content-type']).toBe('image/png');
    expect((await http.get('/api/search?q=Sanfilippo').expect(200)).body.hits.map((i: { slug: string }) => i.slug)).toEqual(['redis']);
    expect((await http.get('/api/pages/postgresql/backlinks').expect(200)).body.items.map((b: { slug: string }) => b.slug).sort()).toEqual(['kubernetes', 'private-diary', 'redis']);
    const moved = await http.get('/page/diary').redirects(0);
    expect([moved.status, moved.headers.location]).toEqual([301, '/page/private-diary']);
    expect((await http.get('/api/trash').set('Authorization', `Bearer ${authorToken}`).expect(200)).body.items.map((p: { slug: string }) => p.slug)).toEqual(['scratch']);
    // Accounts: the author's token still works; sessions are not restored.
    expect((await http.get('/api/tokens').set('Authorization', `Bearer ${authorToken}`).expect(200)).body.items.length).toBeGreaterThan(0);
    expect(await query(middle.dataSource, 'SELECT sid FROM user_sessions')).toEqual([]);

    // Vectors come back from the jobs the restore queued (no extraction call: the chunks are kept), equal to the source's.
    await startWorker(middle);
    await waitForJobs(middle);
    await waitForJobs(middle, { queue: REEMBED_QUEUE });
    const vectors = async (t: TestApp) => ({
      chunks: await query(t.dataSource, 'SELECT id, embedding_model, embedding::text FROM kg_content_chunks ORDER BY id'),
      nodes: await query(t.dataSource, 'SELECT node_id, model, embedding::text FROM kg_node_embeddings ORDER BY node_id, model'),
      extracted: await query(t.dataSource, 'SELECT page_id, source_hash, chunk_count, embedding_model FROM kg_page_extractions ORDER BY page_id'),
    });
    expect(await vectors(middle)).toEqual(await vectors(source));
    expect(await query(middle.dataSource, 'SELECT sum(extraction_calls)::int AS calls FROM kg_page_extractions')).toEqual([{ calls: 0 }]);
    // What the restore's jobs did to the knowledge graph: nothing but give the chunks their vectors (which moves updated_at).
    for (const table of BACKUP_TABLES.filter((t) => t.name.startsWith('kg_'))) {
      const omit = table.name === 'kg_content_chunks' ? ['updated_at'] : [];
      expect(await rowsOf(middle.dataSource, table.name, omit), table.name).toEqual(await rowsOf(source.dataSource, table.name, omit));
    }
  });

  it('backs the restored instance up and restores that into an embedded one: the same rows as the first', async () => {
    await middle.app.get(BackupService).write(second);
    await last.app.get(RestoreService).restore(second);
    for (const table of BACKUP_TABLES) {
      expect(await rowsOf(last.dataSource, table.name), table.name).toEqual(await rowsOf(middle.dataSource, table.name));
      const omit = table.name === 'kg_content_chunks' ? ['updated_at'] : [];
      expect(await rowsOf(last.dataSource, table.name, omit), table.name).toEqual(await rowsOf(source.dataSource, table.name, omit));
    }
    // A backup's own audit row is written after its snapshot: each archive holds the restores before it.
    expect((await query<{ action: string }>(last.dataSource, `SELECT action FROM audit_log WHERE action LIKE 'backup.%' ORDER BY id`)).map((r) => r.action)).toEqual([
      'backup.restore', 'backup.restore',
    ]);
    // New rows continue after the restored ones.
    const res = await last.http.post('/api/pages').set('Authorization', `Bearer ${authorToken}`).send({ title: 'After', body: 'Written after the restore.' }).expect(201);
    expect(res.body.version).toBe(1);
  });

  it('replaces a non-empty instance only with force', async () => {
    await expect(last.app.get(RestoreService).restore(first)).rejects.toThrow(/not empty/);
    await last.app.get(RestoreService).restore(first, { force: true });
    for (const table of BACKUP_TABLES) expect(await rowsOf(last.dataSource, table.name), table.name).toEqual(await rowsOf(source.dataSource, table.name));
    expect(await query(last.dataSource, `SELECT slug FROM pages WHERE slug = 'after'`)).toEqual([]);
    const audit = await query<{ details: { forced: boolean } }>(last.dataSource, `SELECT details FROM audit_log WHERE action = 'backup.restore' ORDER BY id DESC LIMIT 1`);
    expect(audit[0].details.forced).toBe(true);
  });

  it('finishes a restore killed after its load committed when it is run again, without loading again', async () => {
    const t = await startTestApp();
    try {
      await restoreKilledAfterLoad(t.app, first);
      const pagesBefore = await rowsOf(t.dataSource, 'pages', ['updated_at']);
      // The consistency checker names it (this app started before the load: it does not finish it).
      const owed = (await t.app.get(KgConsistencyService).check()).invariants.find((i) => i.name === 'restore_finished');
      expect(owed).toMatchObject({ count: 1, examples: [expect.stringMatching(/^the restore of .*\.kbk \(taken .*\) loaded at .* and never finished its rebuild/)] });
      const summary = await t.app.get(RestoreService).restore(first);
      expect(summary.interruptedAt).toEqual(expect.any(String));
      expect(summary.rebuilt.pages).toBe(6);
      expect(summary.rebuilt.extractionJobs).toBeGreaterThan(0);
      expect(await rowsOf(t.dataSource, 'pages', ['updated_at'])).toEqual(pagesBefore);
      expect(await derived(t.dataSource)).toEqual(await derived(source.dataSource));
      expect(await leftOwed(t.dataSource)).toEqual({ owed: 0, jobs: summary.rebuilt.extractionJobs });
      expect((await t.app.get(KgConsistencyService).check()).invariants.find((i) => i.name === 'restore_finished')).toMatchObject({ count: 0, ok: true });
      expect(await query(t.dataSource, `SELECT count(*)::int AS n FROM audit_log WHERE action = 'backup.restore'`)).toEqual([{ n: 1 }]);
      // Finished: the next run is refused again, as for any instance that is not empty.
      await expect(t.app.get(RestoreService).restore(first)).rejects.toThrow(/not empty/);
    } finally {
      await t.close();
    }
  });

  it('finishes a restore killed after its load committed when a server starts on the database, before it serves', async () => {
    // The same database opened twice: PostgreSQL, or an embedded one in a data folder.
    let config: KurateConfig;
    let drop = async () => {};
    if (realPostgresUrl()) {
      ({ config, drop } = await freshTestConfig());
    } else {
      config = loadConfig({
        KURATE_LOG_LEVEL: 'error', KURATE_BUILTIN_EXTRACTOR_THREADS: '0', KURATE_RENDER_THREADS: '0', KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1',
        KURATE_ATTACHMENTS_STORE: 'database', KURATE_DATA_DIR: path.join(dir, 'interrupted-data'),
      });
      if (config.database.kind === 'embedded' && existsSync(pgliteTemplatePath())) config.database.snapshot = pgliteTemplate();
    }
    try {
      const killed = await createApp(config);
      await killed.init();
      try {
        await restoreKilledAfterLoad(killed, first);
      } finally {
        await killed.close();
      }
      // The data folder exists now: opened as it is, not from the template again.
      if (config.database.kind === 'embedded') delete (config.database as { snapshot?: Blob }).snapshot;
      const restarted = await createApp(config);
      await restarted.init();
      try {
        const db = restarted.get(DataSource);
        expect(await derived(db)).toEqual(await derived(source.dataSource));
        const left = await leftOwed(db);
        expect(left.owed).toBe(0);
        expect(left.jobs).toBeGreaterThan(0);
        const http = (await import('supertest')).default(restarted.getHttpServer());
        expect((await http.get('/api/search?q=Sanfilippo').expect(200)).body.hits.map((i: { slug: string }) => i.slug)).toEqual(['redis']);
        expect((await http.get('/api/pages/postgresql/backlinks').expect(200)).body.items.map((b: { slug: string }) => b.slug).sort()).toEqual(['kubernetes', 'private-diary', 'redis']);
      } finally {
        await restarted.close();
      }
    } finally {
      await drop();
    }
  });
});
