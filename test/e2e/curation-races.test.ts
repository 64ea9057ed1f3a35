import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Two admins curating the same thing at the same moment must get what they would get one after the other: one
 * succeeds, the other a 4xx that says why, and nothing either did is lost.
 *
 * On PostgreSQL the interleaving is made certain with a lock held from a connection of the test's own until both
 * requests queue behind it. On the embedded database its single connection serialises the requests (the gate is a
 * no-op there); the outcomes asserted are the same.
 */
if (!ON_POSTGRES) console.warn('curation-races: on the embedded database the requests are serialised by its single connection; the lock gate runs on PostgreSQL only (DATABASE_URL).');

const BASE = '/admin/knowledge-graph';

describe('curation actions that race each other', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('one entity created by two admins at once: one 201, one 409 naming the entity that exists, never a 500', async () => {
    const api = await t.as('admin');
    // Both creates find the name free, then queue on their first write (the action journal) until the gate lets go;
    // the second then runs into the first's entity.
    const g = await holdLock(t.dataSource, 'LOCK TABLE kg_review_actions IN EXCLUSIVE MODE');
    const creates = [0, 1].map(() => api.post(`${BASE}/entities`).send({ name: 'Raced Entity', type: 'concept' }).then((r) => r));
    await waitFor('both creates to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    const answers = await Promise.all(creates);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const created = answers.find((r) => r.status === 201)!.body.entity;
    const refused = answers.find((r) => r.status === 409)!.body;
    expect(refused.message).toMatch(/exists already/);
    expect(refused.entityId ?? refused.details?.entityId).toBe(created.id);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_nodes WHERE signature = $1`, [created.signature]);
    expect(n).toBe(1);
  });

  it('two synonyms added to one entity at once: the entity keeps both (neither edit undoes the other)', async () => {
    const api = await t.as('admin');
    const entity = (await api.post(`${BASE}/entities`).send({ name: 'Synonym Target', type: 'concept' }).expect(201)).body.entity;
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_nodes WHERE id = $1 FOR UPDATE', [entity.id]);
    const adds = ['First Name', 'Second Name'].map((name) => api.post(`${BASE}/entities/${entity.id}/synonyms`).send({ name }).then((r) => r));
    await waitFor('both edits to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    expect((await Promise.all(adds)).map((r) => r.status)).toEqual([200, 200]);
    const after = await api.get(`${BASE}/entities/${entity.id}`).expect(200);
    const aliases: string[] = after.body.entity?.aliases ?? after.body.aliases;
    expect([...aliases].sort()).toEqual(['First Name', 'Second Name']);
  });

  it('one synonym removed by two admins at once: one 200, one 404', async () => {
    const api = await t.as('admin');
    const entity = (await api.post(`${BASE}/entities`).send({ name: 'Removal Target', type: 'concept', aliases: ['Gone Soon', 'Stays'] }).expect(201)).body.entity;
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_nodes WHERE id = $1 FOR UPDATE', [entity.id]);
    const removes = [0, 1].map(() => api.delete(`${BASE}/entities/${entity.id}/synonyms/${encodeURIComponent('Gone Soon')}`).then((r) => r));
    await waitFor('both removals to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    expect((await Promise.all(removes)).map((r) => r.status).sort()).toEqual([200, 404]);
    const after = await api.get(`${BASE}/entities/${entity.id}`).expect(200);
    expect(after.body.entity?.aliases ?? after.body.aliases).toEqual(['Stays']);
  });

  it('two entities that share a chunk, approved at once: their co-mention edge is made, as one after the other would', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const page = await kg.page('Shared Chunk Page', { body: 'The Teapot and the Kettle boil water together.' });
    const chunk = await kg.chunk(page.id, 'The Teapot and the Kettle boil water together.');
    const support = [{ chunkId: chunk, pageId: page.id, quote: 'The Teapot and the Kettle boil water together.' }];
    const ids = [await kg.nodeProposal({ name: 'Teapot', support }), await kg.nodeProposal({ name: 'Kettle', support })];
    // Both approvals write their mentions, then queue: without the chunk lock, each at its co-mention insert (held
    // here), having read the chunk without the other's mention; with it, the second one behind the first.
    const g = await holdLock(t.dataSource, 'LOCK TABLE kg_edges IN SHARE MODE');
    const approvals = ids.map((id) => api.post(`${BASE}/proposals/${id}/approve`).send({}).then((r) => r));
    await waitFor('both approvals to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    expect((await Promise.all(approvals)).map((r) => r.status)).toEqual([200, 200]);
    const edges: { weight: number }[] = await t.dataSource.query(
      `SELECT e.weight FROM kg_edges e JOIN kg_nodes a ON a.id = e.source_node_id JOIN kg_nodes b ON b.id = e.target_node_id
        WHERE e.kind = 'co_mention' AND ARRAY[a.name, b.name] <@ ARRAY['Teapot', 'Kettle']`,
    );
    expect(edges).toEqual([{ weight: 1 }]);
    const health = (await api.get('/admin/kg-policy/health').expect(200)).body;
    // (The factory's chunk has no embedding, so only the co-mention invariant is asked.)
    expect(health.invariants.find((i: { name: string }) => i.name === 'co_mention_weights')).toMatchObject({ ok: true, count: 0 });
  });
});
