import type supertest from 'supertest';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONSISTENT, gadgetPage, integrity, jobStates, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * Two extraction runs of one page at the same time must leave the page's rows as one run would: each chunk position
 * once, the extraction record's chunk_count equal to the rows, each proposal's support_count equal to its support.
 *
 * On PostgreSQL the overlap is made certain: the test holds the page's row (FOR UPDATE) while the runs reach their
 * write transaction, waits until both are queued on their locks, then lets go, so the second run's write starts
 * while the first one's is still open. On the embedded database the same scenarios run, but its single connection
 * serialises every transaction, so the runs cannot overlap there (the gate is a no-op); the two-worker scenario needs
 * two processes sharing one server and is skipped there.
 */
if (!ON_POSTGRES) {
  console.warn('kg-overlap: on the embedded database the overlapping runs are serialised by its single connection; the lock gate and the two-worker case run on PostgreSQL only (DATABASE_URL).');
}


/**
 * Holds a page's row FOR UPDATE from a connection of the test's own (PostgreSQL only): an extraction run's write
 * transaction locks that row, so every run queues there until `release`.
 */
function holdPage(dataSource: DataSource, slug: string) {
  return holdLock(dataSource, 'SELECT 1 FROM pages WHERE slug = $1 FOR UPDATE', [slug]);
}

const idOf = async (t: TestApp, slug: string): Promise<string> => (await t.dataSource.query('SELECT id FROM pages WHERE slug = $1', [slug]))[0].id;

describe('overlapping extraction runs of one page', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let worker: JobWorker;

  const create = (title: string, sections: number) => admin.post('/api/pages').send({ title, body: gadgetPage('overlap', { sections }) }).expect(201);
  const change = async (slug: string, from: string, to: string) => {
    const page = (await admin.get(`/api/pages/${slug}`).expect(200)).body;
    await admin.put(`/api/pages/${slug}`).send({ body: page.body.replaceAll(from, to), baseVersion: page.version }).expect(200);
  };

  beforeAll(async () => {
    // Jobs expire after 2 s (the retry scenario); the worker starts only when a test has set its stage.
    t = await startTestApp({ env: { KURATE_JOB_POLL_SECONDS: '0.5', KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1', KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '2' } });
    admin = await t.as('admin');
    // The cluster needs a page before it can have a policy (this one opts out: it makes no job).
    await admin.post('/api/pages').send({ title: 'Overlap Seed', body: '---\ncluster: overlap\nkg_include: false\n---\nA page kept out of the graph.\n' }).expect(201);
    await setPolicy(admin, 'overlap', 'include');
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    worker = t.app.get(JobWorker);
  });
  afterAll(() => t?.close());

  it('create then change at once: two jobs of one page, both run together, leave each chunk once', async () => {
    await create('Overlap One', 4);
    await change('overlap-one', 'Gadget2', 'Gadget7');
    expect(await jobStates(t)).toEqual({ created: 2 });
    const gate = await holdPage(t.dataSource, 'overlap-one');
    try {
      await startWorker(t);
      if (ON_POSTGRES) await waitFor('both runs to queue on the page’s locks', async () => (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    await waitForJobs(t);
    expect(await jobStates(t)).toEqual({ completed: 2 });
    expect(await integrity(t.dataSource)).toEqual({ ...CONSISTENT, chunks: 4 });
    // The rows are the changed text's: part 2 names Gadget7 now, nothing names Gadget2.
    const texts: { text: string }[] = await t.dataSource.query(`SELECT text FROM kg_content_chunks ORDER BY position`);
    expect(texts.filter((c) => c.text.includes('Gadget7'))).toHaveLength(1);
    expect(texts.filter((c) => c.text.includes('Gadget2'))).toHaveLength(0);
  }, 120_000);

  it('the retry of an expired job runs while the first run still writes: one set of rows', async () => {
    await worker.stop();
    await create('Overlap Two', 3);
    const gate = await holdPage(t.dataSource, 'overlap-two');
    try {
      await startWorker(t);
      if (ON_POSTGRES) {
        // The first run waits on the page; its job expires (2 s) and pg-boss hands it out again, to a second run.
        await waitFor('the first run to queue on the page', async () => (await gate.waiting()) >= 1);
        await waitFor('the expired job’s second run to queue too', async () => (await gate.waiting()) >= 2);
        const [job] = await t.dataSource.query(`SELECT retry_count FROM pgboss.job WHERE name = 'kg-extract-page' AND data ->> 'pageId' = $1`, [await idOf(t, 'overlap-two')]);
        expect(job.retry_count).toBe(1);
      }
    } finally {
      await gate.release();
    }
    await waitForJobs(t);
    await waitFor('no run in flight', async () => worker.runningCount('kg-extract-page') === 0);
    expect(await integrity(t.dataSource)).toEqual({ ...CONSISTENT, chunks: 4 + 3 });
    expect(await t.dataSource.query(`SELECT chunk_count FROM kg_page_extractions WHERE page_id = $1`, [await idOf(t, 'overlap-two')])).toEqual([{ chunk_count: 3 }]);
  }, 120_000);

  it('ten pages created and changed at once with the worker running: no page doubles its chunks', async () => {
    const before = (await integrity(t.dataSource)).chunks;
    await Promise.all(
      Array.from({ length: 10 }, async (_, k) => {
        await create(`Burst ${k}`, 3);
        await change(`burst-${k}`, 'Gadget3', 'Gadget8');
      }),
    );
    await waitForJobs(t);
    expect(await integrity(t.dataSource)).toEqual({ ...CONSISTENT, chunks: before + 30 });
  }, 150_000);

  describe.skipIf(!ON_POSTGRES)('two workers (two applications on one PostgreSQL; skipped on the embedded database: it belongs to one process)', () => {
    it('a job whose worker stalls is taken over by the other worker while the first still writes: one set of rows', async () => {
      await worker.stop();
      // The second worker polls only at its start (60 s after), so the job's retry goes to the first one.
      const slow = Object.assign(Object.create(Object.getPrototypeOf(t.config) as object) as typeof t.config, t.config, {
        extraction: { ...t.config.extraction, pollSeconds: 60 },
      });
      const second = await createApp(slow);
      await second.init();
      try {
        await create('Overlap Three', 5);
        const gate = await holdPage(t.dataSource, 'overlap-three');
        try {
          await second.get(PolicyReconciler).whenStartupRebuildDone();
          await second.get(JobWorker).start();
          await waitFor('the second worker’s run to queue on the page', async () => (await gate.waiting()) >= 1);
          expect(second.get(JobWorker).runningCount('kg-extract-page')).toBe(1);
          // Its job expires (2 s) and the first worker takes the retry.
          await startWorker(t);
          await waitFor('the first worker’s run to queue too', async () => (await gate.waiting()) >= 2);
          expect(worker.runningCount('kg-extract-page')).toBe(1);
        } finally {
          await gate.release();
        }
        await waitForJobs(t);
        await waitFor('the second worker to finish', async () => second.get(JobWorker).runningCount('kg-extract-page') === 0);
        const pageId = await idOf(t, 'overlap-three');
        expect(await integrity(t.dataSource)).toMatchObject(CONSISTENT);
        expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_content_chunks WHERE page_id = $1`, [pageId])).toEqual([{ n: 5 }]);
      } finally {
        await second.close();
      }
    }, 150_000);
  });
});
