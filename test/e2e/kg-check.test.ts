import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEMBED_QUEUE } from '../../src/kg/kg-extraction-queue.service.js';
import { INVARIANT_NAMES } from '../../src/consistency/kg-invariants.js';
import { csrfTokenIn, startTestApp, type TestApp } from '../support/test-app.js';
import { count, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const HEALTH = '/admin/kg-policy/health';

interface Invariant { name: string; count: number; examples: string[]; repairable: boolean; ok: boolean }
interface Report { ok: boolean; findings: number; summary: string; invariants: Invariant[] }

/**
 * The consistency checker over HTTP on a real database: a small wiki is extracted and approved, then each invariant
 * is broken with SQL, found by GET /admin/kg-policy/health, and repaired by POST …/repair where it can be.
 */
describe('kurate kg check: the consistency checker', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  const report = async (): Promise<Report> => (await admin.get(HEALTH).expect(200)).body;
  const invariant = async (name: string): Promise<Invariant> => (await report()).invariants.find((i) => i.name === name)!;
  const repair = async () => (await admin.post(`${HEALTH}/repair`).send({}).expect(200)).body;
  const one = async (sql: string, params: unknown[] = []): Promise<string> => {
    const rows: { id: string }[] = await t.dataSource.query(sql, params);
    expect(rows.length).toBeGreaterThan(0);
    return rows[0].id;
  };
  const waitAll = async () => {
    await waitForJobs(t);
    await waitForJobs(t, { queue: REEMBED_QUEUE });
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_JOB_POLL_SECONDS: '0.5' } });
    admin = await t.as('admin', { name: 'Grace' });
    const pages: [string, string, string][] = [
      ['Install', 'docs', 'Install the [[Kurate Server]] on [[Debian]] with [[PostgreSQL]]. The Kurate Server needs PostgreSQL and Node.'],
      ['Upgrade', 'docs', 'Upgrade the [[Kurate Server]] after a [[PostgreSQL]] backup.\n\n## Rollback\n\nRestore the PostgreSQL backup on [[Debian]], then start the Kurate Server again.'],
      ['Backup', 'docs', '# Backup\n\nBack up [[PostgreSQL]] with pg_dump.\n\n## Restore\n\nRestore with pg_restore on [[Debian]] and check the [[Kurate Server]].'],
      ['Payroll', 'secret', 'The [[Payroll System]] runs on [[Debian]] and pays [[Ada Lovelace]].'],
    ];
    for (const [title, cluster, body] of pages) {
      await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\n${body}\n` }).expect(201);
    }
    await setPolicy(admin, 'docs', 'include');
    await setPolicy(admin, 'secret', 'include');
    await startWorker(t);
    await waitForJobs(t);
    // Everything proposed is approved; then the secret cluster is excluded and purged (a hard exclude).
    await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'approve', minConfidence: 0 }).expect(200);
    await setPolicy(admin, 'secret', 'exclude');
    await admin.post('/admin/kg-policy/clusters/secret/purge').send({ dryRun: false, confirm: 'secret' }).expect(200);
    await waitAll();
  }, 120_000);
  afterAll(() => t?.close());

  it('finds nothing in a wiki that was extracted, approved and purged', async () => {
    expect(await count(t, 'SELECT count(*) FROM kg_nodes')).toBeGreaterThanOrEqual(3);
    expect(await count(t, `SELECT count(*) FROM kg_edges WHERE kind = 'co_mention'`)).toBeGreaterThan(0);
    const health = await report();
    expect(health.invariants.map((i) => i.name)).toEqual([...INVARIANT_NAMES]);
    expect(health.invariants.filter((i) => !i.ok)).toEqual([]);
    expect(health).toMatchObject({ ok: true, findings: 0, summary: `All ${INVARIANT_NAMES.length} invariants hold.` });
  });

  it('is for admins only, and a repair from a form needs the CSRF token', async () => {
    await (await t.as('author')).get(HEALTH).expect(403);
    await t.http.get(HEALTH).expect(401);
    await (await t.as('author')).post(`${HEALTH}/repair`).send({}).expect(403);
    const { agent } = await t.login(await t.user('admin', { name: 'Grace' }));
    await agent.post('/admin/kg-policy/ui/health/repair').type('form').send({}).expect(403);
  });

  it('finds a gap in a page’s chunk positions, and repairs it by extracting the page again', async () => {
    const chunk = await one(`SELECT c.id::text AS id FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = 'upgrade' ORDER BY c.position DESC LIMIT 1`);
    await t.dataSource.query('UPDATE kg_content_chunks SET position = position + 5 WHERE id = $1', [chunk]);
    const found = await invariant('chunk_positions');
    expect(found).toMatchObject({ count: 1, repairable: true });
    expect(found.examples[0]).toMatch(/^page upgrade: \d+ chunks at positions \d+…\d+, \d+ distinct$/);
    const done = await repair();
    expect(done.repair).toMatchObject({ repaired: { chunk_positions: 1 }, pagesEnqueued: 1 });
    await waitAll();
    expect(await report()).toMatchObject({ ok: true });
    expect(await count(t, `SELECT max(c.position) - count(*) + 1 FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = 'upgrade'`)).toBe(0);
  });

  it('finds a record whose chunk count is out of step, and recounts it', async () => {
    await t.dataSource.query(`UPDATE kg_page_extractions SET chunk_count = chunk_count + 2 WHERE page_id = (SELECT id FROM pages WHERE slug = 'install')`);
    const found = await invariant('chunk_counts');
    expect(found.count).toBe(1);
    expect(found.examples[0]).toMatch(/^page install: the record counts \d+ chunks, \d+ stored$/);
    const done = await repair();
    expect(done.after.invariants.find((i: Invariant) => i.name === 'chunk_counts').count).toBe(0);
    await waitAll();
    expect(await report()).toMatchObject({ ok: true });
  });

  it('finds an included page whose chunks were lost (as after a bad restore), and extracts it again', async () => {
    await t.dataSource.query(`DELETE FROM kg_content_chunks WHERE page_id = (SELECT id FROM pages WHERE slug = 'backup')`);
    const health = await report();
    expect(health.invariants.find((i) => i.name === 'chunk_counts')!.examples).toEqual([expect.stringMatching(/^page backup: the record counts \d+ chunks, 0 stored \(the page is included\)$/)]);
    // Its support and mentions went with the chunks: counts and co-mentions are off too.
    expect(health.invariants.find((i) => i.name === 'proposal_support_counts')!.count).toBeGreaterThan(0);
    await repair();
    await waitAll();
    expect((await report()).invariants.filter((i) => !i.ok)).toEqual([]);
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = 'backup'`)).toBeGreaterThan(0);
  });

  it('recounts a proposal’s support and retires a pending proposal without any', async () => {
    const proposal = await one(`SELECT id::text AS id FROM kg_proposals WHERE support_count > 0 ORDER BY id LIMIT 1`);
    await t.dataSource.query('UPDATE kg_proposals SET support_count = support_count + 3 WHERE id = $1', [proposal]);
    const ghost = await one(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, extractor, support_count)
       VALUES ('node', 'ghost|concept', 'Ghost', 'concept', 0.9, 'builtin', 0) RETURNING id::text AS id`,
    );
    expect(await invariant('proposal_support_counts')).toMatchObject({ count: 1, examples: [expect.stringContaining(`proposal ${proposal} (`)] });
    expect(await invariant('pending_proposals_supported')).toMatchObject({ count: 1, examples: [`proposal ${ghost} (node Ghost): pending with no support`] });
    const done = await repair();
    expect(done.repair.repaired).toMatchObject({ proposal_support_counts: 1, pending_proposals_supported: 1 });
    expect(done.repair.actions).toContain('Retired 1 pending proposal with no support.');
    expect(done.after.ok).toBe(true);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE id = $1 AND status = 'retired'`, [ghost])).toBe(1);
  });

  it('leaves pending proposals from a graph file or an agent alone: they never had page support, and only a person reviews them', async () => {
    // Before, the check counted them and its repair retired them unreviewed (found by a hostile-input audit).
    const imported = await admin.post('/admin/knowledge-graph/import').send({
      mode: 'pending', reason: 'from a file',
      graph: { nodes: [{ id: 'a', name: 'Filed Alpha', type: 'concept' }, { id: 'b', name: 'Filed Beta', type: 'concept' }], edges: [{ source: 'a', target: 'b', predicate: 'uses' }] },
    }).expect(200);
    await t.dataSource.query(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, extractor, support_count)
       VALUES ('node', 'agent idea|concept', 'Agent Idea', 'concept', 0.7, 'agent', 0)`,
    );
    const fromOutside = `SELECT count(*) FROM kg_proposals WHERE status = 'pending' AND extractor IN ('import', 'agent')`;
    expect(await count(t, fromOutside)).toBe(4);
    expect(await invariant('pending_proposals_supported')).toMatchObject({ count: 0 });
    const done = await repair();
    expect(done.repair.repaired).toMatchObject({ pending_proposals_supported: 0 });
    expect(await count(t, fromOutside)).toBe(4);
  });

  it('weighs co-mentions again, adds a missing one and removes one that shares no chunk', async () => {
    const edge = await one(`SELECT id::text AS id FROM kg_edges WHERE kind = 'co_mention' ORDER BY id LIMIT 1`);
    await t.dataSource.query('UPDATE kg_edges SET weight = weight + 5 WHERE id = $1', [edge]);
    const missing: { id: string }[] = await t.dataSource.query(
      `SELECT id::text AS id FROM kg_edges WHERE kind = 'co_mention' AND id <> $1 ORDER BY id DESC LIMIT 1`,
      [edge],
    );
    if (missing.length > 0) await t.dataSource.query('DELETE FROM kg_edges WHERE id = $1', [missing[0].id]);
    const lonely = await one(
      `INSERT INTO kg_nodes (signature, name, node_type, origin, created_by) VALUES ('lonely|concept', 'Lonely', 'concept', 'manual', 'test') RETURNING id::text AS id`,
    );
    await t.dataSource.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT least(n.id, $1::bigint), greatest(n.id, $1::bigint), 'co_mention', 'co_mention', 1, 'extracted', 'test'
         FROM kg_nodes n WHERE n.origin = 'extracted' ORDER BY n.id LIMIT 1`,
      [lonely],
    );
    const found = await invariant('co_mention_weights');
    expect(found.count).toBe(missing.length + 2);
    expect(found.examples.join('\n')).toMatch(/shares no chunk/);
    expect(found.examples.join('\n')).toMatch(/but have no co-mention edge/);
    const done = await repair();
    expect(done.repair.repaired.co_mention_weights).toBe(missing.length + 2);
    expect(done.after.ok).toBe(false);
    // The lonely entity has no vector (made by SQL): the re-embedding was enqueued for it.
    expect(done.repair.reembedEnqueued).toBe(true);
    await waitAll();
    expect(await report()).toMatchObject({ ok: true });
    await t.dataSource.query('DELETE FROM kg_nodes WHERE id = $1', [lonely]);
  });

  it('finds mentions a variant of an entity’s or a pending proposal’s name left unlinked (as before 2026-12-04), and links them', async () => {
    // As extraction wrote them when a page was extracted before anyone proposed the name: under another spelling.
    const [server] = await t.dataSource.query(`SELECT id::text AS id, signature FROM kg_nodes WHERE name = 'Kurate Server'`);
    const chunk = await one(
      `SELECT c.id::text AS id FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id
        WHERE p.slug = 'install' AND EXISTS (SELECT 1 FROM kg_mentions m WHERE m.chunk_id = c.id AND m.node_id = $1) ORDER BY c.position LIMIT 1`,
      [server.id],
    );
    await t.dataSource.query(`DELETE FROM kg_mentions WHERE chunk_id = $1 AND node_id = $2`, [chunk, server.id]);
    await t.dataSource.query(`INSERT INTO kg_mentions (chunk_id, signature, surface, confidence) VALUES ($1, 'kurate servers|product', 'Kurate Servers', 0.4)`, [chunk]);
    // And one for a pending proposal, under a plural and another type.
    const [pending] = await t.dataSource.query(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, evidence_quote, extractor, model, support_count)
       VALUES ('node', 'node runtime|technology', 'Node Runtime', 'technology', 0.7, 'Node', 'builtin', 'm', 1) RETURNING id::text AS id`,
    );
    await t.dataSource.query(
      `INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote, confidence) SELECT $1, c.id, c.page_id, 'Node', 0.7 FROM kg_content_chunks c WHERE c.id = $2`,
      [pending.id, chunk],
    );
    await t.dataSource.query(`INSERT INTO kg_mentions (chunk_id, signature, surface, confidence) VALUES ($1, 'node runtimes|concept', 'node runtimes', 0.3)`, [chunk]);

    const found = await invariant('mentions_named');
    expect(found.count).toBe(2);
    expect(found.examples.join('\n')).toMatch(/kurate servers\|product names entity \d+ \(Kurate Server\)/);
    expect(found.examples.join('\n')).toMatch(/names the pending proposal node runtime\|technology/);
    const done = await repair();
    expect(done.repair.repaired.mentions_named).toBe(2);
    const mentions = await t.dataSource.query(`SELECT signature, node_id::text AS node FROM kg_mentions WHERE chunk_id = $1 ORDER BY signature`, [chunk]);
    expect(mentions).toEqual(expect.arrayContaining([
      { signature: 'kurate servers|product', node: server.id },
      { signature: 'node runtime|technology', node: null },
    ]));
    expect(done.after.invariants.find((i: Invariant) => i.name === 'mentions_named').count).toBe(0);
    await t.dataSource.query(`DELETE FROM kg_mentions WHERE signature = 'node runtime|technology'`);
    await t.dataSource.query(`DELETE FROM kg_proposals WHERE id = $1`, [pending.id]);
    expect(await report()).toMatchObject({ ok: true });
  });

  it('finds a provenance row naming a proposal that is not approved (an admin decides; repair leaves it)', async () => {
    const proposal = await one(`SELECT proposal_id::text AS id FROM kg_node_provenance ORDER BY proposal_id LIMIT 1`);
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'rejected' WHERE id = $1`, [proposal]);
    const found = await invariant('provenance_approved');
    expect(found).toMatchObject({ count: 1, repairable: false });
    expect(found.examples[0]).toMatch(new RegExp(`^node \\d+ \\(.+\\) names proposal ${proposal}, a rejected node proposal$`));
    const done = await repair();
    expect(done.after.invariants.find((i: Invariant) => i.name === 'provenance_approved').count).toBe(1);
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'approved' WHERE id = $1`, [proposal]);
    expect(await report()).toMatchObject({ ok: true });
  });

  it('names a restore whose load committed but whose rebuild never finished (a server already running does not finish it)', async () => {
    await t.dataSource.query(`INSERT INTO restore_rebuild_owed (file, checksum, archive_created_at, loaded_at) VALUES ('wiki.kbk', 'abc', '2026-12-01T10:00:00.000Z', '2026-12-07T06:00:00Z')`);
    try {
      const found = await invariant('restore_finished');
      expect(found).toMatchObject({ count: 1, repairable: false, ok: false });
      expect(found.examples).toEqual([
        'the restore of wiki.kbk (taken 2026-12-01T10:00:00.000Z) loaded at 2026-12-07T06:00:00Z and never finished its rebuild: restart the server, or run kurate restore with that archive again, to finish it',
      ]);
      // Only the restore itself, or a server's start, may finish it: the repair leaves it.
      const done = await repair();
      expect(done.after.invariants.find((i: Invariant) => i.name === 'restore_finished').count).toBe(1);
    } finally {
      await t.dataSource.query('DELETE FROM restore_rebuild_owed');
    }
    expect(await report()).toMatchObject({ ok: true });
  });

  it('finds an extracted entity that stands on nothing, and the edges that touch it or a merged entity', async () => {
    const orphan = await one(
      `INSERT INTO kg_nodes (signature, name, node_type, origin, created_by) VALUES ('orphan|concept', 'Orphan', 'concept', 'extracted', 'test') RETURNING id::text AS id`,
    );
    const [a, b] = (await t.dataSource.query(`SELECT id::text AS id, signature FROM kg_nodes WHERE origin = 'extracted' AND id <> $1 ORDER BY id LIMIT 2`, [orphan])) as { id: string; signature: string }[];
    await t.dataSource.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by) VALUES ($1, $2, 'typed', 'uses', 1, 'manual', 'test')`,
      [a.id, orphan],
    );
    expect(await invariant('derived_rows_grounded')).toMatchObject({ count: 1, examples: [`node ${orphan} (Orphan): extracted, but no provenance and no mention`] });
    expect((await invariant('edges_to_merged_or_retired_nodes')).examples).toEqual([expect.stringMatching(/touches Orphan \(stands on nothing\)$/)]);
    // `a` merged into `b`, yet still standing: every edge of `a` is reported.
    await t.dataSource.query(`INSERT INTO kg_node_signatures (signature, node_id, reason) VALUES ($1, $2, 'merged')`, [a.signature, b.id]);
    const edges = await invariant('edges_to_merged_or_retired_nodes');
    expect(edges.count).toBe(await count(t, 'SELECT count(*) FROM kg_edges WHERE $1 IN (source_node_id, target_node_id)', [a.id]));
    expect(edges.examples.join('\n')).toContain(`(merged into node ${b.id})`);
    const done = await repair();
    expect(done.after.invariants.find((i: Invariant) => i.name === 'edges_to_merged_or_retired_nodes').count).toBe(edges.count);
    expect(await count(t, 'SELECT count(*) FROM kg_nodes WHERE id = $1', [orphan])).toBe(1);
    await t.dataSource.query('DELETE FROM kg_node_signatures WHERE signature = $1', [a.signature]);
    await t.dataSource.query('DELETE FROM kg_nodes WHERE id = $1', [orphan]);
    expect(await report()).toMatchObject({ ok: true });
  });

  it('finds rows derived from a page of a purged cluster', async () => {
    await t.dataSource.query(
      `INSERT INTO kg_content_chunks (page_id, position, text, content_hash) SELECT id, 0, 'The payroll', 'h' FROM pages WHERE slug = 'payroll'`,
    );
    const found = await invariant('purged_cluster_rows');
    expect(found).toMatchObject({ count: 1, repairable: false, examples: ['page payroll (purged cluster secret): 1 chunk(s), 0 proposal support row(s)'] });
    await t.dataSource.query(`DELETE FROM kg_content_chunks WHERE page_id = (SELECT id FROM pages WHERE slug = 'payroll')`);
    expect(await report()).toMatchObject({ ok: true });
    // Included again, the cluster is no longer hard-excluded: its pages are extracted again and that is fine.
    await setPolicy(admin, 'secret', 'include');
    await waitAll();
    expect(await report()).toMatchObject({ ok: true });
    await setPolicy(admin, 'secret', 'exclude');
    expect(await report()).toMatchObject({ ok: true });
  });

  it('finds chunks and entities without a vector from the current model, and enqueues the re-embedding', async () => {
    const chunk = await one(`SELECT c.id::text AS id FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = 'install' LIMIT 1`);
    await t.dataSource.query('UPDATE kg_content_chunks SET embedding = NULL, embedding_model = NULL, embedding_dims = NULL WHERE id = $1', [chunk]);
    const node = await one(`SELECT node_id::text AS id FROM kg_node_embeddings ORDER BY node_id LIMIT 1`);
    await t.dataSource.query(`UPDATE kg_node_embeddings SET model = 'old-model' WHERE node_id = $1`, [node]);
    expect(await invariant('chunk_embeddings')).toMatchObject({ count: 1, examples: ['page install: 1 chunk(s) without a vector'] });
    expect(await invariant('node_embeddings')).toMatchObject({ count: 1, examples: [expect.stringMatching(new RegExp(`^node ${node} \\(.+\\): no vector from `))] });
    const done = await repair();
    expect(done.repair).toMatchObject({ reembedEnqueued: true });
    expect(done.repair.actions).toContain('Enqueued the background re-embedding with the current model.');
    await waitAll();
    expect(await report()).toMatchObject({ ok: true });
  });

  it('writes every repair to the audit log', async () => {
    const rows: { actor_name: string; details: { repaired: Record<string, number> } }[] = await t.dataSource.query(
      `SELECT actor_name, details FROM audit_log WHERE action = 'kg.check.repair' ORDER BY id`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows[0].actor_name).toBe('Grace');
    expect(rows[0].details.repaired).toMatchObject({ chunk_positions: 1 });
  });

  it('shows a health panel on /admin/kg-policy, and repairs from its form', async () => {
    const { agent } = await t.login(await t.user('admin', { name: 'Grace' }));
    const healthy = (await agent.get('/admin/kg-policy').expect(200)).text;
    expect(healthy).toContain('<h2 id="health-heading">Health</h2>');
    expect(healthy).toContain(`All ${INVARIANT_NAMES.length} invariants hold.`);
    expect(healthy).not.toContain('/admin/kg-policy/ui/health/repair');

    await t.dataSource.query('UPDATE kg_proposals SET support_count = support_count + 1 WHERE id = (SELECT min(id) FROM kg_proposals)');
    const sick = (await agent.get('/admin/kg-policy').expect(200)).text;
    expect(sick).toContain(`1 finding in 1 invariant of ${INVARIANT_NAMES.length}: proposal_support_counts (1); all of them repairable with --repair.`);
    expect(sick).toContain('<code>proposal_support_counts</code>: 1');
    const full = (await agent.get('/admin/kg-policy/ui/health').expect(200)).text;
    expect(full).toMatch(/<li>proposal \d+ \(.+\): support_count \d+, \d+ support rows<\/li>/);
    const repaired = await agent.post('/admin/kg-policy/ui/health/repair').type('form').send({ _csrf: csrfTokenIn(sick) }).expect(200);
    expect(repaired.text).toContain('<li>Recounted the support of 1 proposal.</li>');
    expect(repaired.text).toContain(`All ${INVARIANT_NAMES.length} invariants hold.`);
  });
});
