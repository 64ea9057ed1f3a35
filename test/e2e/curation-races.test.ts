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
  it('a proposal approved while the entity its name leads to is merged into another: the approval lands on the survivor, never a 500', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const from = await kg.node({ name: 'Londinium', type: 'place' });
    const into = await kg.node({ name: 'London', type: 'place' });
    const passage = await kg.passage('Roman Britain', 'Londinium was a Roman town.');
    const proposal = await kg.nodeProposal({ name: 'Londinium', type: 'place', support: [passage] });
    // The merge queues on the entity's row first; the approval resolves the proposal's name to that entity, then
    // queues on it too (its provenance row refers to it). The merge goes first and deletes the entity.
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_nodes WHERE id = $1 FOR UPDATE', [from]);
    const merge = api.post(`${BASE}/entities/${from}/merge`).send({ intoId: into }).then((r) => r);
    await waitFor('the merge to queue', async () => (await g.waiting()) >= 1);
    const approval = api.post(`${BASE}/proposals/${proposal}/approve`).send({}).then((r) => r);
    await waitFor('the approval to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    const [merged, approved] = await Promise.all([merge, approval]);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(await kg.count('kg_nodes', 'id = $1', [from])).toBe(0);
    expect(await kg.count('kg_node_provenance', 'node_id = $1 AND proposal_id = $2', [into, proposal])).toBe(1);
    expect(await kg.count('kg_mentions', 'chunk_id = $1 AND node_id = $2', [passage.chunkId, into])).toBe(1);
  });

  it('two merges at once whose entities share an edge: the edge joins the two survivors (neither merge writes back an end the other removed)', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const [a, b, c, d] = [await kg.node({ name: 'Edge End A' }), await kg.node({ name: 'Edge End B' }), await kg.node({ name: 'Edge End C' }), await kg.node({ name: 'Edge End D' })];
    const edge = await kg.edge(a, c, 'uses');
    // Both merges queue on the edge they share, each holding its own two entities.
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_edges WHERE id = $1 FOR UPDATE', [edge]);
    const merges = [[a, b], [c, d]].map(([from, into]) => api.post(`${BASE}/entities/${from}/merge`).send({ intoId: into }).then((r) => r));
    await waitFor('both merges to queue on the edge', async () => (await g.waiting()) >= 2);
    await g.release();
    const answers = await Promise.all(merges);
    expect(answers.map((r) => r.status), JSON.stringify(answers.map((r) => r.body))).toEqual([200, 200]);
    const [row] = await t.dataSource.query('SELECT source_node_id::text AS s, target_node_id::text AS t FROM kg_edges WHERE id = $1', [edge]);
    expect(row).toEqual({ s: b, t: d });
    const health = (await api.get('/admin/kg-policy/health').expect(200)).body;
    expect(health.invariants.find((i: { name: string }) => i.name === 'edges_to_merged_or_retired_nodes')).toMatchObject({ ok: true, count: 0 });
  });
  it('an edge approved while another admin approves the proposal of its endpoint: both 200, the edge joins the new entity', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const engine = await kg.node({ name: 'Steam Engine' });
    const passage = await kg.passage('Steam', 'The Steam Engine uses a Boiler.');
    const boiler = await kg.nodeProposal({ name: 'Boiler', support: [passage] });
    const edge = await kg.edgeProposal({ source: { name: 'Steam Engine', type: 'concept' }, predicate: 'uses', target: { name: 'Boiler', type: 'concept' }, support: [passage] });
    // The endpoint's approval queues on its proposal first; the edge's approval finds no entity Boiler yet, and queues
    // on the same proposal to approve it with the edge. When it gets the lock, Boiler is an entity.
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_proposals WHERE id = $1 FOR UPDATE', [boiler]);
    const endpoint = api.post(`${BASE}/proposals/${boiler}/approve`).send({}).then((r) => r);
    await waitFor('the endpoint approval to queue', async () => (await g.waiting()) >= 1);
    const withEdge = api.post(`${BASE}/proposals/${edge}/approve`).send({}).then((r) => r);
    await waitFor('the edge approval to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    const answers = await Promise.all([endpoint, withEdge]);
    expect(answers.map((r) => r.status), JSON.stringify(answers.map((r) => r.body))).toEqual([200, 200]);
    const boilerId = answers[0].body.items[0].nodeId;
    expect(await kg.count('kg_edges', "kind = 'typed' AND predicate = 'uses' AND source_node_id = $1 AND target_node_id = $2", [engine, boilerId])).toBe(1);
  });
  it('an edge approved while an admin deletes the entity at one of its ends: the approval holds its ends and goes first, the delete takes the edge with it; never a 500', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const [press, ink] = [await kg.node({ name: 'Printing Press' }), await kg.node({ name: 'Ink' })];
    const passage = await kg.passage('Printing', 'The Printing Press uses Ink.');
    const edge = await kg.edgeProposal({ source: { name: 'Printing Press', type: 'concept' }, predicate: 'uses', target: { name: 'Ink', type: 'concept' }, support: [passage] });
    // The approval plans the edge (both ends are entities, locked from then on), then waits to mark its proposal
    // approved; the delete sent meanwhile waits for the approval's lock on its entity. (Before the ends were locked the
    // delete committed in between, and the approval found an end gone when it wrote, and decided again: a 409.)
    const g = await holdLock(t.dataSource, 'LOCK TABLE kg_proposals IN SHARE MODE', [], { ownConnections: true });
    const approve = api.post(`${BASE}/proposals/${edge}/approve`).send({}).then((r) => r);
    await waitFor('the approval to queue', async () => (await g.waiting()) >= 1);
    let deleted = false;
    const remove = api.delete(`${BASE}/entities/${ink}`).send({}).then((r) => {
      deleted = true;
      return r;
    });
    await waitFor('the delete to wait for the approval', async () => deleted || (await g.waiting()) >= 2);
    await g.release();
    const [approved, removed] = await Promise.all([approve, remove]);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    if (ON_POSTGRES) expect(removed.body.summary).toMatch(/with 1 edge;/);
    expect(await kg.count('kg_edges', 'source_node_id = $1', [press])).toBe(0);
  });
  it('an edge approved after an admin deleted the entity at one of its ends (while it waited for its proposal): a 409, never a 500', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const [press, ink] = [await kg.node({ name: 'Rotary Press' }), await kg.node({ name: 'Toner' })];
    const passage = await kg.passage('Rotary Printing', 'The Rotary Press uses Toner.');
    const edge = await kg.edgeProposal({ source: { name: 'Rotary Press', type: 'concept' }, predicate: 'uses', target: { name: 'Toner', type: 'concept' }, support: [passage] });
    // The approval waits for its proposal's row, held here, before it plans; the delete runs and commits meanwhile.
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_proposals WHERE id = $1 FOR UPDATE', [edge], { ownConnections: true });
    const approve = api.post(`${BASE}/proposals/${edge}/approve`).send({}).then((r) => r);
    await waitFor('the approval to queue', async () => (await g.waiting()) >= 1);
    const removed = await api.delete(`${BASE}/entities/${ink}`).send({});
    await g.release();
    const approved = await approve;
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    // (On the embedded database the two run one after the other, in either order: a 200 then a delete of its edge.)
    if (ON_POSTGRES || approved.status !== 200) {
      expect(approved.status, JSON.stringify(approved.body)).toBe(409);
      expect(approved.body.message).toMatch(/“Toner” is neither an entity nor a pending proposal/);
    }
    expect(await kg.count('kg_edges', 'source_node_id = $1', [press])).toBe(0);
  });
  it('an entity approval undone while an edge on that entity is being approved: the undo waits for the edge, then is a 409 naming it', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    await kg.node({ name: 'Loom' });
    const passage = await kg.passage('Weaving', 'The Loom uses Weft.');
    const weft = await kg.nodeProposal({ name: 'Weft', support: [passage] });
    const edge = await kg.edgeProposal({ source: { name: 'Loom', type: 'concept' }, predicate: 'uses', target: { name: 'Weft', type: 'concept' }, support: [passage] });
    const approvedNode = (await api.post(`${BASE}/proposals/${weft}/approve`).send({}).expect(200)).body;
    // The edge approval writes its edge to the entity, then waits for the gate at its audit entry (its last write),
    // still holding the entity's row against deletion (the foreign key's lock). The undo queues behind it on that row.
    // Before the fix the undo then deleted the entity, and the edge and its provenance went with it (ON DELETE
    // CASCADE): both answered 200, and the edge proposal stayed approved with nothing behind it.
    const g = await holdLock(t.dataSource, 'LOCK TABLE audit_log IN SHARE MODE');
    const approve = api.post(`${BASE}/proposals/${edge}/approve`).send({}).then((r) => r);
    await waitFor('the edge approval to queue', async () => (await g.waiting()) >= 1);
    const undo = api.post(`${BASE}/audit/${approvedNode.actionId}/undo`).send({}).then((r) => r);
    if (ON_POSTGRES) await waitFor('the undo to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    const [approved, undone] = await Promise.all([approve, undo]);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(undone.status, JSON.stringify(undone.body)).toBe(409);
    expect(undone.body.laterActions.map((a: { id: string }) => a.id)).toEqual([approved.body.actionId]);
    expect(await kg.count('kg_edge_provenance', 'proposal_id = $1', [edge])).toBe(1);
    expect(await kg.count('kg_nodes', 'id = $1', [approvedNode.items[0].nodeId])).toBe(1);
    // One after the other, as the answer says: the edge approval, then the entity's.
    await api.post(`${BASE}/audit/${approved.body.actionId}/undo`).send({}).expect(200);
    await api.post(`${BASE}/audit/${approvedNode.actionId}/undo`).send({}).expect(200);
    expect(await kg.count('kg_proposals', "id IN ($1, $2) AND status = 'pending'", [weft, edge])).toBe(2);
  });
  it('triage approving into an entity another admin deletes at that moment: the delete goes first and the proposal is skipped, the action still 200', async () => {
    const api = await t.as('admin');
    const kg = await KgFactory.for(t);
    const target = await kg.node({ name: 'Teakettle', type: 'product' });
    const passage = await kg.passage('Tea Things', 'The teakettle whistles when the water boils.');
    const proposal = await kg.nodeProposal({ name: 'teakettle', type: 'concept', confidence: 0.7, signals: ['properNoun'], support: [passage] });
    const preview = (await api.get(`${BASE}/triage/same-as-approved`).expect(200)).body.items as { proposalId: string; intoEntityId: string }[];
    expect(preview).toContainEqual(expect.objectContaining({ proposalId: proposal, intoEntityId: target }));
    // The delete queues on the entity's row first; the triage action (its preview read before) queues behind it.
    const g = await holdLock(t.dataSource, 'SELECT 1 FROM kg_nodes WHERE id = $1 FOR UPDATE', [target]);
    const remove = api.delete(`${BASE}/entities/${target}`).send({}).then((r) => r);
    await waitFor('the delete to queue', async () => (await g.waiting()) >= 1);
    const triage = api.post(`${BASE}/triage/same-as-approved`).send({ ids: [proposal] }).then((r) => r);
    await waitFor('the triage action to queue', async () => (await g.waiting()) >= 2);
    await g.release();
    const [removed, triaged] = await Promise.all([remove, triage]);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(triaged.status, JSON.stringify(triaged.body)).toBe(200);
    // (On the embedded database the triage may run first and approve into the entity the delete then removes.)
    if (ON_POSTGRES) expect(JSON.stringify(triaged.body.skipped)).toContain(proposal);
  });
});
