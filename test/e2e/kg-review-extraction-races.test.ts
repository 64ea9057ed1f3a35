import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * A review action and an extraction run that meet one name must end as one after the other would: found by racing
 * approvals and rejections against the re-extraction of pages that mention the name, on PostgreSQL. A rejection
 * committing while a run upserted the same name left a new pending twin of the rejected proposal; an approval left the
 * run's new mentions unlinked, or deadlocked with it (a 500).
 *
 * On PostgreSQL the proposal's row is held by the test until both the review action and the run queue; on the
 * embedded database its single connection runs them one after the other, and the same checks hold.
 */
if (!ON_POSTGRES) console.warn('kg-review-extraction-races: on the embedded database the run and the review are serialised by its single connection; the gate runs on PostgreSQL only (DATABASE_URL).');

const BASE = '/admin/knowledge-graph';

describe('review actions racing the extraction of pages that mention the same name', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await startWorker(t);
  });
  afterAll(() => t.close());

  /** A page about `name` in an included cluster, extracted: the pending proposal of its subject. */
  async function extractedSubject(name: string, cluster: string): Promise<{ slug: string; proposal: string }> {
    const body = `---\ncluster: ${cluster}\n---\n${name} is a static site generator. ${name} renders Markdown into pages.\n\n## Themes\n\nThemes change how pages look.\n`;
    const created = (await admin.post('/api/pages').send({ title: name, body }).expect(201)).body;
    await setPolicy(admin, cluster, 'include');
    await waitForJobs(t);
    const [row] = await t.dataSource.query(`SELECT id::text AS id FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = $1`, [name]);
    expect(row, `the built-in extractor proposes ${name}`).toBeDefined();
    return { slug: created.slug, proposal: row.id };
  }

  /** An edit of the page's first section that names its subject again (its run proposes it once more). */
  async function editFirstSection(slug: string, sentence: string): Promise<void> {
    const page = (await admin.get(`/api/pages/${slug}`).expect(200)).body;
    const body = page.body.replace('## Themes', `${sentence}\n\n## Themes`);
    await admin.put(`/api/pages/${slug}`).send({ body, baseVersion: page.version }).expect(200);
  }

  /**
   * The proposal's row is held here until the review of it and the run `startRun` causes both queue, the review
   * first; then released. Before the fixes the run queued on the row too; now it waits for the review's lock on the
   * name, or on the edge's signature.
   */
  async function raceReviewWithRun(proposal: string, review: () => Promise<supertest.Response>, startRun: () => Promise<unknown>): Promise<supertest.Response> {
    const gate = await holdLock(t.dataSource, 'SELECT 1 FROM kg_proposals WHERE id = $1 FOR UPDATE', [proposal]);
    let answer: Promise<supertest.Response>;
    try {
      answer = review();
      await waitFor('the review to queue', async () => (await gate.waiting()) >= 1);
      await startRun();
      if (ON_POSTGRES) await waitFor('the run to queue', async () => (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    const settled = await answer!;
    await waitForJobs(t);
    return settled;
  }

  const raceWithRun = (proposal: string, slug: string, sentence: string, review: () => Promise<supertest.Response>) =>
    raceReviewWithRun(proposal, review, () => editFirstSection(slug, sentence));

  it('a rejection while a run proposes the same name again: the name stays rejected, no pending twin', async () => {
    const { slug, proposal } = await extractedSubject('Zola', 'race-reject');
    const rejected = await raceWithRun(proposal, slug, 'Zola is fast. Zola builds a site in a second.', () =>
      admin.post(`${BASE}/proposals/${proposal}/reject`).send({ reason: 'not a thing' }).then((r) => r));
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    const rows: { status: string }[] = await t.dataSource.query(`SELECT status FROM kg_proposals WHERE kind = 'node' AND lower(name) = 'zola' ORDER BY id`);
    expect(rows.map((r) => r.status)).toEqual(['rejected']);
  });

  it('an approval while a run writes new mentions of the name: the mentions are linked to the new entity, every invariant holds', async () => {
    const { slug, proposal } = await extractedSubject('Hugo', 'race-approve');
    const approved = await raceWithRun(proposal, slug, 'Hugo is fast. Hugo builds a site in a second.', () =>
      admin.post(`${BASE}/proposals/${proposal}/approve`).send({}).then((r) => r));
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const nodeId = approved.body.items[0].nodeId;
    const unlinked = await t.dataSource.query(`SELECT 1 FROM kg_mentions WHERE node_id IS NULL AND split_part(signature, '|', 1) = 'hugo'`);
    expect(unlinked).toEqual([]);
    expect(Number((await t.dataSource.query('SELECT count(*) AS n FROM kg_mentions WHERE node_id = $1', [nodeId]))[0].n)).toBeGreaterThan(0);
    const health = (await admin.get('/admin/kg-policy/health').expect(200)).body;
    expect(health.invariants.filter((i: { ok: boolean; name: string }) => !i.ok && i.name !== 'chunk_embeddings').map((i: { name: string; examples: string[] }) => [i.name, i.examples])).toEqual([]);
  });
  /**
   * Two approved entities and a page saying "A uses B": its run proposes the edge between them. Returns the proposal.
   * (Both ends are entities, so neither the review nor the run takes a name lock for them.)
   */
  async function edgeBetweenEntities(a: string, b: string, cluster: string): Promise<{ id: string; signature: string; text: string }> {
    const about = (name: string, what: string) => `---\ncluster: ${cluster}\n---\n${name} is a ${what}.\n`;
    await admin.post('/api/pages').send({ title: a, body: about(a, 'database engine') }).expect(201);
    await admin.post('/api/pages').send({ title: b, body: about(b, 'storage engine') }).expect(201);
    const text = `## ${a}\n\nThe [[${a}]] uses [[${b}]] for storage. ${a} is fast, and ${b} is reliable.\n`;
    await admin.post('/api/pages').send({ title: `${a} first`, body: `---\ncluster: ${cluster}\n---\n${text}` }).expect(201);
    await setPolicy(admin, cluster, 'include');
    await waitForJobs(t);
    const nodes: { id: string }[] = await t.dataSource.query(
      `SELECT id::text AS id FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name IN ($1, $2)`, [a, b]);
    expect(nodes, `the built-in extractor proposes ${a} and ${b}`).toHaveLength(2);
    await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', ids: nodes.map((n) => n.id) }).expect(200);
    const [edge] = await t.dataSource.query(
      `SELECT id::text AS id, signature FROM kg_proposals WHERE kind = 'edge' AND status = 'pending' AND source_name = $1 AND target_name = $2`, [a, b]);
    expect(edge, `the built-in extractor proposes “${a} uses ${b}”`).toBeDefined();
    return { ...edge, text };
  }

  /** A second page saying the same as the edge's, saved while the review of the edge waits (raceReviewWithRun). */
  const raceEdgeReview = (edge: { id: string; text: string }, cluster: string, review: () => Promise<supertest.Response>) =>
    raceReviewWithRun(edge.id, review, () =>
      admin.post('/api/pages').send({ title: `Again ${edge.id}`, body: `---\ncluster: ${cluster}\n---\n${edge.text.replace('## ', '## Again ')}` }).expect(201));

  const withSignature = (signature: string): Promise<{ id: string; status: string }[]> =>
    t.dataSource.query(`SELECT id::text AS id, status FROM kg_proposals WHERE kind = 'edge' AND signature = $1 ORDER BY id`, [signature]);

  it('an edge approval while a run proposes the same edge again: no pending twin of the approved edge', async () => {
    const edge = await edgeBetweenEntities('Zorblax', 'Quintor', 'race-edge-approve');
    const approved = await raceEdgeReview(edge, 'race-edge-approve', () => admin.post(`${BASE}/proposals/${edge.id}/approve`).send({}).then((r) => r));
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(await withSignature(edge.signature)).toEqual([{ id: edge.id, status: 'approved' }]);
  });

  it('an edge rejection while a run proposes the same edge again: it stays rejected, no pending twin', async () => {
    const edge = await edgeBetweenEntities('Vexilor', 'Bramtok', 'race-edge-reject');
    const rejected = await raceEdgeReview(edge, 'race-edge-reject', () => admin.post(`${BASE}/proposals/${edge.id}/reject`).send({ reason: 'no' }).then((r) => r));
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(await withSignature(edge.signature)).toEqual([{ id: edge.id, status: 'rejected' }]);
  });

  it('an entity created by hand while a run writes mentions of its name: the mentions end linked to it', async () => {
    // (Only its mentions matter here: the page need not make the name a proposal.)
    const body = `---\ncluster: race-create\n---\nNewton is a static site generator. Newton renders Markdown into pages.\n\n## Themes\n\nThemes change how pages look.\n`;
    const { slug } = (await admin.post('/api/pages').send({ title: 'Newton', body }).expect(201)).body;
    await setPolicy(admin, 'race-create', 'include');
    await waitForJobs(t);
    expect(await t.dataSource.query(`SELECT 1 FROM kg_mentions WHERE split_part(signature, '|', 1) = 'newton'`)).not.toEqual([]);
    // The run of the edit waits on its extraction record (its last statement), held here, with its mentions written;
    // the admin creates the entity meanwhile. Before the fix the entity committed first, and the run's mentions,
    // written before it existed, stayed unlinked.
    const gate = await holdLock(t.dataSource, 'SELECT 1 FROM kg_page_extractions WHERE page_id = (SELECT id FROM pages WHERE slug = $1) FOR UPDATE', [slug]);
    let created: Promise<supertest.Response>;
    try {
      await editFirstSection(slug, 'Newton is old. Newton builds a site in a minute.');
      if (ON_POSTGRES) await waitFor('the run to wait on its record', async () => (await gate.waiting()) >= 1);
      let settled = false;
      created = admin.post(`${BASE}/entities`).send({ name: 'Newton', type: 'technology' }).then((r) => {
        settled = true;
        return r;
      });
      if (ON_POSTGRES) await waitFor('the entity to be created, or to wait for the run', async () => settled || (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    expect((await created!).status).toBe(201);
    await waitForJobs(t);
    const unlinked = await t.dataSource.query(`SELECT 1 FROM kg_mentions WHERE node_id IS NULL AND split_part(signature, '|', 1) = 'newton'`);
    expect(unlinked).toEqual([]);
  });
});
