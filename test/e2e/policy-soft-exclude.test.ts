import type supertest from 'supertest';
import type { EntityManager } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Real knowledge-graph rows for pages in two clusters (personal, work) and entities supported by both, inserted
 * directly (extraction does not exist yet), then soft-excluded, re-included and purged through the REST API.
 */
const VIEWS = [
  'kg_visible_pages', 'kg_visible_chunks', 'kg_visible_mentions', 'kg_visible_proposal_support', 'kg_visible_proposals',
  'kg_visible_nodes', 'kg_visible_edges',
] as const;
const TABLES = [
  'kg_content_chunks', 'kg_mentions', 'kg_proposals', 'kg_proposal_support', 'kg_nodes', 'kg_node_embeddings', 'kg_node_provenance',
  'kg_edges', 'kg_edge_provenance', 'kg_rejections', 'kg_excluded_pages', 'kg_cluster_policy',
] as const;

interface Fixture {
  pages: Record<'diary' | 'trip' | 'roadmap' | 'infra', string>;
  chunks: Record<string, string>;
  nodes: Record<'alice' | 'paris' | 'k8s' | 'handmade' | 'orphan', string>;
  proposals: Record<string, string>;
  edges: Record<string, string>;
}

describe('soft exclude, re-include and purge on real knowledge-graph rows', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let kg: Fixture;

  const readAllViews = async (views: readonly string[] = VIEWS) => {
    const out: Record<string, unknown[]> = {};
    for (const view of views) {
      const order = view === 'kg_visible_proposal_support' ? 'proposal_id, chunk_id' : 'id';
      out[view] = await t.dataSource.query(`SELECT * FROM ${view} ORDER BY ${order}`);
    }
    return JSON.stringify(out);
  };
  const visibleIds = async (view: string) =>
    ((await t.dataSource.query(`SELECT id::text FROM ${view} ORDER BY id`)) as { id: string }[]).map((r) => r.id);
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const table of TABLES) out[table] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
    return out;
  };
  const setPolicy = (cluster: string, action: string) =>
    admin.put(`/admin/kg-policy/clusters/${cluster}`).send({ action, reason: `${action} for the test` }).expect(200);

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    const pageId = async (title: string, cluster: string) =>
      (await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nAbout ${title}.\n` }).expect(201)).body.id as string;
    const pages = {
      diary: await pageId('Diary', 'personal'),
      trip: await pageId('Trip', 'personal'),
      roadmap: await pageId('Roadmap', 'work'),
      infra: await pageId('Infra', 'work'),
    };
    kg = await t.dataSource.transaction((tx) => insertKnowledgeGraph(tx, pages));
    await setPolicy('personal', 'include');
    await setPolicy('work', 'include');
  });
  afterAll(() => t.close());

  it('shows everything while both clusters are included', async () => {
    expect(await visibleIds('kg_visible_nodes')).toEqual(Object.values(kg.nodes).sort(byNumber));
    expect(await visibleIds('kg_visible_edges')).toEqual(Object.values(kg.edges).sort(byNumber));
    expect(await visibleIds('kg_visible_proposals')).toEqual(Object.values(kg.proposals).sort(byNumber));
    expect(await visibleIds('kg_visible_chunks')).toHaveLength(8);
  });

  it('soft exclude hides at once what derives only from the excluded pages, and keeps what other pages support', async () => {
    const estimate = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'personal', action: 'exclude' }).expect(200);
    const before = await counts();
    await setPolicy('personal', 'exclude');
    expect(await counts()).toEqual({ ...before, kg_excluded_pages: before.kg_excluded_pages + 2 });

    expect(await visibleIds('kg_visible_pages')).toEqual([kg.pages.infra, kg.pages.roadmap].sort());
    expect(await visibleIds('kg_visible_chunks')).toEqual([kg.chunks.roadmap1, kg.chunks.roadmap2, kg.chunks.infra1, kg.chunks.infra2].sort(byNumber));
    // alice stands only on personal pages; paris and k8s are also on work pages; the hand-made and unsupported ones stand alone.
    expect(await visibleIds('kg_visible_nodes')).toEqual([kg.nodes.paris, kg.nodes.k8s, kg.nodes.handmade, kg.nodes.orphan].sort(byNumber));
    expect(await visibleIds('kg_visible_edges')).toEqual([kg.edges.parisK8sCoMention, kg.edges.parisUsesK8s, kg.edges.handmade].sort(byNumber));
    expect(await visibleIds('kg_visible_proposals')).toEqual(
      [kg.proposals.paris, kg.proposals.parisUsesK8s, kg.proposals.pendingWork, kg.proposals.pendingShared, kg.proposals.imported].sort(byNumber));
    const supportPages: { page_id: string }[] = await t.dataSource.query('SELECT DISTINCT page_id FROM kg_visible_proposal_support ORDER BY page_id');
    expect(supportPages.map((r) => r.page_id)).toEqual([kg.pages.infra, kg.pages.roadmap].sort());
    const mentionChunks: { chunk_id: string }[] = await t.dataSource.query('SELECT DISTINCT chunk_id::text FROM kg_visible_mentions ORDER BY 1');
    expect(mentionChunks.map((r) => r.chunk_id).every((id) => [kg.chunks.roadmap1, kg.chunks.infra1].includes(id))).toBe(true);

    // The estimate (made before) counted exactly this.
    const change = Object.fromEntries(estimate.body.changes.map((c: { kind: string; hide: number; reveal: number }) => [c.kind, c]));
    expect(change).toEqual({
      pages: { kind: 'pages', hide: 2, reveal: 0 },
      chunks: { kind: 'chunks', hide: 4, reveal: 0 },
      mentions: { kind: 'mentions', hide: 4, reveal: 0 },
      proposals: { kind: 'proposals', hide: 3, reveal: 0 },
      nodes: { kind: 'nodes', hide: 1, reveal: 0 },
      edges: { kind: 'edges', hide: 2, reveal: 0 },
    });
  });

  it('re-including restores byte-identical read results, with no new row anywhere', async () => {
    await setPolicy('personal', 'include');
    const included = await readAllViews();
    await setPolicy('personal', 'exclude');
    const tablesWhileExcluded = await counts();
    expect(await readAllViews()).not.toBe(included);
    const estimate = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'personal', action: 'include' }).expect(200);
    expect(estimate.body.summary).toBe('would hide nothing; reveal 2 pages, 4 chunks, 4 mentions, 3 proposals, 1 node and 2 edges');
    await setPolicy('personal', 'include');
    expect(await readAllViews()).toBe(included);
    expect(await counts()).toEqual({ ...tablesWhileExcluded, kg_excluded_pages: tablesWhileExcluded.kg_excluded_pages - 2 });
  });

  it('a page override (kg_include: false) hides that page alone; removing it brings it back', async () => {
    // The pages view shows the edited page itself (new version), so compare the knowledge-graph views.
    const kgViews = VIEWS.filter((v) => v !== 'kg_visible_pages');
    const before = await readAllViews(kgViews);
    const current = (await admin.get('/api/pages/diary').expect(200)).body;
    await admin.put('/api/pages/diary').send({ baseVersion: current.version, body: '---\ncluster: personal\nkg_include: false\n---\nAbout Diary.\n' }).expect(200);
    expect(await visibleIds('kg_visible_chunks')).not.toContain(kg.chunks.diary1);
    expect(await visibleIds('kg_visible_chunks')).toContain(kg.chunks.trip1);
    // alice is still mentioned by Trip; the proposal only Diary supports is hidden.
    expect(await visibleIds('kg_visible_nodes')).toContain(kg.nodes.alice);
    expect(await visibleIds('kg_visible_proposals')).not.toContain(kg.proposals.pendingPersonal);
    await admin.put('/api/pages/diary').send({ baseVersion: current.version + 1, body: '---\ncluster: personal\n---\nAbout Diary.\n' }).expect(200);
    expect(await readAllViews(kgViews)).toBe(before);
  });

  it('purge deletes exactly what derives only from the cluster, and leaves the other cluster untouched', async () => {
    await setPolicy('personal', 'exclude');
    const workRows = await rowsOfWork();
    const before = await counts();
    const dry = await admin.post('/admin/kg-policy/clusters/personal/purge').send({}).expect(200);
    expect(await counts()).toEqual(before);
    const res = await admin.post('/admin/kg-policy/clusters/personal/purge').send({ dryRun: false, confirm: 'personal' }).expect(200);
    const after = await counts();

    const expected = {
      kg_content_chunks: 4, // every chunk of Diary and Trip
      kg_mentions: 4, // alice ×2, paris and the hand-made node in personal chunks
      kg_proposals: 3, // alice (approved), alice-knows-paris (approved), the pending personal one
      kg_proposal_support: 7, // every support row from Diary or Trip (4 of the deleted proposals, 3 of surviving ones)
      kg_nodes: 1, // alice
      kg_node_embeddings: 1,
      kg_node_provenance: 1,
      kg_edges: 2, // alice knows paris, and the alice–paris co-mention
      kg_edge_provenance: 1,
    };
    for (const [table, n] of Object.entries(expected)) expect(before[table] - after[table], table).toBe(n);
    expect(after.kg_rejections).toBe(before.kg_rejections);
    expect(after.kg_excluded_pages).toBe(before.kg_excluded_pages);
    const reported = Object.fromEntries(res.body.deleted.map((d: { table: string; rows: number }) => [d.table, d.rows]));
    expect(reported).toEqual(expected);
    expect(Object.fromEntries(dry.body.deleted.map((d: { table: string; rows: number }) => [d.table, d.rows]))).toEqual(expected);

    // Work's rows are byte-identical; paris and the shared proposals survive on work's support alone.
    expect(await rowsOfWork()).toEqual(workRows);
    expect(await visibleIds('kg_visible_nodes')).toEqual([kg.nodes.paris, kg.nodes.k8s, kg.nodes.handmade, kg.nodes.orphan].sort(byNumber));
    const shared: { support_count: number }[] = await t.dataSource.query('SELECT support_count FROM kg_proposals WHERE id = $1', [kg.proposals.pendingShared]);
    expect(shared[0].support_count).toBe(1);
    const uses: { support_count: number }[] = await t.dataSource.query('SELECT support_count FROM kg_proposals WHERE id = $1', [kg.proposals.parisUsesK8s]);
    expect(uses[0].support_count).toBe(1);
    // Nothing of personal is left in any table.
    const leftovers = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM kg_content_chunks WHERE page_id = ANY($1))::int AS chunks,
              (SELECT count(*) FROM kg_proposal_support WHERE page_id = ANY($1))::int AS support`,
      [[kg.pages.diary, kg.pages.trip]],
    );
    expect(leftovers).toEqual([{ chunks: 0, support: 0 }]);
    // Re-including cannot bring purged rows back (extraction will have to read the pages again).
    await setPolicy('personal', 'include');
    expect(await visibleIds('kg_visible_nodes')).not.toContain(kg.nodes.alice);
  });

  async function rowsOfWork(): Promise<string> {
    const work = [kg.pages.roadmap, kg.pages.infra];
    const rows = {
      chunks: await t.dataSource.query('SELECT * FROM kg_content_chunks WHERE page_id = ANY($1) ORDER BY id', [work]),
      support: await t.dataSource.query('SELECT * FROM kg_proposal_support WHERE page_id = ANY($1) ORDER BY proposal_id, chunk_id', [work]),
      mentions: await t.dataSource.query(
        'SELECT m.* FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id WHERE c.page_id = ANY($1) ORDER BY m.id', [work]),
      nodes: await t.dataSource.query('SELECT * FROM kg_nodes WHERE id = ANY($1) ORDER BY id', [[kg.nodes.paris, kg.nodes.k8s]]),
      edges: await t.dataSource.query('SELECT * FROM kg_edges WHERE id = ANY($1) ORDER BY id', [[kg.edges.parisUsesK8s]]),
      proposals: await t.dataSource.query('SELECT * FROM kg_proposals WHERE id = ANY($1) ORDER BY id', [[kg.proposals.pendingWork]]),
    };
    return JSON.stringify(rows);
  }
});

function byNumber(a: string, b: string): number {
  return Number(a) - Number(b);
}

/** The graph: alice (personal only), paris (personal and work), k8s (work only), a hand-made node and an unsupported one. */
async function insertKnowledgeGraph(tx: EntityManager, pages: Fixture['pages']): Promise<Fixture> {
  const one = async (sql: string, params: unknown[]) => ((await tx.query(`${sql} RETURNING id::text`, params)) as { id: string }[])[0].id;
  const chunks: Record<string, string> = {};
  for (const [name, pageId] of Object.entries(pages)) {
    for (const position of [1, 2]) {
      chunks[`${name}${position}`] = await one(
        `INSERT INTO kg_content_chunks (page_id, position, heading_path, text, content_hash, embedding, embedding_model, embedding_dims, search)
         VALUES ($1, $2, $3, $4, md5($4), $5::vector, 'test-embedder', 3, to_tsvector('english', $4))`,
        [pageId, position, ['Notes'], `Chunk ${position} of ${name}: Alice went to Paris; Kubernetes runs there.`, `[${position},0.5,${name.length}]`],
      );
    }
  }
  const node = (signature: string, name: string, type: string, origin = 'extracted') =>
    one(`INSERT INTO kg_nodes (signature, name, node_type, origin, created_by) VALUES ($1, $2, $3, $4, 'test')`, [signature, name, type, origin]);
  const nodes = {
    alice: await node('alice|person', 'Alice', 'person'),
    paris: await node('paris|place', 'Paris', 'place'),
    k8s: await node('kubernetes|technology', 'Kubernetes', 'technology'),
    handmade: await node('wiki-team|organization', 'Wiki team', 'organization', 'manual'),
    orphan: await node('unsupported|concept', 'Unsupported', 'concept'),
  };
  for (const id of [nodes.alice, nodes.paris]) {
    await tx.query(`INSERT INTO kg_node_embeddings (node_id, model, dims, embedding) VALUES ($1, 'test-embedder', 3, '[1,2,3]')`, [id]);
  }
  const mention = (chunk: string, signature: string, nodeId: string | null, surface: string) =>
    one('INSERT INTO kg_mentions (chunk_id, signature, node_id, surface, confidence) VALUES ($1, $2, $3, $4, 0.9)', [chunk, signature, nodeId, surface]);
  await mention(chunks.diary1, 'alice|person', nodes.alice, 'Alice');
  await mention(chunks.diary1, 'paris|place', nodes.paris, 'Paris');
  await mention(chunks.trip1, 'alice|person', nodes.alice, 'Alice');
  await mention(chunks.trip1, 'wiki-team|organization', nodes.handmade, 'the wiki team');
  await mention(chunks.roadmap1, 'paris|place', nodes.paris, 'Paris');
  await mention(chunks.roadmap1, 'kubernetes|technology', nodes.k8s, 'Kubernetes');
  await mention(chunks.infra1, 'kubernetes|technology', nodes.k8s, 'k8s');
  await mention(chunks.infra1, 'helm|technology', null, 'Helm');

  const proposal = async (kind: 'node' | 'edge', signature: string, status: string, support: string[], extra: Record<string, string> = {}) => {
    const id = await one(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, source_signature, predicate, target_signature, confidence, evidence_quote,
                                 support_count, status, extractor, model)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0.8, 'a quote', $8, $9, 'builtin', NULL)`,
      [kind, signature, extra.name ?? null, extra.type ?? null, extra.source ?? null, extra.predicate ?? null, extra.target ?? null, support.length, status],
    );
    for (const chunk of support) {
      await tx.query(
        `INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote)
         SELECT $1, c.id, c.page_id, left(c.text, 20) FROM kg_content_chunks c WHERE c.id = $2`,
        [id, chunk],
      );
    }
    return id;
  };
  const proposals = {
    alice: await proposal('node', 'alice|person', 'approved', [chunks.diary1, chunks.trip1], { name: 'Alice', type: 'person' }),
    paris: await proposal('node', 'paris|place', 'approved', [chunks.diary1, chunks.roadmap1], { name: 'Paris', type: 'place' }),
    aliceKnowsParis: await proposal('edge', 'alice|person>related_to>paris|place', 'approved', [chunks.diary1],
      { source: 'alice|person', predicate: 'related_to', target: 'paris|place' }),
    parisUsesK8s: await proposal('edge', 'paris|place>uses>kubernetes|technology', 'approved', [chunks.trip2, chunks.infra2],
      { source: 'paris|place', predicate: 'uses', target: 'kubernetes|technology' }),
    pendingPersonal: await proposal('node', 'diary|concept', 'pending', [chunks.diary2], { name: 'Diary', type: 'concept' }),
    pendingWork: await proposal('node', 'roadmap|concept', 'pending', [chunks.roadmap2], { name: 'Roadmap', type: 'concept' }),
    pendingShared: await proposal('node', 'travel|concept', 'pending', [chunks.trip2, chunks.roadmap2], { name: 'Travel', type: 'concept' }),
    imported: await proposal('node', 'imported|concept', 'pending', [], { name: 'Imported', type: 'concept' }),
  };
  await tx.query(`INSERT INTO kg_node_provenance (node_id, proposal_id, approved_by) VALUES ($1, $2, 'ada'), ($3, $4, 'ada')`,
    [nodes.alice, proposals.alice, nodes.paris, proposals.paris]);
  const edge = (source: string, target: string, kind: string, predicate: string, origin = 'extracted') =>
    one(`INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by) VALUES ($1, $2, $3, $4, 1, $5, 'test')`,
      [source, target, kind, predicate, origin]);
  const edges = {
    aliceKnowsParis: await edge(nodes.alice, nodes.paris, 'typed', 'related_to'),
    aliceParisCoMention: await edge(nodes.alice, nodes.paris, 'co_mention', 'co_mention'),
    parisK8sCoMention: await edge(nodes.paris, nodes.k8s, 'co_mention', 'co_mention'),
    parisUsesK8s: await edge(nodes.paris, nodes.k8s, 'typed', 'uses'),
    handmade: await edge(nodes.handmade, nodes.orphan, 'typed', 'related_to', 'manual'),
  };
  await tx.query(`INSERT INTO kg_edge_provenance (edge_id, proposal_id, approved_by) VALUES ($1, $2, 'ada'), ($3, $4, 'ada')`,
    [edges.aliceKnowsParis, proposals.aliceKnowsParis, edges.parisUsesK8s, proposals.parisUsesK8s]);
  await tx.query(`INSERT INTO kg_rejections (kind, signature, reason, rejected_by) VALUES ('node', 'nonsense|concept', 'noise', 'ada')`);
  return { pages, chunks, nodes, proposals, edges };
}
