import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';

describe('curation and undo: entities, edges, merge, /audit/:id/undo', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Grace' });
  });
  afterAll(() => t?.close());

  const exportJson = async () => (await admin.get(`${BASE}/export?format=json`).expect(200)).text;
  const exportGraphMl = async () => (await admin.get(`${BASE}/export?format=graphml`).expect(200)).text;
  const undo = (actionId: string) => admin.post(`${BASE}/audit/${actionId}/undo`).send({});

  /** Approves node proposals for these names, all mentioned in one passage of a page; returns their entity ids. */
  async function approvedEntities(title: string, text: string, names: [string, string][]): Promise<string[]> {
    const p = await kg.passage(title, text);
    const ids: string[] = [];
    for (const [name, type] of names) {
      const proposal = await kg.nodeProposal({ name, type, support: [{ ...p, quote: name }] });
      ids.push((await admin.post(`${BASE}/proposals/${proposal}/approve`).send({}).expect(200)).body.items[0].nodeId);
    }
    return ids;
  }

  describe('entities', () => {
    it('creates, lists (search, type, counts) and shows an entity; refuses duplicates and bad input', async () => {
      const created = await admin.post(`${BASE}/entities`).send({ name: '  Grace  Hopper ', type: 'person', aliases: ['Amazing Grace', 'grace hopper', ''], description: 'Admiral' }).expect(201);
      expect(created.body.entity).toMatchObject({ name: 'Grace Hopper', type: 'person', aliases: ['Amazing Grace'], origin: 'manual', description: 'Admiral' });
      expect(created.body.summary).toBe('Created entity “Grace Hopper” (person).');
      await admin.post(`${BASE}/entities`).send({ name: 'grace hopper', type: 'person' }).expect(409);
      await admin.post(`${BASE}/entities`).send({ name: 'Someone', type: 'alien' }).expect(400);
      await admin.post(`${BASE}/entities`).send({ name: '', type: 'person' }).expect(400);
      await admin.post(`${BASE}/entities`).send({ type: 'person' }).expect(400);

      const [cobol] = await approvedEntities('Languages', 'COBOL was designed with Grace Hopper.', [['COBOL', 'technology']]);
      const list = await admin.get(`${BASE}/entities?q=cob`).expect(200);
      expect(list.body.rows).toEqual([expect.objectContaining({ id: cobol, name: 'COBOL', mentions: 1, pages: 1, typedEdges: 0 })]);
      expect((await admin.get(`${BASE}/entities?q=amazing`).expect(200)).body.rows.map((r: { name: string }) => r.name)).toEqual(['Grace Hopper']);
      expect((await admin.get(`${BASE}/entities?type=person`).expect(200)).body.total).toBe(1);
      expect((await admin.get(`${BASE}/entities`).expect(200)).body.types).toEqual(expect.arrayContaining([{ type: 'person', n: 1 }, { type: 'technology', n: 1 }]));
      await admin.get(`${BASE}/entities?type=alien`).expect(400);
      await admin.get(`${BASE}/entities?limit=0`).expect(400);

      const page = await admin.get(`${BASE}/entities/${cobol}`).expect(200);
      expect(page.body).toMatchObject({ pageCount: 1, mentionCount: 1, provenanceTotal: 1 });
      expect(page.body.provenance[0]).toMatchObject({ approvedBy: 'Grace', kind: 'node', name: 'COBOL', extractor: 'builtin' });
      expect(page.body.passages[0]).toMatchObject({ slug: 'languages', highlight: { match: 'COBOL', found: true } });
      await admin.get(`${BASE}/entities/999999`).expect(404);
      await admin.get(`${BASE}/entities/x1`).expect(400);
    });

    it('shows typed edges in and out, co-mentions, and a neighbourhood graph', async () => {
      const [alan, enigma, bletchley] = await approvedEntities('War', 'Alan Turing broke Enigma at Bletchley Park.', [['Alan Turing', 'person'], ['Enigma', 'product'], ['Bletchley Park', 'place']]);
      await admin.post(`${BASE}/edges`).send({ sourceId: alan, targetId: enigma, predicate: 'related_to' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: alan, targetId: bletchley, predicate: 'located_in' }).expect(201);
      const page = await admin.get(`${BASE}/entities/${alan}`).expect(200);
      expect(page.body.out.map((e: { predicate: string; targetName: string }) => `${e.predicate} ${e.targetName}`)).toEqual(['located_in Bletchley Park', 'related_to Enigma']);
      expect(page.body.coMentions.map((e: { otherName: string; weight: number }) => `${e.otherName}:${e.weight}`).sort()).toEqual(['Bletchley Park:1', 'Enigma:1']);
      const enigmaPage = await admin.get(`${BASE}/entities/${enigma}`).expect(200);
      expect(enigmaPage.body.in.map((e: { sourceName: string }) => e.sourceName)).toEqual(['Alan Turing']);
      const graph = await admin.get(`${BASE}/entities/${alan}/graph`).expect(200);
      expect(graph.body.center).toBe(alan);
      expect(graph.body.nodes).toEqual(expect.arrayContaining([
        { id: alan, name: 'Alan Turing', type: 'person', center: true },
        { id: enigma, name: 'Enigma', type: 'product', center: false },
      ]));
      expect(graph.body.edges.filter((e: { kind: string }) => e.kind === 'typed')).toHaveLength(2);
      expect(graph.body.edges.filter((e: { kind: string }) => e.kind === 'co_mention').length).toBeGreaterThanOrEqual(2);
    });

    it('edits an entity (the old name keeps leading to it) and refuses a name another entity has', async () => {
      const [id] = await approvedEntities('Editing', 'Postgres is popular.', [['Postgres', 'technology']]);
      const res = await admin.patch(`${BASE}/entities/${id}`).send({ name: 'PostgreSQL', aliases: ['Postgres', 'PG'], description: 'Database' }).expect(200);
      expect(res.body.entity).toMatchObject({ name: 'PostgreSQL', signature: 'postgresql|technology', aliases: ['Postgres', 'PG'], description: 'Database' });
      expect(res.body.summary).toBe('Edited entity “PostgreSQL” (was “Postgres”): name, aliases, description.');
      expect(await kg.count('kg_node_signatures', "signature = 'postgres|technology' AND node_id = $1 AND reason = 'renamed'", [id])).toBe(1);
      const other = (await admin.post(`${BASE}/entities`).send({ name: 'MySQL', type: 'technology' }).expect(201)).body.entity.id;
      expect((await admin.patch(`${BASE}/entities/${other}`).send({ name: 'postgresql' }).expect(409)).body.message).toContain('merge into it instead');
      await admin.patch(`${BASE}/entities/${other}`).send({ type: 'alien' }).expect(400);
      await admin.patch(`${BASE}/entities/${other}`).send({ aliases: 'PG' }).expect(400);
      await admin.patch(`${BASE}/entities/424242`).send({ name: 'Nobody' }).expect(404);
    });

    it('links the mentions pages already make of a name when an entity is created with it or given it as a synonym; undo unlinks them', async () => {
      const p = await kg.passage('Nordic Capitals', 'Oslo and Kristiania are one city, beside Bergen.');
      const [oslo, kristiania, bergen] = [
        await kg.mention(p.chunkId, 'oslo|place', 'Oslo', null),
        await kg.mention(p.chunkId, 'kristiania|other', 'Kristiania', null),
        await kg.mention(p.chunkId, 'bergen|place', 'Bergen', null),
      ];
      const nodeOf = async (mention: string) => (await t.dataSource.query('SELECT node_id::text AS n FROM kg_mentions WHERE id = $1', [mention]))[0].n;
      const created = await admin.post(`${BASE}/entities`).send({ name: 'Oslo', type: 'place' }).expect(201);
      const id = created.body.entity.id;
      expect([await nodeOf(oslo), await nodeOf(kristiania), await nodeOf(bergen)]).toEqual([id, null, null]);
      // A synonym names the city by its old name too (a mention of another type included).
      const renamed = await admin.post(`${BASE}/entities/${id}/synonyms`).send({ name: 'Kristiania' }).expect(200);
      expect(await nodeOf(kristiania)).toBe(id);
      const health = (await admin.get('/admin/kg-policy/health').expect(200)).body;
      expect(health.invariants.find((i: { name: string }) => i.name === 'mentions_named')).toMatchObject({ ok: true, count: 0 });
      // With Bergen an entity too, the passage's entities share a co-mention edge.
      const bergenId = (await admin.post(`${BASE}/entities`).send({ name: 'Bergen', type: 'place' }).expect(201)).body.entity.id;
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND source_node_id = least($1::bigint, $2::bigint) AND target_node_id = greatest($1::bigint, $2::bigint)", [id, bergenId])).toBe(1);
      // Undoing the synonym unlinks what it linked, and nothing else.
      await undo(renamed.body.actionId).expect(200);
      expect([await nodeOf(oslo), await nodeOf(kristiania), await nodeOf(bergen)]).toEqual([id, null, bergenId]);
    });

    it('deletes an entity with its edges (a dry run says how many first), and can reject it too', async () => {
      const [a, b, c] = await approvedEntities('Deleting', 'Alice met Bob and Carol.', [['Alice', 'person'], ['Bob', 'person'], ['Carol', 'person']]);
      await admin.post(`${BASE}/edges`).send({ sourceId: a, targetId: b, predicate: 'related_to' }).expect(201);
      const dry = await admin.delete(`${BASE}/entities/${a}`).send({ dryRun: true }).expect(200);
      expect(dry.body).toMatchObject({ dryRun: true, impact: { typedEdges: 1, coMentionEdges: 2, mentions: 1, approvedProposals: 1 } });
      expect(await kg.count('kg_nodes', 'id = $1', [a])).toBe(1);
      const gone = await admin.delete(`${BASE}/entities/${a}`).send({ reject: true, reason: 'private person' }).expect(200);
      expect(gone.body.summary).toBe('Deleted entity “Alice” (person) with 3 edges; 1 mention unlinked; it will not be proposed again.');
      expect(await kg.count('kg_nodes', 'id = $1', [a])).toBe(0);
      expect(await kg.count('kg_edges', 'source_node_id = $1 OR target_node_id = $1', [a])).toBe(0);
      expect(await kg.count('kg_mentions', "signature = 'alice|person' AND node_id IS NULL")).toBe(1);
      expect(await kg.count('kg_rejections', "kind = 'node' AND signature = 'alice|person' AND reason = 'private person'")).toBe(1);
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND (source_node_id = $1 OR target_node_id = $1)", [b])).toBe(1);
      void c;
      await admin.delete(`${BASE}/entities/${a}`).send({}).expect(404);
      await admin.delete(`${BASE}/entities/${b}`).send({ dryRun: 'maybe' }).expect(400);
    });
  });

  describe('merge and undo', () => {
    it('merges A into B: aliases united, edges re-pointed, duplicates and self-loops collapsed, mentions moved', async () => {
      const [pg, postgres, sql, ada] = await approvedEntities('Merging', 'Oracle Database, also Oracle DB, speaks PL/SQL; Larry uses it.', [
        ['Oracle Database', 'technology'], ['Oracle DB', 'technology'], ['PL/SQL', 'technology'], ['Larry', 'person'],
      ]);
      await admin.patch(`${BASE}/entities/${postgres}`).send({ aliases: ['ODB'] }).expect(200);
      await admin.post(`${BASE}/edges`).send({ sourceId: postgres, targetId: sql, predicate: 'implements' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: pg, targetId: sql, predicate: 'implements' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: ada, targetId: postgres, predicate: 'uses' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: postgres, targetId: pg, predicate: 'alternative_to' }).expect(201);

      const res = await admin.post(`${BASE}/entities/${postgres}/merge`).send({ intoId: pg }).expect(200);
      expect(res.body.entity).toMatchObject({ id: pg, name: 'Oracle Database', aliases: ['Oracle DB', 'ODB'] });
      expect(res.body).toMatchObject({ edgesRepointed: 1, mentionsMoved: 1 });
      expect(res.body.summary).toMatch(/^Merged “Oracle DB” \(technology\) into “Oracle Database” \(technology\): 1 edge re-pointed, \d+ duplicate edges collapsed, 1 mention moved\.$/);
      expect(await kg.count('kg_nodes', 'id = $1', [postgres])).toBe(0);
      const typed = (await t.dataSource.query(`SELECT source_node_id::text AS s, target_node_id::text AS t, predicate FROM kg_edges WHERE kind = 'typed' AND (source_node_id = $1 OR target_node_id = $1) ORDER BY predicate`, [pg])) as Record<string, string>[];
      expect(typed).toEqual([{ s: pg, t: sql, predicate: 'implements' }, { s: ada, t: pg, predicate: 'uses' }]);
      expect(await kg.count('kg_mentions', 'node_id = $1', [pg])).toBe(2);
      expect(await kg.count('kg_node_provenance', 'node_id = $1', [pg])).toBe(2);
      expect(await kg.count('kg_node_signatures', "signature = 'oracle db|technology' AND node_id = $1 AND reason = 'merged'", [pg])).toBe(1);
      // Co-mentions of the merged entity: one per other entity, weight = shared chunks (one chunk here).
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND (source_node_id = $1 OR target_node_id = $1) AND weight = 1", [pg])).toBe(2);
      await admin.post(`${BASE}/entities/${pg}/merge`).send({ intoId: pg }).expect(400);
      await admin.post(`${BASE}/entities/${postgres}/merge`).send({ intoId: pg }).expect(404);
      await admin.post(`${BASE}/entities/${pg}/merge`).send({}).expect(400);
    });

    it('undoes a merge: the graph export is byte-identical to the one before (JSON and GraphML)', async () => {
      const [a, b, c, d] = await approvedEntities('Undo Merge', 'Kafka, Apache Kafka, Zookeeper and Confluent appear together.', [
        ['Kafka', 'technology'], ['Apache Kafka', 'technology'], ['Zookeeper', 'technology'], ['Confluent', 'organization'],
      ]);
      await admin.post(`${BASE}/edges`).send({ sourceId: a, targetId: c, predicate: 'requires' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: b, targetId: c, predicate: 'requires' }).expect(201);
      await admin.post(`${BASE}/edges`).send({ sourceId: d, targetId: a, predicate: 'created_by' }).expect(201);
      await admin.patch(`${BASE}/entities/${a}`).send({ aliases: ['Kafka Streams'], description: 'A log' }).expect(200);
      const beforeJson = await exportJson();
      const beforeGraphMl = await exportGraphMl();
      const beforeRows = await kg.snapshot();

      const merge = await admin.post(`${BASE}/entities/${a}/merge`).send({ intoId: b }).expect(200);
      expect(await exportJson()).not.toBe(beforeJson);
      const undone = await undo(merge.body.actionId).expect(200);
      expect(undone.body.summary).toBe(`Undid #${merge.body.actionId}: ${merge.body.summary}`);
      expect(await exportJson()).toBe(beforeJson);
      expect(await exportGraphMl()).toBe(beforeGraphMl);
      expect(await kg.snapshot()).toBe(beforeRows);

      // The undo is itself an action: undoing it does the merge again, exactly.
      const redo = await undo(undone.body.actionId).expect(200);
      expect(redo.body.summary).toBe(`Redid: ${merge.body.summary}`);
      expect(await kg.count('kg_nodes', 'id = $1', [a])).toBe(0);
      await undo(merge.body.actionId).expect(200);
      expect(await exportJson()).toBe(beforeJson);
    });

    it('undoes approve, reject, edit and delete, restoring exactly the rows that were there', async () => {
      const p = await kg.passage('Undo Page', 'Deno and Bun are runtimes.');
      const deno = await kg.nodeProposal({ name: 'Deno', type: 'technology', support: [p] });
      const bun = await kg.nodeProposal({ name: 'Bun', type: 'technology', support: [p] });

      let before = await kg.snapshot();
      const approved = await admin.post(`${BASE}/proposals/${deno}/edit-approve`).send({ name: 'Deno Runtime' }).expect(200);
      await undo(approved.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);

      const rejected = await admin.post(`${BASE}/proposals/${bun}/reject`).send({ reason: 'later' }).expect(200);
      await undo(rejected.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);

      const entity = (await admin.post(`${BASE}/proposals/${bun}/approve`).send({}).expect(200)).body.items[0].nodeId;
      before = await kg.snapshot();
      const edited = await admin.patch(`${BASE}/entities/${entity}`).send({ name: 'Bun.js', type: 'product', aliases: ['bun'] }).expect(200);
      await undo(edited.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);

      const other = (await admin.post(`${BASE}/proposals/${deno}/approve`).send({}).expect(200)).body.items[0].nodeId;
      await admin.post(`${BASE}/edges`).send({ sourceId: entity, targetId: other, predicate: 'alternative_to' }).expect(201);
      before = await kg.snapshot();
      const deleted = await admin.delete(`${BASE}/entities/${entity}`).send({ reject: true }).expect(200);
      await undo(deleted.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);
    });

    it('refuses an undo when a later action changed the same rows, names it, and allows it once that is undone', async () => {
      const [x, y] = await approvedEntities('Conflict Page', 'Vim and Neovim are editors.', [['Vim', 'technology'], ['Neovim', 'technology']]);
      const merge = await admin.post(`${BASE}/entities/${x}/merge`).send({ intoId: y }).expect(200);
      const edit = await admin.patch(`${BASE}/entities/${y}`).send({ description: 'An editor' }).expect(200);
      const refused = await undo(merge.body.actionId).expect(409);
      expect(refused.body.reason).toBe('changed_since');
      expect(refused.body.message).toContain(`Undo this later action first: #${edit.body.actionId} (${edit.body.summary}).`);
      expect(refused.body.laterActions).toEqual([{ id: edit.body.actionId, action: 'entity_update', summary: edit.body.summary }]);
      await undo(edit.body.actionId).expect(200);
      await undo(merge.body.actionId).expect(200);
      expect(await kg.count('kg_nodes', 'id IN ($1, $2)', [x, y])).toBe(2);
      const twice = await undo(merge.body.actionId).expect(409);
      expect(twice.body.reason).toBe('already_undone');
      await undo('99999999').expect(404);
      await undo('abc').expect(400);
    });

    it('refuses to undo an entity approval while a later edge approval stands on the entity, names it, and allows it once that is undone', async () => {
      const x = await kg.node({ name: 'Xenolith' });
      const p = await kg.passage('Nova Page', 'Xenolith uses Novalith.');
      const node = await kg.nodeProposal({ name: 'Novalith', support: [p] });
      const edge = await kg.edgeProposal({ source: { name: 'Xenolith', type: 'concept' }, predicate: 'uses', target: { name: 'Novalith', type: 'concept' }, support: [p] });
      const before = await kg.snapshot();
      const approvedNode = await admin.post(`${BASE}/proposals/${node}/approve`).send({}).expect(200);
      const nova = approvedNode.body.items[0].nodeId;
      const approvedEdge = await admin.post(`${BASE}/proposals/${edge}/approve`).send({}).expect(200);
      const edgeId = approvedEdge.body.items[0].edgeId;

      // Deleting the entity would take the edge and its provenance along (ON DELETE CASCADE), and leave the edge
      // proposal approved with nothing behind it.
      const refused = await undo(approvedNode.body.actionId).expect(409);
      expect(refused.body.reason).toBe('changed_since');
      expect(refused.body.message).toContain('refer to what it created, and would be deleted with it.');
      expect(refused.body.message).toContain(`Undo this later action first: #${approvedEdge.body.actionId} (${approvedEdge.body.summary}).`);
      expect(refused.body.laterActions).toEqual([{ id: approvedEdge.body.actionId, action: 'approve', summary: approvedEdge.body.summary }]);
      expect(refused.body.dependents).toContainEqual({ table: 'kg_edges', key: { id: Number(edgeId) }, refersTo: { table: 'kg_nodes', key: { id: Number(nova) } } });
      expect(await kg.count('kg_edges', 'id = $1', [edgeId])).toBe(1);
      expect(await kg.count('kg_edge_provenance', 'proposal_id = $1', [edge])).toBe(1);
      expect(await kg.count('kg_nodes', 'id = $1', [x])).toBe(1);

      await undo(approvedEdge.body.actionId).expect(200);
      await undo(approvedNode.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);
    });

    it('refuses to undo an entity made by hand while a proposal approved into it later stands, and allows it once that is undone', async () => {
      const p = await kg.passage('Sigmund Page', 'Sigmundite is here.');
      const proposal = await kg.nodeProposal({ name: 'Sigmundite', support: [p] });
      const before = await kg.snapshot();
      const created = await admin.post(`${BASE}/entities`).send({ name: 'Sigmundite', type: 'concept' }).expect(201);
      const approved = await admin.post(`${BASE}/proposals/${proposal}/approve`).send({}).expect(200);
      expect(approved.body.summary).toContain('into the existing entity');
      const refused = await undo(created.body.actionId).expect(409);
      expect(refused.body.reason).toBe('changed_since');
      expect(refused.body.message).toContain(`Undo this later action first: #${approved.body.actionId} (${approved.body.summary}).`);
      expect(await kg.count('kg_node_provenance', 'proposal_id = $1', [proposal])).toBe(1);
      await undo(approved.body.actionId).expect(200);
      await undo(created.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);
    });

    it('refuses to undo an entity approval while an edge made by hand on it later stands', async () => {
      const [first] = await approvedEntities('Hand Edge Page', 'Quillon is a tool.', [['Quillon', 'technology']]);
      const other = await kg.node({ name: 'Parrador', type: 'technology' });
      const approval = (await admin.get(`${BASE}/audit?limit=1`).expect(200)).body.items[0];
      const edge = await admin.post(`${BASE}/edges`).send({ sourceId: first, targetId: other, predicate: 'related_to' }).expect(201);
      const refused = await undo(approval.id).expect(409);
      expect(refused.body.laterActions.map((a: { id: string }) => a.id)).toEqual([edge.body.actionId]);
      await undo(edge.body.actionId).expect(200);
      await undo(approval.id).expect(200);
      expect(await kg.count('kg_nodes', 'id = $1', [first])).toBe(0);
    });

    it('refuses to undo an entity approval while the co-mention edge a later approval made to it stands (that approval could not be undone after)', async () => {
      const [first, second] = await approvedEntities('Co-mention Page', 'Ostrakon and Papyrion are writing media.', [['Ostrakon', 'product'], ['Papyrion', 'product']]);
      const [secondApproval, firstApproval] = (await admin.get(`${BASE}/audit?limit=2`).expect(200)).body.items;
      expect(await kg.count('kg_edges', "kind = 'co_mention' AND source_node_id = least($1::bigint, $2::bigint)", [first, second])).toBe(1);
      const refused = await undo(firstApproval.id).expect(409);
      expect(refused.body.laterActions.map((a: { id: string }) => a.id)).toEqual([secondApproval.id]);
      await undo(secondApproval.id).expect(200);
      await undo(firstApproval.id).expect(200);
      expect(await kg.count('kg_nodes', 'id IN ($1, $2)', [first, second])).toBe(0);
      expect(await kg.count('kg_edges', 'source_node_id IN ($1, $2) OR target_node_id IN ($1, $2)', [first, second])).toBe(0);
    });

    it('lists the review history with what can be undone', async () => {
      const res = await admin.get(`${BASE}/audit?limit=5`).expect(200);
      expect(res.body.items).toHaveLength(5);
      expect(res.body.items[0]).toEqual(expect.objectContaining({ action: expect.any(String), actorName: 'Grace', undoable: expect.any(Boolean) }));
      const older = await admin.get(`${BASE}/audit?limit=5&before=${res.body.nextBefore}`).expect(200);
      expect(Number(older.body.items[0].id)).toBeLessThan(Number(res.body.items[4].id));
      const one = await admin.get(`${BASE}/audit/${res.body.items[0].id}`).expect(200);
      expect(one.body.action.id).toBe(res.body.items[0].id);
      expect(Array.isArray(one.body.rows)).toBe(true);
      await admin.get(`${BASE}/audit?limit=501`).expect(400);
      await admin.get(`${BASE}/audit/77777777`).expect(404);
    });
  });

  describe('edges', () => {
    it('creates, edits (predicate, direction, weight), deletes and deletes-and-rejects typed edges; all undoable', async () => {
      const [go, c] = await approvedEntities('Edges Page', 'Go and C are languages.', [['Go', 'technology'], ['C', 'technology']]);
      const created = await admin.post(`${BASE}/edges`).send({ sourceId: go, targetId: c, predicate: 'related_to' }).expect(201);
      const edgeId = created.body.edge.id;
      expect(created.body.edge).toMatchObject({ sourceName: 'Go', targetName: 'C', predicate: 'related_to', origin: 'manual' });
      await admin.post(`${BASE}/edges`).send({ sourceId: go, targetId: c, predicate: 'related_to' }).expect(409);
      await admin.post(`${BASE}/edges`).send({ sourceId: go, targetId: go, predicate: 'related_to' }).expect(400);
      await admin.post(`${BASE}/edges`).send({ sourceId: go, targetId: c, predicate: 'loves' }).expect(400);
      await admin.post(`${BASE}/edges`).send({ sourceId: go, targetId: '987654', predicate: 'uses' }).expect(404);

      const edited = await admin.patch(`${BASE}/edges/${edgeId}`).send({ predicate: 'extends', swapDirection: true, weight: 2 }).expect(200);
      expect(edited.body.edge).toMatchObject({ sourceName: 'C', targetName: 'Go', predicate: 'extends', weight: 2 });
      expect((await admin.get(`${BASE}/edges/${edgeId}`).expect(200)).body.edge.predicate).toBe('extends');
      await admin.patch(`${BASE}/edges/${edgeId}`).send({ predicate: 'nope' }).expect(400);
      await admin.patch(`${BASE}/edges/${edgeId}`).send({ weight: -1 }).expect(400);
      const coMention = ((await t.dataSource.query(`SELECT id::text AS id FROM kg_edges WHERE kind = 'co_mention' AND source_node_id = least($1::bigint, $2::bigint)`, [go, c])) as { id: string }[])[0].id;
      expect((await admin.patch(`${BASE}/edges/${coMention}`).send({ weight: 5 }).expect(400)).body.message).toContain('derived');
      await admin.post(`${BASE}/edges/${coMention}/delete-and-reject`).send({}).expect(400);

      const before = await kg.snapshot();
      const deleted = await admin.delete(`${BASE}/edges/${edgeId}`).expect(200);
      expect(await kg.count('kg_edges', 'id = $1', [edgeId])).toBe(0);
      await undo(deleted.body.actionId).expect(200);
      expect(await kg.snapshot()).toBe(before);

      const rejected = await admin.post(`${BASE}/edges/${edgeId}/delete-and-reject`).send({ reason: 'wrong' }).expect(200);
      expect(rejected.body.summary).toBe('Deleted edge “C” extends “Go”; it will not be proposed again.');
      expect(await kg.count('kg_rejections', "kind = 'edge' AND signature = 'c|technology|extends|go|technology' AND reason = 'wrong'")).toBe(1);
      await admin.delete(`${BASE}/edges/${edgeId}`).expect(404);
      await admin.get(`${BASE}/edges/${edgeId}`).expect(404);
      await admin.delete(`${BASE}/edges/zzz`).expect(400);
    });
  });
});
