import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { GraphTransferService } from '../../src/graph-transfer/graph-transfer.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';

describe('export, import, schema, jobs and content gaps under /admin/knowledge-graph', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;
  let ids: { rust: string; llvm: string; edge: string; hidden: string };

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Grace' });
    const p = await kg.passage('Compilers', 'Rust compiles with LLVM. LLVM & "friends" <3.', { headingPath: ['Backends'] });
    const rust = await kg.nodeProposal({ name: 'Rust Lang', type: 'technology', support: [{ ...p, quote: 'Rust' }], confidence: 0.9 });
    await kg.nodeProposal({ name: 'LLVM <core>', type: 'technology', support: [{ ...p, quote: 'LLVM' }] });
    const edge = await kg.edgeProposal({ source: { name: 'Rust Lang', type: 'technology' }, predicate: 'uses', target: { name: 'LLVM <core>', type: 'technology' }, support: [p] });
    const approved = await admin.post(`${BASE}/proposals/${edge}/approve`).send({}).expect(200);
    const byId = Object.fromEntries(approved.body.items.map((i: { proposalId: string }) => [i.proposalId, i]));
    // An entity only an excluded page supports is hidden from the export.
    const secret = await kg.page('Private', { body: 'Secret Project', include: false });
    const chunk = await kg.chunk(secret.id, 'Secret Project');
    const hiddenProposal = await kg.nodeProposal({ name: 'Secret Project', type: 'project', support: [{ chunkId: chunk, pageId: secret.id, quote: 'Secret Project' }] });
    const hidden = await kg.node({ name: 'Secret Project', type: 'project', origin: 'extracted' });
    await t.dataSource.query('INSERT INTO kg_node_provenance (node_id, proposal_id, approved_by) VALUES ($1, $2, $3)', [hidden, hiddenProposal, 'x']);
    ids = { rust: byId[rust].nodeId, llvm: approved.body.items.find((i: { proposalId: string; kind: string }) => i.kind === 'node' && i.proposalId !== rust).nodeId, edge: byId[edge].edgeId, hidden };
  });
  afterAll(() => t?.close());

  describe('export', () => {
    it('exports the visible approved graph as JSON with provenance, the same bytes every time', async () => {
      const res = await admin.get(`${BASE}/export`).expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="knowledge-graph.json"');
      const graph = JSON.parse(res.text);
      expect(graph.format).toBe('kurate.knowledge-graph');
      expect(graph.version).toBe(1);
      expect(graph.nodes.map((n: { id: string }) => n.id)).toEqual([ids.rust, ids.llvm].sort((a, b) => Number(a) - Number(b)));
      const rust = graph.nodes.find((n: { id: string }) => n.id === ids.rust);
      expect(Object.keys(rust)).toEqual(['id', 'signature', 'name', 'type', 'aliases', 'description', 'origin', 'createdBy', 'createdAt', 'updatedAt', 'provenance']);
      expect(rust).toMatchObject({ name: 'Rust Lang', type: 'technology', origin: 'extracted', createdBy: 'Grace', provenance: { pages: ['compilers'], mentions: 1 } });
      expect(rust.provenance.proposals).toEqual([expect.objectContaining({ approvedBy: 'Grace', extractor: 'builtin', model: null, confidence: 0.9 })]);
      const typed = graph.edges.find((e: { id: string }) => e.id === ids.edge);
      expect(typed).toMatchObject({ source: ids.rust, target: ids.llvm, kind: 'typed', predicate: 'uses', provenance: { pages: ['compilers'] } });
      expect(graph.edges.some((e: { kind: string }) => e.kind === 'co_mention')).toBe(true);
      expect((await admin.get(`${BASE}/export?format=json`).expect(200)).text).toBe(res.text);
    });

    it('exports GraphML with escaped text', async () => {
      const res = await admin.get(`${BASE}/export?format=graphml`).expect(200);
      expect(res.headers['content-type']).toBe('application/graphml+xml; charset=utf-8');
      expect(res.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<graphml xmlns="http:\/\/graphml.graphdrawing.org\/xmlns"/);
      expect(res.text).toContain(`<node id="n${ids.llvm}"><data key="name">LLVM &lt;core&gt;</data><data key="type">technology</data>`);
      expect(res.text).toContain(`<edge id="e${ids.edge}" source="n${ids.rust}" target="n${ids.llvm}"><data key="kind">typed</data><data key="predicate">uses</data>`);
      expect(res.text).not.toContain('Secret Project');
      expect(res.text.trimEnd().endsWith('</graphml>')).toBe(true);
      await admin.get(`${BASE}/export?format=csv`).expect(400);
    });
  });

  describe('import', () => {
    const graph = {
      nodes: [
        { id: 'a', name: 'Haskell', type: 'Technology' },
        { id: 'b', name: 'GHC', type: 'compiler', aliases: ['Glasgow Haskell Compiler'] },
        { id: 'c', name: 'Simon', type: 'wizard' },
        { id: 'd', name: 'Rust Lang', type: 'technology' },
      ],
      edges: [
        { source: 'b', target: 'a', predicate: 'implements' },
        { source: 'c', target: 'a', predicate: 'created_by' },
        { source: 'b', target: 'zz', predicate: 'uses' },
        { source: 'a', target: 'd', predicate: 'inspires' },
        { source: 'a', target: 'd', predicate: 'related_to', kind: 'co_mention' },
        { source: 'd', target: 'b', predicate: 'Alternative To' },
      ],
    };

    it('validates first: maps or refuses unknown types and predicates, refuses dangling edges, reports (dry run writes nothing)', async () => {
      const before = await kg.snapshot();
      const res = await admin.post(`${BASE}/import`).send({ graph, mode: 'pending', typeMap: { compiler: 'technology' }, dryRun: true }).expect(200);
      expect(res.body).toMatchObject({ mode: 'pending', dryRun: true, actionId: null });
      expect(res.body.nodes).toEqual({
        received: 4, accepted: 2, existing: 1,
        refused: [{ id: 'c', name: 'Simon', reason: 'unknown type “wizard”: map it with typeMap (to one of person, organization, place, event, product, technology, concept, project, document, other)' }],
      });
      expect(res.body.edges.refused.map((r: { reason: string }) => r.reason)).toEqual([
        'dangling: its source “c” is not an accepted node of this file',
        'dangling: its target “zz” is not an accepted node of this file',
        expect.stringContaining('unknown predicate “inspires”'),
        'a co_mention edge is derived from the pages, not imported',
      ]);
      expect(res.body.edges.accepted).toBe(2);
      expect(res.body.mapped).toEqual({ types: { Technology: 'technology', compiler: 'technology' }, predicates: { 'Alternative To': 'alternative_to' } });
      expect(await kg.snapshot()).toBe(before);
    });

    it('imports as pending proposals (one undoable action), skipping what is known and what was rejected', async () => {
      const ocaml = await kg.nodeProposal({ name: 'OCaml', type: 'technology' });
      await admin.post(`${BASE}/proposals/${ocaml}/reject`).send({}).expect(200);
      const res = await admin.post(`${BASE}/import`).send({
        graph: { nodes: [...graph.nodes, { id: 'o', name: 'OCaml', type: 'technology' }], edges: graph.edges },
        mode: 'pending', typeMap: { compiler: 'technology', wizard: 'person' }, predicateMap: { inspires: 'related_to' },
      }).expect(200);
      expect(res.body.nodes).toMatchObject({ accepted: 3, existing: 1 });
      expect(res.body.nodes.refused).toEqual([{ id: 'o', name: 'OCaml', reason: 'rejected earlier: it will not be proposed again' }]);
      expect(res.body.edges).toMatchObject({ accepted: 4 });
      const pending = (await t.dataSource.query(`SELECT kind, name, node_type, predicate, extractor, confidence FROM kg_proposals WHERE extractor = 'import' ORDER BY id`)) as Record<string, unknown>[];
      expect(pending.filter((p) => p.kind === 'node').map((p) => `${p.name}/${p.node_type}`)).toEqual(['Haskell/technology', 'GHC/technology', 'Simon/person']);
      expect(pending.filter((p) => p.kind === 'edge').map((p) => p.predicate)).toEqual(['implements', 'created_by', 'related_to', 'alternative_to']);
      // The queue shows them; importing again adds nothing; undo removes them.
      expect((await admin.get(`${BASE}/proposals?extractor=import`).expect(200)).body.total).toBe(7);
      const again = await admin.post(`${BASE}/import`).send({ graph, mode: 'pending', typeMap: { compiler: 'technology', wizard: 'person' }, predicateMap: { inspires: 'related_to' } }).expect(200);
      expect(again.body).toMatchObject({ actionId: null, nodes: { accepted: 0, existing: 4 }, edges: { accepted: 0, existing: 4 } });
      await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
      expect(await kg.count('kg_proposals', "extractor = 'import'")).toBe(0);
    });

    it('imports as approved with a reason (origin import), and Kurate’s own export imports as it is', async () => {
      await admin.post(`${BASE}/import`).send({ graph, mode: 'approved' }).expect(400);
      const res = await admin.post(`${BASE}/import`).send({ graph, mode: 'approved', reason: 'seed from the old wiki', typeMap: { compiler: 'technology', wizard: 'person' } }).expect(200);
      expect(res.body.summary).toBe('Import as approved: 3 new entities and 3 new edges (1 already there), 3 refused (“seed from the old wiki”).');
      const ghc = ((await t.dataSource.query(`SELECT origin, aliases, created_by FROM kg_nodes WHERE signature = 'ghc|technology'`)) as Record<string, unknown>[])[0];
      expect(ghc).toEqual({ origin: 'import', aliases: ['Glasgow Haskell Compiler'], created_by: 'Grace' });
      const audit = (await t.dataSource.query(`SELECT details FROM audit_log WHERE action = 'kg.import' ORDER BY id DESC LIMIT 1`)) as { details: Record<string, unknown> }[];
      expect(audit[0].details).toMatchObject({ mode: 'approved', reason: 'seed from the old wiki', nodes: 3 });

      const exported = JSON.parse((await admin.get(`${BASE}/export`).expect(200)).text);
      const reimport = await admin.post(`${BASE}/import`).send({ graph: exported, mode: 'approved', reason: 'round trip' }).expect(200);
      expect(reimport.body.nodes).toMatchObject({ accepted: 0, existing: exported.nodes.length, refused: [] });
      expect(reimport.body.edges.accepted).toBe(0);
      expect(reimport.body.actionId).toBeTruthy();
    });

    it("links the pages' mentions of an entity imported as approved, as an approval does; undo unlinks them", async () => {
      const { id: pageId } = await kg.page('Zephyrine notes');
      const chunk = await kg.chunk(pageId, 'Zephyrine renders the site. Quillmark writes it.');
      const mentions = [await kg.mention(chunk, 'zephyrine|technology', 'Zephyrine', null), await kg.mention(chunk, 'quillmark|technology', 'Quillmark', null)];
      const res = await admin.post(`${BASE}/import`).send({
        graph: { nodes: [{ id: 'z', name: 'Zephyrine', type: 'technology' }, { id: 'q', name: 'Quillmark', type: 'technology' }], edges: [] },
        mode: 'approved', reason: 'seed',
      }).expect(200);
      const linked = async () => (await t.dataSource.query('SELECT m.node_id IS NOT NULL AS linked FROM kg_mentions m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id', [mentions])).map((r: { linked: boolean }) => r.linked);
      expect(await linked()).toEqual([true, true]);
      // The two entities share a chunk now: their co-mention edge follows, as after an approval.
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND source_node_id IN (SELECT id FROM kg_nodes WHERE name IN ('Zephyrine', 'Quillmark')) AND target_node_id IN (SELECT id FROM kg_nodes WHERE name IN ('Zephyrine', 'Quillmark'))")).toBe(1);
      // `kurate kg check` finds nothing to link for them (other tests of this file leave findings of their own).
      const check = (await admin.get('/admin/kg-policy/health').expect(200)).body;
      const named = check.invariants.find((i: { name: string }) => i.name === 'mentions_named') as { examples: string[] };
      expect(named.examples.filter((line) => /zephyrine|quillmark/.test(line))).toEqual([]);
      await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
      expect(await linked()).toEqual([false, false]);
      expect(await kg.count('kg_nodes', "name IN ('Zephyrine', 'Quillmark')")).toBe(0);
    });

    it('answers a malformed request with 400', async () => {
      for (const body of [
        {},
        { graph: { nodes: 'x' }, mode: 'pending' },
        { graph: { nodes: [] }, mode: 'later' },
        { graph: { nodes: [{ id: 'a', type: 'person' }] }, mode: 'pending' },
        { graph: { nodes: [{ id: 'a', name: 'A', type: 'person', colour: 'red' }] }, mode: 'pending' },
        { graph: { nodes: [] }, mode: 'pending', typeMap: { x: 'alien' } },
        { graph: { nodes: [], edges: [{ source: 'a' }] }, mode: 'pending' },
      ]) {
        const res = await admin.post(`${BASE}/import`).send(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      // The answer names the item and what is wrong with it.
      const unnamed = await admin.post(`${BASE}/import`).send({ graph: { nodes: [{ id: 'a', name: 'A', type: 'person' }, { id: 'b', type: 'person' }] }, mode: 'pending' }).expect(400);
      expect(unnamed.body.message).toMatch(/graph\.nodes\[1\]: .*name/);
      const extra = await admin.post(`${BASE}/import`).send({ graph: { nodes: [], edges: [{ source: 'a', target: 'b', predicate: 'uses', colour: 'red' }] }, mode: 'pending' }).expect(400);
      expect(extra.body.message).toContain('graph.edges[0]: property colour should not exist');
    });

    it('checks and matches a large file in batches, giving other requests turns meanwhile (dry run)', async () => {
      const nodes = Array.from({ length: 3000 }, (_, i) => ({ id: `n${i}`, name: `Batch Node ${i}`, type: 'concept' }));
      const edges = Array.from({ length: 12000 }, (_, i) => ({ source: `n${i % 3000}`, target: `n${(i * 7 + 1) % 3000}`, predicate: 'uses' }));
      // Turns of the event loop that other work got while the import ran: none if it held the thread throughout.
      let turns = 0;
      let running = true;
      const spin = (async () => {
        while (running) {
          turns++;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      })();
      const report = await t.app.get(GraphTransferService).import({ graph: { nodes, edges }, mode: 'pending', dryRun: true }, { actor: { userId: null, name: 'Batch Importer', role: 'admin', via: 'session' }, ip: null });
      running = false;
      await spin;
      expect(report.nodes.received).toBe(3000);
      expect(report.edges.received).toBe(12000);
      // 3,000 nodes and 12,000 edges, validated 500 at a time (5 + 23 turns between batches) and matched 1,000 at a
      // time (2 + 11): 41 turns for the rest at least. Held in one go, as before, it was 1 or 2.
      expect(turns).toBeGreaterThanOrEqual(41);
    });
  });

  describe('schema, jobs, gaps', () => {
    it('describes the vocabularies with their use', async () => {
      const res = await admin.get(`${BASE}/schema`).expect(200);
      expect(res.body.types.map((x: { name: string }) => x.name)).toEqual(['person', 'organization', 'place', 'event', 'product', 'technology', 'concept', 'project', 'document', 'other']);
      expect(res.body.types.find((x: { name: string }) => x.name === 'technology').entities).toBeGreaterThanOrEqual(2);
      expect(res.body.predicates.find((x: { name: string }) => x.name === 'uses')).toMatchObject({ edges: 1 });
      expect(res.body.outside).toEqual({ types: [], predicates: [] });
    });

    it('shows the extraction jobs (counts per queue, failures) and retries the failed ones, audited', async () => {
      const status = (await admin.get(`${BASE}/jobs`).expect(200)).body;
      expect(status).toMatchObject({ available: true, message: null });
      expect(status.queues.length).toBeGreaterThan(0);
      expect(status.queues[0]).toEqual({ name: expect.any(String), counts: expect.objectContaining({ failed: expect.any(Number) }) });
      expect(Array.isArray(status.failures)).toBe(true);
      const retried = (await admin.post(`${BASE}/jobs/retry-failed`).send({}).expect(200)).body;
      expect(retried).toEqual({ retried: expect.any(Number) });
      expect(await kg.count('audit_log', "action = 'kg.jobs.retry_failed' AND actor_name = 'Grace'")).toBe(1);
    });

    it('lists pages worth writing: entities on several pages without a page, beside wanted pages, merged when the same', async () => {
      const one = await kg.passage('Gap One', 'Erlang runs the switch. See [[Beam Machine]].');
      const two = await kg.passage('Gap Two', 'Erlang again, and [[Erlang]] and [[Beam Machine]].');
      const erlang = await kg.node({ name: 'Erlang', type: 'technology' });
      const beam = await kg.node({ name: 'Beam Machine', type: 'technology' });
      const own = await kg.node({ name: 'Gap One', type: 'document' });
      for (const [node, name] of [[erlang, 'Erlang'], [beam, 'Beam Machine'], [own, 'Gap One']] as const) {
        await kg.mention(one.chunkId, `${name}|x`, name, node);
        await kg.mention(two.chunkId, `${name}|x`, name, node);
      }
      const res = await admin.get(`${BASE}/gaps`).expect(200);
      const byTitle = Object.fromEntries(res.body.items.map((g: { title: string }) => [g.title, g]));
      expect(byTitle.Erlang).toMatchObject({ entity: { id: erlang, pages: 2, mentions: 2 }, wantedBy: 1, createHref: '/page/new?title=Erlang' });
      expect(byTitle['Beam Machine']).toMatchObject({ entity: { id: beam, pages: 2 }, wantedBy: 2, createHref: '/page/new?title=Beam%20Machine' });
      expect(byTitle['Gap One']).toBeUndefined();
      expect(res.body.items[0].title).toBe('Beam Machine');
      expect((await admin.get(`${BASE}/gaps?minPages=3`).expect(200)).body.items.find((g: { title: string }) => g.title === 'Erlang')).toMatchObject({ entity: null, wantedBy: 1 });
      await admin.get(`${BASE}/gaps?minPages=1`).expect(400);
    });
  });
});
