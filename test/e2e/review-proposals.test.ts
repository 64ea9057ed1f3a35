import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgEmbeddingService } from '../../src/kg/kg-embedding.service.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';

describe('review queue API: /admin/knowledge-graph/proposals', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Grace' });
  });
  afterAll(() => t?.close());

  const proposal = async (id: string) =>
    ((await t.dataSource.query('SELECT status, reviewed_by, review_note FROM kg_proposals WHERE id = $1', [id])) as { status: string; reviewed_by: string | null; review_note: string | null }[])[0];

  describe('listing', () => {
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const docs = await kg.passage('Install Guide', 'Install PostgreSQL on Linux with apt. Redis is optional.', { headingPath: ['Setup', 'Linux'], cluster: 'docs' });
      const notes = await kg.passage('Team Notes', 'Ada Lovelace reviewed the PostgreSQL setup.', { cluster: 'notes' });
      ids.pg = await kg.nodeProposal({ name: 'PostgreSQL', type: 'technology', confidence: 0.95, support: [{ ...docs, quote: 'Install PostgreSQL on Linux' }, { ...notes, quote: 'the PostgreSQL setup' }], createdAt: '2026-01-03T00:00:00Z' });
      ids.redis = await kg.nodeProposal({ name: 'Redis', type: 'technology', confidence: 0.55, support: [{ ...docs, quote: 'Redis is optional' }], extractor: 'ollama', model: 'llama3', createdAt: '2026-01-01T00:00:00Z' });
      ids.ada = await kg.nodeProposal({ name: 'Ada Lovelace', type: 'person', confidence: 0.7, support: [{ ...notes, quote: 'Ada Lovelace' }], createdAt: '2026-01-02T00:00:00Z' });
      ids.edge = await kg.edgeProposal({ source: { name: 'Ada Lovelace', type: 'person' }, predicate: 'uses', target: { name: 'PostgreSQL', type: 'technology' }, confidence: 0.6, support: [{ ...notes, quote: 'Ada Lovelace reviewed the PostgreSQL setup' }] });
      // Supported only by a page that the policy excludes: hidden everywhere.
      const secret = await kg.page('Secret Diary', { body: 'Hidden Thing lives here.', include: false });
      const chunk = await kg.chunk(secret.id, 'Hidden Thing lives here.');
      ids.hidden = await kg.nodeProposal({ name: 'Hidden Thing', confidence: 0.99, support: [{ chunkId: chunk, pageId: secret.id, quote: 'Hidden Thing' }] });
    });

    const list = async (query: string) => {
      const res = await admin.get(`${BASE}/proposals?${query}`).expect(200);
      return res.body as { items: { id: string; name: string | null }[]; total: number; nextCursor: string | null; prevCursor: string | null };
    };
    const names = (body: { items: { id: string }[] }) => body.items.map((i) => Object.entries(ids).find(([, id]) => id === i.id)?.[0]);

    it('lists pending proposals, most confident first, without what only an excluded page supports', async () => {
      const body = await list('');
      expect(names(body)).toEqual(['pg', 'ada', 'edge', 'redis']);
      expect(body.total).toBe(4);
      expect(body.nextCursor).toBeNull();
      await admin.get(`${BASE}/proposals/${ids.hidden}`).expect(404);
    });

    it('sorts by confidence, support or age, either way', async () => {
      expect(names(await list('sort=confidence&direction=asc'))).toEqual(['redis', 'edge', 'ada', 'pg']);
      expect(names(await list('sort=support'))[0]).toBe('pg');
      expect(names(await list('sort=age')).slice(0, 3)).toEqual(['redis', 'ada', 'pg']);
      expect(names(await list('sort=age&direction=desc'))[0]).toBe('edge');
    });

    it('filters by kind, type, predicate, cluster, page, extractor, confidence range and name', async () => {
      expect(names(await list('kind=edge'))).toEqual(['edge']);
      expect(names(await list('type=technology'))).toEqual(['pg', 'redis']);
      expect(names(await list('predicate=uses'))).toEqual(['edge']);
      expect(names(await list('cluster=notes'))).toEqual(['pg', 'ada', 'edge']);
      expect(names(await list('page=install-guide'))).toEqual(['pg', 'redis']);
      expect(names(await list('extractor=ollama'))).toEqual(['redis']);
      expect(names(await list('minConfidence=0.6&maxConfidence=0.9'))).toEqual(['ada', 'edge']);
      expect(names(await list('q=lovelace'))).toEqual(['ada', 'edge']);
      expect((await list('type=technology&extractor=nobody')).items).toEqual([]);
    });

    it('pages with keyset cursors, forwards and back, with nothing missed or repeated', async () => {
      const first = await list('limit=3');
      expect(names(first)).toEqual(['pg', 'ada', 'edge']);
      expect(first.prevCursor).toBeNull();
      const second = await list(`limit=3&after=${first.nextCursor}`);
      expect(names(second)).toEqual(['redis']);
      expect(second.nextCursor).toBeNull();
      const back = await list(`limit=3&before=${second.prevCursor}`);
      expect(names(back)).toEqual(['pg', 'ada', 'edge']);
      expect(back.prevCursor).toBeNull();
      const byAge = await list('sort=age&limit=2');
      const rest = await list(`sort=age&limit=2&after=${byAge.nextCursor}`);
      expect([...names(byAge), ...names(rest)]).toEqual(['redis', 'ada', 'pg', 'edge']);
    });

    it('shows the evidence: the quote inside its chunk, the heading, a link to that place, every supporting page', async () => {
      const res = await admin.get(`${BASE}/proposals/${ids.pg}`).expect(200);
      const install = res.body.evidence.find((e: { slug: string }) => e.slug === 'install-guide');
      expect(install.highlight).toEqual({ before: '', match: 'Install PostgreSQL on Linux', after: ' with apt. Redis is optional.', found: true });
      expect(install.heading).toBe('Setup › Linux');
      expect(install.href).toBe('/page/install-guide#linux');
      expect(res.body.pages).toEqual([
        { slug: 'install-guide', title: 'Install Guide', href: '/page/install-guide#linux', quotes: 1, bestQuote: 'Install PostgreSQL on Linux' },
        { slug: 'team-notes', title: 'Team Notes', href: '/page/team-notes', quotes: 1, bestQuote: 'the PostgreSQL setup' },
      ]);
      expect(res.body).toMatchObject({ confidence: 0.95, extractor: 'builtin', supportCount: 2, kind: 'node', type: 'technology' });

      // Several passages of one page: the page shows its most confident quote, and links to that quote's section.
      const manual = await kg.page('Lens Manual', { body: 'Zeiss lenses. Zeiss optics are sharp.' });
      const intro = await kg.chunk(manual.id, 'Zeiss lenses.', ['Intro']);
      const optics = await kg.chunk(manual.id, 'Zeiss optics are sharp.', ['Optics']);
      const zeiss = await kg.nodeProposal({ name: 'Zeiss', type: 'organization', support: [
        { chunkId: intro, pageId: manual.id, quote: 'Zeiss lenses', confidence: 0.5 },
        { chunkId: optics, pageId: manual.id, quote: 'Zeiss optics are sharp', confidence: 0.9 },
      ] });
      const detail = await admin.get(`${BASE}/proposals/${zeiss}`).expect(200);
      expect(detail.body.pages).toEqual([{ slug: manual.slug, title: 'Lens Manual', href: `/page/${manual.slug}#optics`, quotes: 2, bestQuote: 'Zeiss optics are sharp' }]);
      const edge = await admin.get(`${BASE}/proposals/${ids.edge}`).expect(200);
      expect(edge.body.endpoints.source).toMatchObject({ name: 'Ada Lovelace', state: 'pending', proposalId: ids.ada });
      expect(edge.body.endpoints.target).toMatchObject({ name: 'PostgreSQL', state: 'pending', proposalId: ids.pg });
    });

    it('answers bad filters, sorts, limits and cursors with 400', async () => {
      for (const query of ['type=alien', 'predicate=loves', 'sort=random', 'direction=up', 'limit=0', 'limit=201', 'minConfidence=2', 'status=lost', 'kind=both', 'after=bm90LWEtY3Vyc29y', 'after=x&before=y', 'unknown=1']) {
        const res = await admin.get(`${BASE}/proposals?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.message, query).toBeTruthy();
      }
      const first = await list('limit=1');
      await admin.get(`${BASE}/proposals?sort=age&after=${first.nextCursor}`).expect(400);
      await admin.get(`${BASE}/proposals/abc`).expect(400);
      await admin.get(`${BASE}/proposals/999999`).expect(404);
    });
  });

  describe('possible duplicates', () => {
    it('shows entities with the same name or a similar one, with "merge into" doing an approval into that entity', async () => {
      const existing = await kg.node({ name: 'Kubernetes', type: 'technology' });
      const sameName = await kg.node({ name: 'Mercury', type: 'place' });
      const p = await kg.passage('Cluster Notes', 'We run Kubernetes. Mercury is a planet and a metal.');
      const kube = await kg.nodeProposal({ name: 'Kubernetess', type: 'technology', support: [{ ...p, quote: 'Kubernetes' }] });
      const mercury = await kg.nodeProposal({ name: 'Mercury', type: 'concept', support: [{ ...p, quote: 'Mercury' }] });
      const body = (await admin.get(`${BASE}/proposals?q=e`).expect(200)).body as { items: { id: string; duplicates: { nodeId: string; how: string }[] }[] };
      expect(body.items.find((i) => i.id === kube)!.duplicates).toEqual([expect.objectContaining({ nodeId: existing, how: 'similar name' })]);
      expect(body.items.find((i) => i.id === mercury)!.duplicates).toEqual([expect.objectContaining({ nodeId: sameName, how: 'same name' })]);

      const merged = await admin.post(`${BASE}/proposals/${kube}/edit-approve`).send({ intoEntityId: existing }).expect(200);
      expect(merged.body.summary).toBe('Approved node “Kubernetes” (technology) (edited) into the existing entity.');
      expect(merged.body.items).toEqual([expect.objectContaining({ proposalId: kube, nodeId: existing, createdEntity: false })]);
      const node = ((await t.dataSource.query('SELECT aliases FROM kg_nodes WHERE id = $1', [existing])) as { aliases: string[] }[])[0];
      expect(node.aliases).toEqual(['Kubernetess']);
      expect(await kg.count('kg_node_provenance', 'node_id = $1 AND proposal_id = $2', [existing, kube])).toBe(1);
      expect(await kg.count('kg_mentions', 'node_id = $1', [existing])).toBe(1);
      expect(await kg.count('kg_node_signatures', "signature = 'kubernetess|technology' AND node_id = $1", [existing])).toBe(1);
    });

    it('shows entities whose embedding is close to the proposed name (same model only, above the threshold), once each', async () => {
      const embeddings = t.app.get(KgEmbeddingService);
      const storeVector = async (nodeId: string, model: string, vector: number[]) =>
        t.dataSource.query('INSERT INTO kg_node_embeddings (node_id, model, dims, embedding) VALUES ($1, $2, $3, $4::vector)', [nodeId, model, vector.length, `[${vector.join(',')}]`]);
      // Names that share no trigram with the proposal's, so only the vectors can bring them up.
      const { model, vector } = await embeddings.embedName('Graph Database Engine', 'technology');
      const nudged = vector.map((x, i) => (i % 7 === 0 ? x * 0.9 : x));
      const close = await kg.node({ name: 'Quokka Harbour', type: 'technology' });
      await storeVector(close, model, nudged);
      const otherModel = await kg.node({ name: 'Velvet Lantern', type: 'technology' });
      await storeVector(otherModel, 'some-other-model', vector);
      const far = await kg.node({ name: 'Sourdough Starter', type: 'concept' });
      await storeVector(far, model, (await embeddings.embedName('Sourdough bread recipe for a rainy Sunday', 'concept')).vector);
      const named = await kg.node({ name: 'Graph Database Engine', type: 'concept' });
      await storeVector(named, model, vector);

      const p = await kg.passage('Storage Notes', 'Our graph database engine stores the wiki links.');
      const id = await kg.nodeProposal({ name: 'Graph Database Engine', type: 'technology', support: [{ ...p, quote: 'graph database engine' }] });
      const view = (await admin.get(`${BASE}/proposals/${id}`).expect(200)).body as { duplicates: { nodeId: string; how: string; score: number }[] };
      const byNode = new Map(view.duplicates.map((d) => [d.nodeId, d]));
      expect(byNode.get(close)).toMatchObject({ how: 'close embedding' });
      expect(byNode.get(close)!.score).toBeGreaterThanOrEqual(0.85);
      expect(byNode.get(close)!.score).toBeLessThan(1);
      // Found by its name first: listed once, as a name match.
      expect(view.duplicates.filter((d) => d.nodeId === named)).toEqual([expect.objectContaining({ how: 'same name' })]);
      expect(byNode.has(otherModel)).toBe(false);
      expect(byNode.has(far)).toBe(false);
    });
  });

  describe('approving and rejecting', () => {
    it('approves a node: the entity, its provenance, and its mentions (one per supporting chunk); audited', async () => {
      const a = await kg.passage('Rust Page', 'Rust is a language. Rust has a borrow checker.', { headingPath: ['Languages'] });
      const b = await kg.passage('Systems Page', 'Rust again, in another page.');
      const id = await kg.nodeProposal({ name: 'Rust', type: 'technology', support: [a, b], mentions: false, description: 'A language' });
      await kg.mention(a.chunkId, 'rust|technology', 'Rust', null);
      const res = await admin.post(`${BASE}/proposals/${id}/approve`).send({ note: 'looks right' }).expect(200);
      expect(res.body).toMatchObject({ status: 'approved', summary: 'Approved node “Rust” (technology) as a new entity.', skipped: [] });
      const nodeId = res.body.items[0].nodeId as string;
      const node = ((await t.dataSource.query('SELECT signature, name, node_type, description, origin, created_by FROM kg_nodes WHERE id = $1', [nodeId])) as Record<string, string>[])[0];
      expect(node).toEqual({ signature: 'rust|technology', name: 'Rust', node_type: 'technology', description: 'A language', origin: 'extracted', created_by: 'Grace' });
      expect(await kg.count('kg_node_provenance', "node_id = $1 AND proposal_id = $2 AND approved_by = 'Grace'", [nodeId, id])).toBe(1);
      expect(await kg.count('kg_mentions', 'node_id = $1', [nodeId])).toBe(2);
      expect(await proposal(id)).toEqual({ status: 'approved', reviewed_by: 'Grace', review_note: 'looks right' });
      const audit = (await t.dataSource.query(`SELECT action, target, actor_name, details FROM audit_log WHERE target = $1`, [`proposal:${id}`])) as { action: string; actor_name: string; details: { journal: string } }[];
      expect(audit).toEqual([expect.objectContaining({ action: 'kg.proposal.approve', actor_name: 'Grace', details: expect.objectContaining({ journal: res.body.actionId }) })]);
    });

    it('edits then approves a node: renamed and retyped; the proposed name stays as an alias and leads to it', async () => {
      const p = await kg.passage('JS Page', 'Java Script runs in browsers.');
      const id = await kg.nodeProposal({ name: 'Java Script', type: 'concept', support: [p] });
      const res = await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ name: 'JavaScript', type: 'technology' }).expect(200);
      expect(res.body.summary).toBe('Approved node “JavaScript” (technology) (edited) as a new entity.');
      const nodeId = res.body.items[0].nodeId;
      const node = ((await t.dataSource.query('SELECT signature, name, node_type, aliases FROM kg_nodes WHERE id = $1', [nodeId])) as Record<string, unknown>[])[0];
      expect(node).toEqual({ signature: 'javascript|technology', name: 'JavaScript', node_type: 'technology', aliases: ['Java Script'] });
      expect(await kg.count('kg_node_signatures', "signature = 'java script|concept' AND node_id = $1 AND reason = 'approved_as'", [nodeId])).toBe(1);
      expect(await kg.count('kg_mentions', 'node_id = $1', [nodeId])).toBe(1);
    });

    it('approves an edge whose endpoints are pending: they are approved with it, and it says so', async () => {
      const p = await kg.passage('Graph Page', 'Linus created Linux.');
      const linus = await kg.nodeProposal({ name: 'Linus', type: 'person', support: [p] });
      const linux = await kg.nodeProposal({ name: 'Linux', type: 'technology', support: [p] });
      const edge = await kg.edgeProposal({ source: { name: 'Linux', type: 'technology' }, predicate: 'related_to', target: { name: 'Linus', type: 'person' }, support: [p] });
      const res = await admin.post(`${BASE}/proposals/${edge}/edit-approve`).send({ predicate: 'created_by', swapDirection: false }).expect(200);
      expect(res.body.summary).toBe('Approved edge “Linux” created_by “Linus” (edited); its pending endpoints “Linux” (technology) and “Linus” (person) were approved with it.');
      const byId = Object.fromEntries(res.body.items.map((i: { proposalId: string }) => [i.proposalId, i]));
      expect(byId[linus]).toMatchObject({ withEdge: edge, createdEntity: true });
      expect(byId[linux]).toMatchObject({ withEdge: edge, createdEntity: true });
      const e = ((await t.dataSource.query('SELECT source_node_id::text AS s, target_node_id::text AS t, kind, predicate FROM kg_edges WHERE id = $1', [byId[edge].edgeId])) as Record<string, string>[])[0];
      expect(e).toEqual({ s: byId[linux].nodeId, t: byId[linus].nodeId, kind: 'typed', predicate: 'created_by' });
      expect(await kg.count('kg_edge_provenance', 'edge_id = $1 AND proposal_id = $2', [byId[edge].edgeId, edge])).toBe(1);
      expect((await proposal(linus)).status).toBe('approved');
      // The two entities share a chunk: a co-mention edge is derived, weighted by shared chunks.
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND source_node_id = least($1::bigint, $2::bigint) AND target_node_id = greatest($1::bigint, $2::bigint) AND weight = 1", [byId[linus].nodeId, byId[linux].nodeId])).toBe(1);
    });

    it('swaps an edge’s direction when asked', async () => {
      const a = await kg.node({ name: 'Alpha Lib', type: 'technology' });
      const b = await kg.node({ name: 'Beta App', type: 'product' });
      const edge = await kg.edgeProposal({ source: { name: 'Alpha Lib', type: 'technology' }, predicate: 'uses', target: { name: 'Beta App', type: 'product' } });
      const res = await admin.post(`${BASE}/proposals/${edge}/edit-approve`).send({ swapDirection: true }).expect(200);
      const e = ((await t.dataSource.query('SELECT source_node_id::text AS s, target_node_id::text AS t FROM kg_edges WHERE id = $1', [res.body.items[0].edgeId])) as Record<string, string>[])[0];
      expect(e).toEqual({ s: b, t: a });
    });

    it('refuses an edge whose endpoint was rejected or never proposed, and changes nothing', async () => {
      const ghost = await kg.nodeProposal({ name: 'Ghost', type: 'concept' });
      await admin.post(`${BASE}/proposals/${ghost}/reject`).send({ reason: 'not a thing' }).expect(200);
      await kg.node({ name: 'Castle', type: 'place' });
      const edge = await kg.edgeProposal({ source: { name: 'Ghost', type: 'concept' }, predicate: 'located_in', target: { name: 'Castle', type: 'place' } });
      const res = await admin.post(`${BASE}/proposals/${edge}/approve`).send({}).expect(409);
      expect(res.body.message).toBe(`Edge proposal ${edge} cannot be approved: its source “Ghost” was rejected; create that entity first (or approve the edge between existing entities). Nothing was changed.`);
      const never = await kg.edgeProposal({ source: { name: 'Castle', type: 'place' }, predicate: 'part_of', target: { name: 'Nowhere', type: 'place' } });
      expect((await admin.post(`${BASE}/proposals/${never}/approve`).send({}).expect(409)).body.message).toContain('its target “Nowhere” is neither an entity nor a pending proposal');
      expect((await proposal(edge)).status).toBe('pending');
    });

    it('rejects with a reason, remembered in kg_rejections; a second decision is told it was already reviewed', async () => {
      const id = await kg.nodeProposal({ name: 'Lorem Ipsum', type: 'concept' });
      const res = await admin.post(`${BASE}/proposals/${id}/reject`).send({ reason: 'filler text' }).expect(200);
      expect(res.body.summary).toBe('Rejected node “Lorem Ipsum” (concept) (“filler text”); it will not be proposed again.');
      const rejection = ((await t.dataSource.query(`SELECT reason, rejected_by FROM kg_rejections WHERE kind = 'node' AND signature = 'lorem ipsum|concept'`)) as Record<string, string>[])[0];
      expect(rejection).toEqual({ reason: 'filler text', rejected_by: 'Grace' });
      const again = await admin.post(`${BASE}/proposals/${id}/approve`).send({}).expect(409);
      expect(again.body).toMatchObject({ reason: 'already_reviewed', status: 'rejected', reviewedBy: 'Grace' });
      expect(again.body.message).toMatch(/^Proposal \d+ was already reviewed: rejected by Grace on \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Nothing was changed\.$/);
    });

    it('lets one of two admins acting at once win; the other is told; no duplicate rows', async () => {
      const p = await kg.passage('Race Page', 'Both admins saw Zig.');
      const id = await kg.nodeProposal({ name: 'Zig', type: 'technology', support: [p] });
      const other = await t.as('admin', { name: 'Hedy' });
      const [a, b] = await Promise.all([
        admin.post(`${BASE}/proposals/${id}/approve`).send({}),
        other.post(`${BASE}/proposals/${id}/reject`).send({ reason: 'race' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body.reason).toBe('already_reviewed');
      const [c, d] = await Promise.all([1, 2].map(async () => {
        const id2 = await kg.nodeProposal({ name: kg.name('Twin'), type: 'concept', support: [p] });
        return Promise.all([admin.post(`${BASE}/proposals/${id2}/approve`).send({}), other.post(`${BASE}/proposals/${id2}/approve`).send({})]);
      }));
      for (const pair of [c, d]) expect(pair.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await kg.count('kg_nodes', "signature = 'zig|technology'")).toBeLessThanOrEqual(1);
      expect(await kg.count('kg_node_provenance', 'proposal_id = $1', [id])).toBe(a.status === 200 ? 1 : 0);
    });

    it('answers bad input with 4xx and changes nothing', async () => {
      const id = await kg.nodeProposal({ name: 'Bad Input', type: 'concept' });
      await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ type: 'alien' }).expect(400);
      await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ name: 'x'.repeat(301) }).expect(400);
      await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ intoEntityId: 'abc' }).expect(400);
      await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ intoEntityId: '987654' }).expect(404);
      await admin.post(`${BASE}/proposals/${id}/edit-approve`).send({ name: '   ' }).expect(200).then(async (r) => {
        // A blank name means "keep the proposed one".
        expect(r.body.summary).toContain('“Bad Input”');
      });
      await admin.post(`${BASE}/proposals/${id}/approve`).send({ extra: 1 }).expect(400);
      await admin.post(`${BASE}/proposals/${id}/reject`).send({ reason: 'r'.repeat(1001) }).expect(400);
      await admin.post(`${BASE}/proposals/0/approve`).send({}).expect(400);
      await admin.post(`${BASE}/proposals/123456789/reject`).send({}).expect(404);
    });
  });

  describe('bulk', () => {
    it('approves a selection in one undoable action, skipping what was already reviewed', async () => {
      const p = await kg.passage('Bulk Page', 'Many things are named here.');
      const ids = await Promise.all(['Bulk One', 'Bulk Two', 'Bulk Three'].map((name) => kg.nodeProposal({ name, support: [p] })));
      await admin.post(`${BASE}/proposals/${ids[2]}/reject`).send({}).expect(200);
      const res = await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', ids: [...ids, '99999999'] }).expect(200);
      expect(res.body.summary).toBe('Approved 2 proposals (2 nodes, 0 edges).');
      expect(res.body.skipped.map((s: { proposalId: string }) => s.proposalId)).toEqual([ids[2], '99999999']);
      const action = ((await t.dataSource.query('SELECT action FROM kg_review_actions WHERE id = $1', [res.body.actionId])) as { action: string }[])[0];
      expect(action.action).toBe('bulk_approve');
    });

    it('acts on everything matching a filter at or above a confidence, edges with their endpoints', async () => {
      const p = await kg.passage('Filter Page', 'Mars and Venus are planets.');
      const mars = await kg.nodeProposal({ name: 'Mars', type: 'place', confidence: 0.92, support: [p] });
      const venus = await kg.nodeProposal({ name: 'Venus', type: 'place', confidence: 0.3, support: [p] });
      const low = await kg.nodeProposal({ name: 'Pluto', type: 'place', confidence: 0.85, support: [p] });
      const edge = await kg.edgeProposal({ source: { name: 'Mars', type: 'place' }, predicate: 'related_to', target: { name: 'Venus', type: 'place' }, confidence: 0.97, support: [p] });
      const res = await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', minConfidence: 0.9, filter: { cluster: undefined, page: 'filter-page' } }).expect(200);
      expect(res.body.summary).toBe('Approved 2 proposals (1 node, 1 edge), and 1 pending endpoint the edges needed.');
      expect((await proposal(mars)).status).toBe('approved');
      expect((await proposal(venus)).status).toBe('approved');
      expect((await proposal(low)).status).toBe('pending');
      expect((await proposal(edge)).status).toBe('approved');
      const rejected = await admin.post(`${BASE}/proposals/bulk`).send({ action: 'reject', minConfidence: 0.8, filter: { page: 'filter-page' }, reason: 'dwarf' }).expect(200);
      expect(rejected.body.summary).toBe('Rejected 1 proposal (“dwarf”); they will not be proposed again.');
      expect((await proposal(low)).status).toBe('rejected');
    });

    it('refuses a bulk request that does not say which proposals, or too many', async () => {
      await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve' }).expect(400);
      await admin.post(`${BASE}/proposals/bulk`).send({ action: 'destroy', ids: ['1'] }).expect(400);
      await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', ids: ['x'] }).expect(400);
      await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', ids: ['1', '2', '3'], limit: 2 }).expect(400);
      await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', minConfidence: 0.5, filter: { type: 'alien' } }).expect(400);
      const empty = await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', minConfidence: 1, filter: { q: 'nothing-like-this' } }).expect(200);
      expect(empty.body).toMatchObject({ actionId: null, summary: 'Nothing to approve.' });
    });
  });
});
