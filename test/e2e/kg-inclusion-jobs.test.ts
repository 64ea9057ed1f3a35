import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KgExtractionQueue } from '../../src/kg/kg-extraction-queue.service.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { openJobs } from './kg-test-helpers.js';

/**
 * Including a cluster enqueues the extraction of its pages in the same transaction as the decision that includes
 * them. The crash audit killed the server 60 ms after an include: the decision had committed, the jobs (enqueued
 * after the commit) were lost, and the pages stayed included and never extracted through every restart, since the
 * start-up reconciliation found nothing left to decide. Here the enqueueing fails instead of the process dying.
 */
describe('a policy decision and its extraction jobs commit together', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const excluded = async () => Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_excluded_pages x JOIN pages p ON p.id = x.page_id WHERE p.cluster = 'forge'`))[0].n);

  it('leaves the pages excluded when their jobs cannot be enqueued, and the next reconciliation includes and enqueues them', async () => {
    const admin = await t.as('admin');
    for (const name of ['Anvil', 'Bellows']) {
      await admin.post('/api/pages').send({ title: name, body: `---\ncluster: forge\n---\nThe ${name} is a tool of the [[Forge]].` }).expect(201);
    }
    expect(await excluded()).toBe(2);
    const queue = t.app.get(KgExtractionQueue);
    const failing = vi.spyOn(queue, 'onInclusionChanged').mockRejectedValueOnce(new Error('the process died here'));
    try {
      await admin.put('/admin/kg-policy/clusters/forge').send({ action: 'include', reason: 'crash test' });
    } finally {
      failing.mockRestore();
    }
    // Not half done: still excluded, and no job.
    expect(await excluded()).toBe(2);
    expect(await openJobs(t)).toBe(0);
    // What a restart's reconciliation does: the decision is made again, with its jobs.
    await t.app.get(PolicyReconciler).reconcileAll('start-up');
    expect(await excluded()).toBe(0);
    expect(await openJobs(t)).toBe(2);
  });
});
