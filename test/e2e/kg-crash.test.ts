// @module-tag slow (compiles the server and kills its processes): `npm run test:fast` leaves it out; docs/testing.md
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import supertest from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { ApiTokensService } from '../../src/auth/api-tokens.service.js';
import { UsersService } from '../../src/auth/users.service.js';
import { loadConfig, type KurateConfig } from '../../src/config/kurate-config.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { closedPort } from '../support/cli.js';
import { pgliteTemplate, realPostgresUrl, testRunId } from '../support/database.js';
import { ensureServerBuilt, killHard, startServer, stopServer, type ServerProcess } from '../support/server-process.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { freshTestConfig } from '../support/test-app.js';
import { waitFor } from '../support/lock-gate.js';
import { CONSISTENT, gadgetAnswer, gadgetPage, integrity } from './kg-test-helpers.js';

/**
 * Crash safety with a real `kill -9`: a worker killed while a job waits on the LLM (the fake Ollama hangs on the
 * job's second call) leaves no row of that job, and after a restart the job completes, with every row exactly once.
 * On PostgreSQL also a worker killed inside its write transaction (held on a row lock before its last statement).
 * On PostgreSQL the jobs' timeout (10 minutes) outlasts every wait here: a killed worker's job is handed back because
 * its lease ended with the worker's session (src/jobs/job-leases.ts), by another live worker or by the restarted one.
 * On PostgreSQL the web and the worker are two processes sharing the database (KURATE_ROLE=web and worker); on
 * the embedded database it is one process (KURATE_ROLE=all) on a data directory, killed and started again.
 */
const ON_POSTGRES = realPostgresUrl() !== null;
const PAGE = { title: 'Crash Test', slug: 'crash-test', sections: 3 };
const stop = stopServer;

/** The application in this process, on the same database or data directory (while no server process holds it). */
async function openApp(config: KurateConfig): Promise<NestExpressApplication> {
  const app = await createApp(config);
  await app.init();
  await app.get(PolicyReconciler).whenStartupRebuildDone();
  return app;
}

/** An admin with an API token, made through the services (as the test app does). */
async function adminToken(app: NestExpressApplication): Promise<string> {
  const origin = { actor: { userId: null, name: 'test', role: null }, ip: null };
  const user = await app.get(UsersService).create({ email: 'crash-admin@example.test', displayName: 'Crash Admin', password: 'crash-admin-password', role: 'admin' }, origin);
  const { token } = await app.get(ApiTokensService).create({ name: 'crash', scopes: ['admin'] }, { actor: { userId: user.id, name: 'Crash Admin', role: 'admin' }, ip: null });
  return token;
}

/** Pages and the policy that includes them: the extraction job is enqueued, and no worker runs in this process. */
async function prepare(app: NestExpressApplication): Promise<string> {
  const token = await adminToken(app);
  const http = supertest(app.getHttpServer());
  await http.post('/api/pages').set('Authorization', `Bearer ${token}`).send({ title: PAGE.title, body: gadgetPage('crash', { sections: PAGE.sections }) }).expect(201);
  await http.put('/admin/kg-policy/clusters/crash').set('Authorization', `Bearer ${token}`).send({ action: 'include', reason: 'crash test' }).expect(200);
  return token;
}

interface Rows {
  chunks: number;
  distinctChunks: number;
  proposals: number;
  distinctProposals: number;
  support: number;
  mentions: number;
  records: number;
  jobs: { state: string; retry_count: number }[];
}

async function rowsOf(dataSource: DataSource): Promise<Rows> {
  const [r] = await dataSource.query(
    `SELECT (SELECT count(*) FROM kg_content_chunks)::int AS chunks,
            (SELECT count(DISTINCT (page_id, content_hash)) FROM kg_content_chunks)::int AS "distinctChunks",
            (SELECT count(*) FROM kg_proposals)::int AS proposals,
            (SELECT count(DISTINCT (kind, signature)) FROM kg_proposals)::int AS "distinctProposals",
            (SELECT count(*) FROM kg_proposal_support)::int AS support,
            (SELECT count(*) FROM kg_mentions)::int AS mentions,
            (SELECT count(*) FROM kg_page_extractions)::int AS records`,
  );
  const jobs = await dataSource.query(`SELECT state::text AS state, retry_count FROM pgboss.job WHERE name = 'kg-extract-page' ORDER BY created_on`);
  return { ...r, jobs };
}

/** The fake LLM: the first call of the first run answers, the second hangs (the job is mid-flight); later, all answer. */
function scriptedOllama(): Promise<FakeOllama & { phase: { hang: boolean } }> {
  const phase = { hang: true };
  let calls = 0;
  return startFakeOllama({
    respond: (request) => {
      calls++;
      if (phase.hang && calls >= 2) return { kind: 'hang' };
      const user = (request.body?.messages ?? []).find((m: { role: string }) => m.role === 'user')?.content ?? '';
      return { kind: 'chat', content: gadgetAnswer(/<chunk>\n([\s\S]*)\n<\/chunk>/.exec(user)?.[1] ?? '') };
    },
  }).then((fake) => Object.assign(fake, { phase }));
}



const EXPECTED_AFTER = { chunks: PAGE.sections, distinctChunks: PAGE.sections, proposals: PAGE.sections, distinctProposals: PAGE.sections, support: PAGE.sections, mentions: PAGE.sections, records: 1 };

describe.runIf(ON_POSTGRES)('crash safety on PostgreSQL: web and worker processes, the worker killed with kill -9', () => {
  let fake: Awaited<ReturnType<typeof scriptedOllama>>;
  let config: KurateConfig;
  let drop: () => Promise<void>;
  let dataSource: DataSource;
  let token: string;
  let webPort: number;
  const servers: ServerProcess[] = [];
  const workerEnv = () => ({
    KURATE_EXTRACTOR: 'ollama', OLLAMA_HOST: fake.url, KURATE_LLM_TIMEOUT_MS: '600000', KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '600',
    KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1', KURATE_JOB_POLL_SECONDS: '0.5', DATABASE_URL: (config.database as { url: string }).url, KURATE_ROLE: 'worker',
  });

  beforeAll(async () => {
    const entry = await ensureServerBuilt();
    fake = await scriptedOllama();
    // Jobs expire after 10 minutes, as long as no test here waits: only a lease that ended hands a job back.
    const env = {
      KURATE_EXTRACTOR: 'ollama', OLLAMA_HOST: fake.url, KURATE_LLM_TIMEOUT_MS: '600000', KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '600',
      KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1', KURATE_JOB_POLL_SECONDS: '0.5',
    };
    ({ config, drop } = await freshTestConfig(env));
    const setup = await openApp(config);
    token = await prepare(setup);
    await setup.close();
    const url = (config.database as { url: string }).url;
    dataSource = await new DataSource({ type: 'postgres', url }).initialize();
    webPort = await closedPort();
    const workerPort = await closedPort();
    servers.push(await startServer(entry, { ...env, DATABASE_URL: url, KURATE_ROLE: 'web', PORT: String(webPort) }));
    // The web process serves HTTP and works no job.
    await supertest(`http://127.0.0.1:${webPort}`).get('/health').expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.calls).toBe(0);
    expect((await rowsOf(dataSource)).jobs).toEqual([{ state: 'created', retry_count: 0 }]);
    servers.push(await startServer(entry, { ...env, DATABASE_URL: url, KURATE_ROLE: 'worker', PORT: String(workerPort) }));
    // The worker serves no HTTP.
    await expect(fetch(`http://127.0.0.1:${workerPort}/health`)).rejects.toThrow();
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await stop(server);
    await dataSource?.destroy();
    await drop?.();
    await fake?.close();
  });

  it('leaves a live worker’s job alone, and when that worker is killed mid-flight another one takes the job over at once, without duplicates', async () => {
    await waitFor('the job’s second LLM call', () => fake.calls >= 2);
    // A second worker, while the first waits on the LLM: the job is active and its lease held, so it is not touched,
    // however long the second looks (its watch runs every 5 s for jobs active over 10 s).
    const second = await startServer(await ensureServerBuilt(), { ...workerEnv(), PORT: String(await closedPort()) });
    const [{ age }] = await dataSource.query(`SELECT extract(epoch FROM now() - started_on)::float8 AS age FROM pgboss.job WHERE name = 'kg-extract-page'`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 16 - age) * 1000 + 500));
    expect((await rowsOf(dataSource)).jobs).toEqual([{ state: 'active', retry_count: 0 }]);
    expect(fake.calls).toBe(2);

    await killHard(servers[1]);
    servers[1] = second;
    const afterKill = await rowsOf(dataSource);
    expect(afterKill).toEqual({ chunks: 0, distinctChunks: 0, proposals: 0, distinctProposals: 0, support: 0, mentions: 0, records: 0, jobs: [{ state: 'active', retry_count: 0 }] });

    fake.phase.hang = false;
    // The first worker's session ended with it, and its lease: the second worker hands the job back and runs it.
    await waitFor('the job to complete on the other worker', async () => (await rowsOf(dataSource)).jobs[0]?.state === 'completed', 30_000);
    const after = await rowsOf(dataSource);
    expect(after).toEqual({ ...EXPECTED_AFTER, jobs: [{ state: 'completed', retry_count: 1 }] });
    expect(await integrity(dataSource)).toEqual({ ...CONSISTENT, chunks: PAGE.sections });
    expect(second.output()).toMatch(/Handed back 1 job\(s\) whose worker stopped mid-job/);
  }, 90_000);

  it('leaves nothing of a write transaction the worker is killed in, and writes it whole after a restart', async () => {
    // Hold the page's extraction record: the next run's transaction writes chunks, mentions and proposals, then
    // waits on this row lock to update the record (its last statement), and the worker is killed right there.
    const blocker = dataSource.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    await blocker.query(`SELECT 1 FROM kg_page_extractions WHERE page_id = (SELECT id FROM pages WHERE slug = $1) FOR UPDATE`, [PAGE.slug]);
    const before = await rowsOf(dataSource);
    const chunkTexts = async () =>
      ((await dataSource.query(`SELECT text FROM kg_content_chunks ORDER BY position`)) as { text: string }[]).map((r) => r.text);
    const textsBefore = await chunkTexts();
    try {
      const web = supertest(`http://127.0.0.1:${webPort}`);
      const page = (await web.get(`/api/pages/${PAGE.slug}`).set('Authorization', `Bearer ${token}`).expect(200)).body;
      await web.put(`/api/pages/${PAGE.slug}`).set('Authorization', `Bearer ${token}`)
        .send({ body: page.body.replaceAll('Gadget2', 'Gadget9'), baseVersion: page.version }).expect(200);
      await waitFor('the write transaction to wait on the record', async () => {
        const waiting: unknown[] = await dataSource.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND state = 'active' AND query LIKE '%kg_page_extractions%' AND pid <> pg_backend_pid()`,
        );
        return waiting.length === 1;
      });
      await killHard(servers[1]);
    } finally {
      await blocker.rollbackTransaction();
      await blocker.release();
    }
    // The killed worker's transaction never commits: its backend ends when it finds the client gone.
    await waitFor('the killed worker’s transaction to end', async () =>
      ((await dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE '%kg_page_extractions%' AND state <> 'idle' AND pid <> pg_backend_pid()`)) as unknown[]).length === 0);
    const afterKill = await rowsOf(dataSource);
    expect({ ...afterKill, jobs: undefined }).toEqual({ ...before, jobs: undefined });
    expect(await chunkTexts()).toEqual(textsBefore);
    expect(afterKill.jobs.at(-1)).toEqual({ state: 'active', retry_count: 0 });

    servers[1] = await startServer(await ensureServerBuilt(), { ...workerEnv(), PORT: String(await closedPort()) });
    await waitFor('the edit’s job to complete after the restart', async () => (await rowsOf(dataSource)).jobs.at(-1)?.state === 'completed', 40_000);
    const after = await rowsOf(dataSource);
    // Part 2's chunk was replaced: Gadget2's proposal lost its support (retired) and Gadget9's came, each row once.
    expect(after).toMatchObject({ chunks: PAGE.sections, distinctChunks: PAGE.sections, proposals: PAGE.sections + 1, distinctProposals: PAGE.sections + 1, support: PAGE.sections, mentions: PAGE.sections, records: 1 });
    expect(after.jobs.at(-1)).toEqual({ state: 'completed', retry_count: 1 });
    const statuses = await dataSource.query(`SELECT name, status FROM kg_proposals ORDER BY name`);
    expect(statuses).toEqual([
      { name: 'Gadget1', status: 'pending' }, { name: 'Gadget2', status: 'retired' }, { name: 'Gadget3', status: 'pending' }, { name: 'Gadget9', status: 'pending' },
    ]);
  }, 90_000);

  it('a worker killed while the LLM stalls, the page changed while it is down: after the restart both jobs of the page run, each finishes once, and the rows are one consistent set', async () => {
    const web = supertest(`http://127.0.0.1:${webPort}`);
    const edit = async (from: string, to: string) => {
      const page = (await web.get(`/api/pages/${PAGE.slug}`).set('Authorization', `Bearer ${token}`).expect(200)).body;
      await web.put(`/api/pages/${PAGE.slug}`).set('Authorization', `Bearer ${token}`).send({ body: page.body.replaceAll(from, to), baseVersion: page.version }).expect(200);
    };
    const jobsBefore = (await rowsOf(dataSource)).jobs.length;
    fake.phase.hang = true;
    const callsBefore = fake.calls;
    await edit('Gadget3', 'Gadget5');
    await waitFor('the stalled LLM call', () => fake.calls > callsBefore);
    await killHard(servers[1]);
    // While no worker runs, the page changes again: a second job of the same page waits beside the abandoned one.
    await edit('Gadget5', 'Gadget6');
    expect((await rowsOf(dataSource)).jobs.slice(jobsBefore)).toEqual([{ state: 'active', retry_count: 0 }, { state: 'created', retry_count: 0 }]);

    fake.phase.hang = false;
    servers[1] = await startServer(await ensureServerBuilt(), { ...workerEnv(), PORT: String(await closedPort()) });
    await waitFor('both jobs to complete', async () => (await rowsOf(dataSource)).jobs.slice(jobsBefore).every((j) => j.state === 'completed'), 40_000);
    const jobs = (await rowsOf(dataSource)).jobs.slice(jobsBefore);
    // The abandoned job ran again once (handed back when its lease was seen to have ended); the new one once.
    expect(jobs).toEqual([{ state: 'completed', retry_count: 1 }, { state: 'completed', retry_count: 0 }]);
    expect(await integrity(dataSource)).toEqual({ ...CONSISTENT, chunks: PAGE.sections });
    const texts: { text: string }[] = await dataSource.query(`SELECT text FROM kg_content_chunks ORDER BY position`);
    expect(texts.some((c) => c.text.includes('Gadget6'))).toBe(true);
    expect(texts.some((c) => c.text.includes('Gadget3') || c.text.includes('Gadget5'))).toBe(false);
  }, 90_000);
});

describe.runIf(!ON_POSTGRES)('crash safety on the embedded database: one process on a data directory, killed with kill -9', () => {
  let fake: Awaited<ReturnType<typeof scriptedOllama>>;
  let dataDir: string;
  let token: string;
  let env: Record<string, string>;
  const configFor = () => loadConfig({ KURATE_LOG_LEVEL: 'error', ...env, KURATE_DATA_DIR: dataDir });
  const inspect = async () => {
    const app = await openApp(configFor());
    try {
      return await rowsOf(app.get(DataSource));
    } finally {
      await app.close();
    }
  };

  beforeAll(async () => {
    await ensureServerBuilt();
    fake = await scriptedOllama();
    dataDir = mkdtempSync(path.join(tmpdir(), 'kurate-crash-'));
    env = { KURATE_EXTRACTOR: 'ollama', OLLAMA_HOST: fake.url, KURATE_LLM_TIMEOUT_MS: '600000', KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1', KURATE_JOB_POLL_SECONDS: '0.5' };
    // The data directory starts from the migrated template (a fresh one would run initdb, ~4 s).
    const config = configFor();
    (config.database as { snapshot?: Blob }).snapshot = pgliteTemplate();
    const setup = await openApp(config);
    token = await prepare(setup);
    await setup.close();
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no row of a job killed mid-flight, and completes it after a restart without duplicates', async () => {
    const entry = await ensureServerBuilt();
    const port = await closedPort();
    const first = await startServer(entry, { ...env, KURATE_DATA_DIR: dataDir, PORT: String(port) });
    await waitFor('the job’s second LLM call', () => fake.calls >= 2);
    await killHard(first);

    // PGlite recovers its data directory like PostgreSQL after a crash (write-ahead log).
    expect(await inspect()).toEqual({ chunks: 0, distinctChunks: 0, proposals: 0, distinctProposals: 0, support: 0, mentions: 0, records: 0, jobs: [{ state: 'active', retry_count: 0 }] });

    fake.phase.hang = false;
    const second = await startServer(entry, { ...env, KURATE_DATA_DIR: dataDir, PORT: String(port) });
    const http = supertest(`http://127.0.0.1:${port}`);
    await waitFor('the job to complete after the restart', async () => {
      const status = (await http.get('/api/admin/kg/status').set('Authorization', `Bearer ${token}`)).body;
      return status.queues?.[0]?.completed === 1;
    }, 40_000);
    await stop(second);
    expect(await inspect()).toEqual({ ...EXPECTED_AFTER, jobs: [{ state: 'completed', retry_count: 1 }] });
    const app = await openApp(configFor());
    try {
      expect(await integrity(app.get(DataSource))).toEqual({ ...CONSISTENT, chunks: PAGE.sections });
    } finally {
      await app.close();
    }
    expect(testRunId()).toBeTruthy();
  }, 90_000);
});
