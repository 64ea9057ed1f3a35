import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgExtractionQueue } from '../../src/kg/kg-extraction-queue.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { openJobs, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * Including a cluster enqueues its pages' extraction once the policy change has committed. A process killed between
 * the two (the crash audit killed the server 60 ms after the request) left the pages included, never extracted and
 * waiting for no job, through any number of restarts. A worker's start now enqueues them.
 */
describe('included pages never extracted get their job at a worker start', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const extracted = async (slugs: string[]) =>
    ((await t.dataSource.query('SELECT p.slug FROM kg_page_extractions r JOIN pages p ON p.id = r.page_id WHERE p.slug = ANY($1::text[]) ORDER BY p.slug', [slugs])) as { slug: string }[]).map((r) => r.slug);

  it('enqueues them once, leaving failed pages to an admin and pages with a job to it', async () => {
    const admin = await t.as('admin');
    const slugs: string[] = [];
    for (const name of ['Anvil', 'Bellows', 'Crucible', 'Tongs']) {
      const res = await admin.post('/api/pages').send({ title: name, body: `---\ncluster: forge\n---\nThe ${name} is a tool of the [[Forge]]. Smiths use the ${name} every day.` }).expect(201);
      slugs.push(res.body.slug as string);
    }
    await setPolicy(admin, 'forge', 'include');
    // As the process that committed the policy left it when killed: no job for them (the worker has not run yet).
    await t.dataSource.query(`DELETE FROM pgboss.job WHERE name = 'kg-extract-page'`);
    expect(await openJobs(t)).toBe(0);
    // One failed for good (it waits for an admin's retry), one has a job of its own already.
    const [failed, queued] = ((await t.dataSource.query('SELECT id FROM pages WHERE slug = ANY($1::text[]) ORDER BY slug', [['bellows', 'crucible']])) as { id: string }[]).map((r) => r.id);
    await t.dataSource.query(`INSERT INTO kg_extraction_failures (page_id, job_id, source_hash, backend, model, reason, attempts) VALUES ($1, gen_random_uuid(), 'x', 'builtin', 'm', 'gave up', 3)`, [failed]);
    await t.dataSource.query(`INSERT INTO pgboss.job (name, data, singleton_key) VALUES ('kg-extract-page', jsonb_build_object('pageId', $1::text), 'held')`, [queued]);

    const queue = t.app.get(KgExtractionQueue);
    expect(await queue.enqueueNeverExtracted()).toBe(2);
    expect(await queue.enqueueNeverExtracted()).toBe(0);
    // The job it had is gone too: the worker's start finds it, with the two already enqueued.
    await t.dataSource.query(`DELETE FROM pgboss.job WHERE singleton_key = 'held'`);
    await startWorker(t);
    await waitForJobs(t);
    expect(await extracted(slugs)).toEqual(['anvil', 'crucible', 'tongs']);
  });
});
