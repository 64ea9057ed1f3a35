import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, rollback } from '../../src/db/migration-runner.js';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * No edge joins an entity to itself ("B uses B"). An edge approval that raced a merge of its two ends stored one (it
 * checked the ends when planning, then resolved them again after the merge had committed); an import as approved of
 * an edge whose ends were two nodes of the file but one entity stored one without any race. Now the approval locks the
 * ends it checks, the import compares the entities the ends lead to, the schema refuses a self-loop (migration 0032,
 * which removed those already stored), and `kurate kg check` reports one.
 *
 * The race needs two connections, so it runs on PostgreSQL only: a lock held from the test's own connection stops
 * the approval once it has planned, while the merge runs. The rest runs on both databases.
 */
if (!ON_POSTGRES) console.warn('review-self-loops: the approval-against-merge race runs on PostgreSQL only (DATABASE_URL); the embedded database serialises every transaction.');

const BASE = '/admin/knowledge-graph';
const HEALTH = '/admin/kg-policy/health';

interface Invariant { name: string; count: number; examples: string[]; ok: boolean; repairable: boolean }

describe('edges that would join an entity to itself', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let kg: KgFactory;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    kg = await KgFactory.for(t);
  });
  afterAll(() => t?.close());

  const selfLoops = () => kg.count('kg_edges', 'source_node_id = target_node_id');
  const invariant = async (name: string): Promise<Invariant> =>
    ((await admin.get(HEALTH).expect(200)).body.invariants as Invariant[]).find((i) => i.name === name)!;

  /** Two entities and a pending edge proposal "<a> uses <b>", supported by a page. */
  async function twoEntitiesAndAnEdge(a: string, b: string): Promise<{ from: string; into: string; edge: string }> {
    const [from, into] = [await kg.node({ name: a }), await kg.node({ name: b })];
    const passage = await kg.passage(`${a} and ${b}`, `The ${a} uses the ${b}.`);
    const edge = await kg.edgeProposal({ source: { name: a, type: 'concept' }, predicate: 'uses', target: { name: b, type: 'concept' }, support: [passage] });
    return { from, into, edge };
  }

  describe.runIf(ON_POSTGRES)('an edge approved while an admin merges one of its ends into the other (PostgreSQL)', () => {
    it('ends as one after the other: the approval first (both 200), then the merge drops the edge as a self-loop; no “B uses B”', async () => {
      const { from, into, edge } = await twoEntitiesAndAnEdge('Alpha Engine', 'Beta Engine');
      // The approval plans the edge (two different ends), then waits to mark its proposal approved; the merge is sent
      // then. Before the fix the merge ran and committed meanwhile (it writes no proposal), and the approval, going on,
      // resolved both ends to the survivor and stored Beta→Beta. Now the approval holds its ends, and the merge waits.
      const g = await holdLock(t.dataSource, 'LOCK TABLE kg_proposals IN SHARE MODE', [], { ownConnections: true });
      let approval: Promise<supertest.Response>;
      let merge: Promise<supertest.Response>;
      try {
        approval = admin.post(`${BASE}/proposals/${edge}/approve`).send({}).then((r) => r);
        await waitFor('the approval to queue', async () => (await g.waiting()) >= 1);
        let merged = false;
        merge = admin.post(`${BASE}/entities/${from}/merge`).send({ intoId: into }).then((r) => {
          merged = true;
          return r;
        });
        await waitFor('the merge to finish, or to wait for the approval', async () => merged || (await g.waiting()) >= 2);
      } finally {
        await g.release();
      }
      const [approved, mergedAnswer] = await Promise.all([approval!, merge!]);
      expect(await selfLoops()).toBe(0);
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(mergedAnswer.status, JSON.stringify(mergedAnswer.body)).toBe(200);
      expect(mergedAnswer.body.edgesCollapsed).toBe(1);
      expect(await kg.count('kg_edges', 'source_node_id = $1 OR target_node_id = $1', [into])).toBe(0);
      expect(await invariant('edges_without_self_loops')).toMatchObject({ ok: true, count: 0 });
    });
  });

  it('an edge approved after a merge of its ends is refused (409): it would join the entity to itself', async () => {
    const { from, into, edge } = await twoEntitiesAndAnEdge('Gamma Engine', 'Delta Engine');
    await admin.post(`${BASE}/entities/${from}/merge`).send({ intoId: into }).expect(200);
    const refused = await admin.post(`${BASE}/proposals/${edge}/approve`).send({}).expect(409);
    expect(refused.body).toMatchObject({ reason: 'edge_endpoint' });
    expect(refused.body.message).toMatch(/would join “Gamma Engine” to itself/);
    expect(await selfLoops()).toBe(0);
  });

  it('an import refuses an edge between two nodes of the file that are one entity (one was merged into the other)', async () => {
    const [from, into] = [await kg.node({ name: 'Epsilon Tool' }), await kg.node({ name: 'Zeta Tool' })];
    await admin.post(`${BASE}/entities/${from}/merge`).send({ intoId: into }).expect(200);
    const graph = {
      nodes: [{ id: 'a', name: 'Epsilon Tool', type: 'concept' }, { id: 'b', name: 'Zeta Tool', type: 'concept' }],
      edges: [{ source: 'a', target: 'b', predicate: 'uses' }],
    };
    const reason = `it joins a node to itself: “Epsilon Tool” and “Zeta Tool” are one entity here (entity ${into})`;
    const approved = (await admin.post(`${BASE}/import`).send({ graph, mode: 'approved', reason: 'from the old wiki' }).expect(200)).body;
    expect(approved.edges).toMatchObject({ received: 1, accepted: 0, refused: [{ index: 0, source: 'a', target: 'b', reason }] });
    expect(approved.nodes).toMatchObject({ accepted: 0, existing: 2 });
    expect(await kg.count('kg_edges', 'source_node_id = $1 OR target_node_id = $1', [into])).toBe(0);
    // As pending proposals too: one could never be approved.
    const pending = (await admin.post(`${BASE}/import`).send({ graph, mode: 'pending' }).expect(200)).body;
    expect(pending.edges).toMatchObject({ accepted: 0, refused: [{ index: 0, reason }] });
    expect(await kg.count('kg_proposals', `kind = 'edge' AND extractor = 'import'`)).toBe(0);
    expect(await selfLoops()).toBe(0);
  });

  it('the schema refuses a self-loop, and kg check reports one where that constraint is missing', async () => {
    const node = await kg.node({ name: 'Eta Loop' });
    const insert = () => t.dataSource.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by) VALUES ($1, $1, 'typed', 'uses', 1, 'manual', 'test') RETURNING id::text AS id`,
      [node],
    );
    await expect(insert()).rejects.toThrow(/kg_edges_no_self_loop_check/);
    await t.dataSource.query('ALTER TABLE kg_edges DROP CONSTRAINT kg_edges_no_self_loop_check');
    try {
      const [{ id }] = await insert();
      const found = await invariant('edges_without_self_loops');
      expect(found).toMatchObject({ ok: false, count: 1, repairable: false, examples: [`edge ${id} (Eta Loop uses Eta Loop): typed, joins node ${node} to itself`] });
      await t.dataSource.query('DELETE FROM kg_edges WHERE id = $1', [id]);
    } finally {
      await t.dataSource.query('ALTER TABLE kg_edges ADD CONSTRAINT kg_edges_no_self_loop_check CHECK (source_node_id <> target_node_id)');
    }
    expect(await invariant('edges_without_self_loops')).toMatchObject({ ok: true, count: 0 });
  });

  it('an undo that would put a self-loop back (an action journaled before migration 0032) is a 409, never a 500', async () => {
    const node = await kg.node({ name: 'Theta Loop' });
    // A self-loop as one could be stored before 0032, deleted by an admin then.
    await t.dataSource.query('ALTER TABLE kg_edges DROP CONSTRAINT kg_edges_no_self_loop_check');
    let deleted!: supertest.Response;
    try {
      const edge = await kg.edge(node, node, 'uses');
      deleted = await admin.delete(`${BASE}/edges/${edge}`).send({}).expect(200);
    } finally {
      await t.dataSource.query('ALTER TABLE kg_edges ADD CONSTRAINT kg_edges_no_self_loop_check CHECK (source_node_id <> target_node_id)');
    }
    const undone = await admin.post(`${BASE}/audit/${deleted.body.actionId}/undo`).send({}).expect(409);
    expect(undone.body).toMatchObject({ code: 'version_conflict', reason: 'edge_endpoint' });
    expect(undone.body.message).toMatch(/cannot join an entity to itself/);
    expect(await selfLoops()).toBe(0);
  });

  it('migration 0032 removes the self-loops stored before it (their provenance with them; their proposals stay approved)', async () => {
    const [a, b] = [await kg.node({ name: 'Iota Part' }), await kg.node({ name: 'Kappa Part' })];
    const passage = await kg.passage('Iota', 'The Iota Part uses the Kappa Part.');
    const proposal = await kg.edgeProposal({ source: { name: 'Iota Part', type: 'concept' }, predicate: 'uses', target: { name: 'Kappa Part', type: 'concept' }, support: [passage] });
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'approved', reviewed_by = 'test', reviewed_at = now() WHERE id = $1`, [proposal]);
    const kept = await kg.edge(a, b, 'uses');
    // Back to just before 0032 (the migrations after it are applied again with it).
    const fromIt: { version: string }[] = await t.dataSource.query(`SELECT version FROM schema_migrations WHERE version >= '0032_edges_without_self_loops' ORDER BY version DESC`);
    expect((await rollback(t.dataSource, fromIt.length)).at(-1)).toBe('0032_edges_without_self_loops');
    const loop = await kg.edge(b, b, 'uses', { origin: 'extracted' });
    await t.dataSource.query(`INSERT INTO kg_edge_provenance (edge_id, proposal_id, approved_by) VALUES ($1, $2, 'test')`, [loop, proposal]);
    await migrate(t.dataSource);
    expect(await kg.count('kg_edges', 'id = $1', [loop])).toBe(0);
    expect(await kg.count('kg_edge_provenance', 'proposal_id = $1', [proposal])).toBe(0);
    expect(await kg.count('kg_edges', 'id = $1', [kept])).toBe(1);
    expect(await kg.count('kg_proposals', `id = $1 AND status = 'approved'`, [proposal])).toBe(1);
    await expect(kg.edge(a, a, 'uses')).rejects.toThrow(/kg_edges_no_self_loop_check/);
  });
});
