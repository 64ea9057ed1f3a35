import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * An edit-then-approve that gives a proposal a new name takes that name's lock, as creating or renaming an entity by
 * hand does (src/kg/variant-locks.ts). It used to lock only the proposal's stored names: two edit-approves to one new
 * name, or one against POST /entities with it, both went ahead, and the later one joined the entity the other had
 * just created without journaling it (its undo left a stray alias, and the other action could never be undone); an
 * extraction run's mention of the name could be left unlinked.
 *
 * On PostgreSQL a lock held from the test's own connection stops the first action just before it commits (its audit
 * entry, its last write) while the second one is sent. The embedded database runs one transaction at a time, so these
 * races cannot happen there: the file runs on PostgreSQL only.
 */
if (!ON_POSTGRES) console.warn('review-races-names: needs two connections at once; runs on PostgreSQL only (DATABASE_URL).');

const BASE = '/admin/knowledge-graph';

describe.runIf(ON_POSTGRES)('an edit-then-approve to a new name racing another action on that name (PostgreSQL)', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let kg: KgFactory;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    kg = await KgFactory.for(t);
  });
  afterAll(() => t?.close());

  const undo = (actionId: string) => admin.post(`${BASE}/audit/${actionId}/undo`).send({}).then((r) => r);
  const journaledNodes = (actionId: string) => kg.count('kg_review_journal', `action_id = $1 AND table_name = 'kg_nodes'`, [actionId]);

  /** A pending node proposal supported by a page of its own. */
  async function proposal(name: string): Promise<string> {
    const passage = await kg.passage(`About ${name}`, `${name} is a thing people write about.`);
    return kg.nodeProposal({ name, support: [passage] });
  }

  /**
   * Sends `first`, lets it run until its audit entry (held here: the action has written everything else), then sends
   * `second` and waits until it is held as well (or done), and lets both go on.
   */
  async function race(first: () => Promise<supertest.Response>, second: () => Promise<supertest.Response>): Promise<[supertest.Response, supertest.Response]> {
    const g = await holdLock(t.dataSource, 'LOCK TABLE audit_log IN EXCLUSIVE MODE', [], { ownConnections: true });
    let a: Promise<supertest.Response>;
    let b: Promise<supertest.Response>;
    try {
      a = first();
      await waitFor('the first action to reach its audit entry', async () => (await g.waiting()) >= 1);
      let done = false;
      b = second().then((r) => {
        done = true;
        return r;
      });
      await waitFor('the second action to wait', async () => done || (await g.waiting()) >= 2);
    } finally {
      await g.release();
    }
    return Promise.all([a!, b!]);
  }

  it('two edit-approves to one new name: a new entity, then the other joins it; both journaled, both undo cleanly', async () => {
    const [p1, p2] = [await proposal('Omicron One'), await proposal('Omicron Two')];
    const [first, second] = await race(
      () => admin.post(`${BASE}/proposals/${p1}/edit-approve`).send({ name: 'Omicron' }).then((r) => r),
      () => admin.post(`${BASE}/proposals/${p2}/edit-approve`).send({ name: 'Omicron' }).then((r) => r),
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(first.body.summary).toMatch(/as a new entity/);
    expect(second.body.summary).toMatch(/into the existing entity/);
    const entity = first.body.items[0].nodeId;
    expect(second.body.items[0].nodeId).toBe(entity);
    expect((await t.dataSource.query('SELECT aliases FROM kg_nodes WHERE id = $1', [entity]))[0].aliases).toEqual(['Omicron One', 'Omicron Two']);
    // The second action changed the entity (an alias): its journal holds the row as the first one left it.
    expect(await journaledNodes(second.body.actionId)).toBe(1);

    // Undone in the reverse order, each puts back exactly what it changed.
    const undoSecond = await undo(second.body.actionId);
    expect(undoSecond.status, JSON.stringify(undoSecond.body)).toBe(200);
    expect((await t.dataSource.query('SELECT aliases FROM kg_nodes WHERE id = $1', [entity]))[0].aliases).toEqual(['Omicron One']);
    const undoFirst = await undo(first.body.actionId);
    expect(undoFirst.status, JSON.stringify(undoFirst.body)).toBe(200);
    expect(await kg.count('kg_nodes', 'id = $1', [entity])).toBe(0);
    expect(await kg.count('kg_proposals', `id IN ($1, $2) AND status = 'pending'`, [p1, p2])).toBe(2);
  });

  it('an entity created by hand while an edit-approve gives its name: the approval joins it, journaled; both undo cleanly', async () => {
    const p = await proposal('Sigma Draft');
    const [created, approved] = await race(
      () => admin.post(`${BASE}/entities`).send({ name: 'Sigma', type: 'concept' }).then((r) => r),
      () => admin.post(`${BASE}/proposals/${p}/edit-approve`).send({ name: 'Sigma' }).then((r) => r),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const entity = created.body.entity.id;
    expect(approved.body.summary).toMatch(/into the existing entity/);
    expect(approved.body.items[0].nodeId).toBe(entity);
    expect(await journaledNodes(approved.body.actionId)).toBe(1);

    const undoApproval = await undo(approved.body.actionId);
    expect(undoApproval.status, JSON.stringify(undoApproval.body)).toBe(200);
    expect((await t.dataSource.query('SELECT aliases FROM kg_nodes WHERE id = $1', [entity]))[0].aliases).toEqual([]);
    const undoCreate = await undo(created.body.actionId);
    expect(undoCreate.status, JSON.stringify(undoCreate.body)).toBe(200);
    expect(await kg.count('kg_nodes', 'id = $1', [entity])).toBe(0);
    expect(await kg.count('kg_proposals', `id = $1 AND status = 'pending'`, [p])).toBe(1);
  });

  it('an import as approved creating the name an edit-approve gives (an import takes no name lock): the approval journals the entity it joins', async () => {
    const p = await proposal('Upsilon Draft');
    const graph = { nodes: [{ id: 'u', name: 'Upsilon', type: 'concept' }] };
    // The import's entity is written (not committed) when the approval, finding the name free, inserts it too: its
    // insert waits, then joins that entity. The approval used to record the entities it joins before that insert.
    const [imported, approved] = await race(
      () => admin.post(`${BASE}/import`).send({ graph, mode: 'approved', reason: 'from the old wiki' }).then((r) => r),
      () => admin.post(`${BASE}/proposals/${p}/edit-approve`).send({ name: 'Upsilon' }).then((r) => r),
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.summary).toMatch(/into the existing entity/);
    expect(await journaledNodes(approved.body.actionId)).toBe(1);
    expect((await undo(approved.body.actionId)).status).toBe(200);
    const undoImport = await undo(imported.body.actionId);
    expect(undoImport.status, JSON.stringify(undoImport.body)).toBe(200);
    expect(await kg.count('kg_nodes', `name = 'Upsilon'`)).toBe(0);
  });

  it('an edit-approve to a new name while an extraction run writes mentions of that name: the mentions end linked to the entity', async () => {
    // (Last in the file: the worker started here extracts every page, the factory's too.)
    await startWorker(t);
    const page = async (name: string) => {
      const body = `---\ncluster: race-rename\n---\n${name} is a static site generator. ${name} renders Markdown into pages.\n\n## Themes\n\nThemes change how pages look.\n`;
      return (await admin.post('/api/pages').send({ title: name, body }).expect(201)).body.slug as string;
    };
    const fooblatSlug = await page('Fooblat');
    const slug = await page('Barqux');
    await setPolicy(admin, 'race-rename', 'include');
    await waitForJobs(t);
    const types: { type: string }[] = await t.dataSource.query(`SELECT DISTINCT split_part(signature, '|', 2) AS type FROM kg_mentions WHERE split_part(signature, '|', 1) = 'barqux'`);
    expect(types.length, 'the built-in extractor mentions Barqux under one type').toBe(1);
    // The proposal to rename, supported by the extracted Fooblat page (the built-in extractor does not propose it).
    const [chunk] = await t.dataSource.query(
      `SELECT c.id::text AS "chunkId", c.page_id AS "pageId" FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = $1 ORDER BY c.position LIMIT 1`,
      [fooblatSlug],
    );
    const fooblat = await kg.nodeProposal({ name: 'Fooblat', type: types[0].type, support: [{ ...chunk, quote: 'Fooblat is a static site generator.' }] });

    // The run of an edit of the Barqux page waits on its extraction record (its last statement), held here, with its
    // mentions written; the admin approves Fooblat renamed to Barqux meanwhile. Before the fix the approval did not
    // wait for the run (it did not lock the name Barqux): it committed first, and the run's mentions, written before
    // the entity existed, stayed unlinked. Now it waits for the run's name lock, and links them.
    const gate = await holdLock(t.dataSource, 'SELECT 1 FROM kg_page_extractions WHERE page_id = (SELECT id FROM pages WHERE slug = $1) FOR UPDATE', [slug], { ownConnections: true });
    let approval: Promise<supertest.Response>;
    try {
      const current = (await admin.get(`/api/pages/${slug}`).expect(200)).body;
      const body = current.body.replace('## Themes', 'Barqux is fast. Barqux builds a site in a second.\n\n## Themes');
      await admin.put(`/api/pages/${slug}`).send({ body, baseVersion: current.version }).expect(200);
      await waitFor('the run to wait on its record', async () => (await gate.waiting()) >= 1);
      let settled = false;
      approval = admin.post(`${BASE}/proposals/${fooblat}/edit-approve`).send({ name: 'Barqux', type: types[0].type }).then((r) => {
        settled = true;
        return r;
      });
      await waitFor('the approval to finish, or to wait for the run', async () => settled || (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    const approved = await approval!;
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await waitForJobs(t);
    const unlinked = await t.dataSource.query(`SELECT id FROM kg_mentions WHERE node_id IS NULL AND split_part(signature, '|', 1) = 'barqux'`);
    expect(unlinked).toEqual([]);
    expect(await kg.count('kg_mentions', 'node_id = $1', [approved.body.items[0].nodeId])).toBeGreaterThan(0);
  });
});
