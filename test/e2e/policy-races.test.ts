import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type supertest from 'supertest';
import { PAGE_DECISION_GATE_KEY } from '../../src/db/page-decision-gate.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy } from './kg-test-helpers.js';

/**
 * Policy writes against each other and against the saves they decide on (src/policy: ClusterPolicyRepository.
 * writeTransaction, and the page decision gate every save and decision holds: src/db/page-decision-gate.ts). On PostgreSQL a lock held from the test's own connection
 * makes each interleaving happen; on the embedded database the requests run one after the other and the outcome must
 * be the same.
 */
describe('inclusion policy under concurrent writes', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let browser: supertest.Agent;
  let csrf: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    ({ agent: browser, csrfToken: csrf } = await t.login(await t.user('admin', { name: 'Ida' })));
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
  });
  afterAll(() => t?.close());

  const page = (title: string, cluster: string) => admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nText of ${title}.\n` }).expect(201);
  const excludedRow = async (slug: string) =>
    ((await t.dataSource.query(`SELECT x.reason, x.policy_cluster FROM kg_excluded_pages x JOIN pages p ON p.id = x.page_id WHERE p.slug = $1`, [slug])) as {
      reason: string;
      policy_cluster: string | null;
    }[])[0] ?? null;

  /** A page of `origin` that a save will move to `target`, both clusters included (and a page of its own in `target`). */
  const pageToMove = async (title: string, origin: string, target: string) => {
    const created = (await page(title, origin)).body as { slug: string };
    await page(`Resident of ${target}`, target);
    await setPolicy(admin, origin, 'include');
    await setPolicy(admin, target, 'include');
    expect(await excludedRow(created.slug)).toBeNull();
    return (await admin.get(`/api/pages/${created.slug}`).expect(200)).body as { body: string; version: number };
  };

  it('excludes a page that a save moves into a cluster while an admin excludes that cluster', async () => {
    const mover = await pageToMove('Mover', 'origin', 'target');

    // The save decides (included: the target is still included) and then waits to enqueue its extraction job.
    const gate = await holdLock(t.dataSource, 'LOCK TABLE pgboss.job IN EXCLUSIVE MODE');
    let save: Promise<supertest.Response> | null = null;
    let exclude: Promise<supertest.Response> | null = null;
    let excluded = false;
    try {
      save = admin.put('/api/pages/mover').send({ body: mover.body.replace('cluster: origin', 'cluster: target'), baseVersion: mover.version }).then((r) => r);
      await waitFor('the save to wait', async () => (await gate.waiting()) >= 1);
      // Meanwhile the target is excluded: before, this committed and reconciled the target's pages, where the moving
      // page was not yet, and the save then committed its stale "included".
      exclude = admin.put('/admin/kg-policy/clusters/target').send({ action: 'exclude', reason: 'not for the graph' }).then((r) => {
        excluded = true;
        return r;
      });
      await waitFor('the exclude to wait or finish', async () => excluded || (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    expect((await save!).status).toBe(200);
    expect((await exclude!).status).toBe(200);
    expect(await excludedRow('mover')).toEqual({ reason: 'cluster_policy', policy_cluster: 'target' });
    expect((await admin.get('/admin/kg-policy/explain/mover').expect(200)).body).toMatchObject({ included: false, reason: 'cluster_policy', reconciled: true });
  });

  it('decides a save that begins while a policy change is under way on the new policy, which it waits for', async () => {
    const mover = await pageToMove('Late Mover', 'late-origin', 'late-target');
    // The change holds the gate alone, as ClusterPolicyRepository.writeTransaction does, and has excluded the target.
    const change = await holdLock(t.dataSource, `SELECT pg_advisory_xact_lock(${PAGE_DECISION_GATE_KEY})`, [], { commit: true });
    let save: Promise<supertest.Response> | null = null;
    try {
      await change.query(`UPDATE kg_cluster_policy SET action = 'exclude', reason = 'excluded meanwhile' WHERE cluster = 'late-target'`);
      save = admin.put('/api/pages/late-mover').send({ body: mover.body.replace('cluster: late-origin', 'cluster: late-target'), baseVersion: mover.version }).then((r) => r);
      // The save waits in its first statement, holding neither its page's row nor a link key.
      await waitFor('the save to wait for the policy change', async () => (await change.waiting()) >= 1);
      if (ON_POSTGRES) {
        // No link key among the advisory locks the waiting save has been granted (its gate request is not granted).
        const granted = (await t.dataSource.query(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE a.datname = current_database() AND a.wait_event_type = 'Lock' AND l.locktype = 'advisory' AND l.granted`,
        )) as { n: number }[];
        expect(granted[0].n).toBe(0);
      }
    } finally {
      await change.release();
    }
    expect((await save!).status).toBe(200);
    expect(await excludedRow('late-mover')).toEqual({ reason: 'cluster_policy', policy_cluster: 'late-target' });
  });

  it('audits the first policy of a cluster that two admins set at once with the previous action the second one replaced', async () => {
    await page('First Policy', 'fresh');
    const gate = await holdLock(t.dataSource, `SELECT pg_advisory_xact_lock_shared(${PAGE_DECISION_GATE_KEY})`);
    let writes: Promise<supertest.Response>[] = [];
    try {
      writes = (['include', 'exclude'] as const).map((action) => admin.put('/admin/kg-policy/clusters/fresh').send({ action, reason: `admin says ${action}` }).then((r) => r));
      await waitFor('both writes to wait', async () => (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual([200, 200]);
    const trail = (await t.dataSource.query(`SELECT previous_action, action FROM kg_policy_audit WHERE cluster = 'fresh' AND event = 'set' ORDER BY id`)) as {
      previous_action: string | null;
      action: string;
    }[];
    expect(trail).toHaveLength(2);
    // The trail replays to the final state: the second entry names the first one's action as the one it replaced.
    expect(trail[0].previous_action).toBeNull();
    expect(trail[1].previous_action).toBe(trail[0].action);
    const [{ action }] = await t.dataSource.query(`SELECT action FROM kg_cluster_policy WHERE cluster = 'fresh'`);
    expect(action).toBe(trail[1].action);
  });

  it('sets the same clusters from two bulk forms listing them in opposite orders, both answered, no deadlock', async () => {
    for (const cluster of ['bulk-x', 'bulk-y', 'bulk-z']) await page(`Page of ${cluster}`, cluster);
    const bulk = (clusters: string[], action: string) =>
      browser
        .post('/admin/kg-policy/ui/bulk')
        .type('form')
        .set('Accept', 'text/html')
        .send(`_csrf=${encodeURIComponent(csrf)}&${clusters.map((c) => `clusters=${c}`).join('&')}&action=${action}&reason=bulk+${action}`)
        .then((r) => r);
    const gate = await holdLock(t.dataSource, `SELECT pg_advisory_xact_lock_shared(${PAGE_DECISION_GATE_KEY})`);
    let forms: Promise<supertest.Response>[] = [];
    try {
      forms = [bulk(['bulk-x', 'bulk-y', 'bulk-z'], 'include'), bulk(['bulk-z', 'bulk-y', 'bulk-x'], 'exclude')];
      await waitFor('both forms to wait', async () => (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    expect((await Promise.all(forms)).map((r) => r.status)).toEqual([303, 303]);
    const actions = (await t.dataSource.query(`SELECT DISTINCT action FROM kg_cluster_policy WHERE cluster LIKE 'bulk-_'`)) as { action: string }[];
    // One form ran after the other: all three clusters carry the later one's action.
    expect(actions).toHaveLength(1);
  });
});

if (!ON_POSTGRES) console.warn('policy-races: on the embedded database the requests run one after the other (no interleaving to force).');
