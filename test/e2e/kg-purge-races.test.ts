import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_PURGE_LOCK_KEY } from '../../src/db/kg-purge-lock.js';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { gadgetPage, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * A hard exclude (purge) while an extraction run or a review action is under way must leave nothing of the purged
 * pages behind and every invariant of `kurate kg check` holding. Found by racing purges against extraction and
 * approvals on PostgreSQL: an extraction run that had checked the policy before the exclude committed wrote its rows
 * after the purge had deleted the page's, and an approval committing mid-purge left a node without provenance.
 *
 * On PostgreSQL the run is held mid-write (its last statement waits on the page's extraction record, held by the
 * test) while the cluster is excluded and purged. On the embedded database its single connection runs everything
 * one after the other; the same checks hold.
 */
if (!ON_POSTGRES) console.warn('kg-purge-races: on the embedded database the run and the purge are serialised by its single connection; the gate runs on PostgreSQL only (DATABASE_URL).');

describe('purging a cluster while its pages are being extracted', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await startWorker(t);
  });
  afterAll(() => t.close());

  const pageRows = async (slug: string) =>
    (await t.dataSource.query(
      `SELECT (SELECT count(*) FROM kg_content_chunks c WHERE c.page_id = p.id)::int AS chunks,
              (SELECT count(*) FROM kg_proposal_support s WHERE s.page_id = p.id)::int AS support
         FROM pages p WHERE p.slug = $1`,
      [slug],
    ))[0] as { chunks: number; support: number };

  it('waits for the run writing a page of the cluster, then purges what it wrote: nothing of the page stays, every invariant holds', async () => {
    await admin.post('/api/pages').send({ title: 'Purge Race', body: gadgetPage('purge-race', { sections: 4 }) }).expect(201);
    await setPolicy(admin, 'purge-race', 'include');
    await waitForJobs(t);
    expect((await pageRows('purge-race')).chunks).toBeGreaterThan(0);

    // The next run of the page writes its rows, then waits on its extraction record (its last statement).
    const gate = await holdLock(t.dataSource, `SELECT 1 FROM kg_page_extractions WHERE page_id = (SELECT id FROM pages WHERE slug = $1) FOR UPDATE`, ['purge-race']);
    let purge: Promise<supertest.Response> | null = null;
    try {
      const page = (await admin.get('/api/pages/purge-race').expect(200)).body;
      // A new last section: the run only adds rows (a chunk, its mention, a proposal and its support), so nothing it
      // holds stands in the purge's way.
      const added = `${page.body}\n## Part 9\n\nThe Gadget9 is a new gadget. The Gadget9 folds flat. Everyone likes the Gadget9.\n`;
      await admin.put('/api/pages/purge-race').send({ body: added, baseVersion: page.version }).expect(200);
      if (ON_POSTGRES) await waitFor('the run to wait on its record', async () => (await gate.waiting()) >= 1);
      else await waitForJobs(t);
      await setPolicy(admin, 'purge-race', 'exclude');
      let settled = false;
      purge = admin.post('/admin/kg-policy/clusters/purge-race/purge').send({ dryRun: false, confirm: 'purge-race' }).then((r) => {
        settled = true;
        return r;
      });
      // The purge queues behind the run (or, were it not to wait, it would finish now, before the run commits).
      await waitFor('the purge to queue behind the run, or to end', async () => settled || (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    const answer = await purge!;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    await waitForJobs(t);
    expect(await pageRows('purge-race')).toEqual({ chunks: 0, support: 0 });
    const health = (await admin.get('/admin/kg-policy/health').expect(200)).body;
    expect(health.invariants.filter((i: { ok: boolean }) => !i.ok).map((i: { name: string; examples: string[] }) => [i.name, i.examples])).toEqual([]);
  });
  it('a purge and an include of one cluster at once: the purge never runs after the include (it is then a 409 and deletes nothing)', async () => {
    await admin.post('/api/pages').send({ title: 'Include Race', body: gadgetPage('include-race', { sections: 2 }) }).expect(201);
    await setPolicy(admin, 'include-race', 'exclude');
    // The purge passes its first check (the cluster is excluded), then waits to take the review lock, held here; the
    // include is sent meanwhile. Before the fix, the include committed and the purge then deleted an included cluster's
    // knowledge, audited after the include.
    const gate = await holdLock(t.dataSource, `SELECT pg_advisory_xact_lock(${REVIEW_PURGE_LOCK_KEY})`);
    const purge = admin.post('/admin/kg-policy/clusters/include-race/purge').send({ dryRun: false, confirm: 'include-race' }).then((r) => r);
    await waitFor('the purge to queue', async () => (await gate.waiting()) >= 1);
    const include = admin.put('/admin/kg-policy/clusters/include-race').send({ action: 'include', reason: 'racing a purge' }).then((r) => r);
    const includeCommitted = async () =>
      (await t.dataSource.query(`SELECT 1 FROM kg_cluster_policy WHERE cluster = 'include-race' AND action = 'include'`)).length > 0;
    await waitFor('the include to commit or queue behind the purge', async () => (await includeCommitted()) || (await gate.waiting()) >= 2);
    await gate.release();
    const [purged, included] = await Promise.all([purge, include]);
    expect(included.status, JSON.stringify(included.body)).toBe(200);
    expect([200, 409]).toContain(purged.status);
    const events: { event: string; action: string | null }[] = await t.dataSource.query(
      `SELECT event, action FROM kg_policy_audit WHERE cluster = 'include-race' ORDER BY id`);
    const includedAt = events.findIndex((e) => e.event === 'set' && e.action === 'include');
    const purgedAt = events.findIndex((e) => e.event === 'purge');
    if (purged.status === 409) expect(purgedAt).toBe(-1);
    else expect(purgedAt).toBeLessThan(includedAt);
  });

  it('dry runs, estimates and a purge of one cluster sent at once all answer 200 (a dry run deletes the rows it measures, then rolls back)', async () => {
    // Before, concurrent dry runs deleted the same rows in different orders: PostgreSQL aborted one as a deadlock's
    // victim, a 500 (found by a hostile-input audit sending them together).
    for (let i = 1; i <= 4; i++) await admin.post('/api/pages').send({ title: `Dry Race ${i}`, body: gadgetPage('dry-race', { sections: 6 }) }).expect(201);
    await setPolicy(admin, 'dry-race', 'include');
    await waitForJobs(t);
    await setPolicy(admin, 'dry-race', 'exclude');
    const url = '/admin/kg-policy/clusters/dry-race';
    // Nine at once: one runs and eight wait their turn (the most that may wait).
    const sent = await Promise.all([
      ...Array.from({ length: 4 }, () => admin.post(`${url}/purge`).send({ dryRun: true }).then((r) => r)),
      ...Array.from({ length: 2 }, () => admin.post('/admin/kg-policy/estimate').send({ cluster: 'dry-race', action: 'include' }).then((r) => r)),
      admin.post(`${url}/purge`).send({ dryRun: false, confirm: 'dry-race' }).then((r) => r),
      ...Array.from({ length: 2 }, () => admin.post(`${url}/purge`).send({ dryRun: true }).then((r) => r)),
    ]);
    expect(sent.map((r) => [r.status, r.status === 200 ? '' : JSON.stringify(r.body).slice(0, 200)])).toEqual(sent.map(() => [200, '']));
    expect((await admin.post(`${url}/purge`).send({ dryRun: true }).expect(200)).body.deleted.every((d: { rows: number }) => d.rows === 0)).toBe(true);
    const health = (await admin.get('/admin/kg-policy/health').expect(200)).body;
    expect(health.invariants.filter((i: { ok: boolean }) => !i.ok).map((i: { name: string; examples: string[] }) => [i.name, i.examples])).toEqual([]);
  });

  it('a burst of dry runs waits in a bounded queue: one runs at a time, any beyond eight waiting get a 429, and readers are not starved of connections', async () => {
    for (let i = 1; i <= 2; i++) await admin.post('/api/pages').send({ title: `Burst ${i}`, body: gadgetPage('burst', { sections: 4 }) }).expect(201);
    await setPolicy(admin, 'burst', 'include');
    await waitForJobs(t);
    await setPolicy(admin, 'burst', 'exclude');
    const burst = Promise.all(Array.from({ length: 24 }, () => admin.post('/admin/kg-policy/clusters/burst/purge').send({ dryRun: true }).then((r) => r)));
    // Readers keep their connections meanwhile: a dry run waiting its turn holds none.
    const read = await t.http.get('/api/pages').expect(200);
    expect(read.body.items.length).toBeGreaterThan(0);
    const answers = await burst;
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(9);
    // Whether any arrive while eight wait depends on timing (on the embedded database its one connection already
    // serialises them); a refused one says why (the queue's bound itself: test/unit/one-at-a-time.test.ts).
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(refused.body.message).toMatch(/estimates or purges are waiting to run already; try again when they are done/);
    }
  });
});
