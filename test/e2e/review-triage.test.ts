import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory, type Support } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';

interface Group { id: string; label: string; count: number; action: string }
interface Item { proposalId: string; label: string; change: string; intoEntityId: string | null }

describe('triage of the review queue: groups, previews, one action each (JSON and HTML)', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;
  let passage: Support;
  const ids: Record<string, string> = {};
  const nodes: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Grace' });
    // The wiki's language: "folder" and "preview" are ordinary words here (lower case in running text); "Markdown" is a name.
    passage = await kg.passage('Working With Notes', 'Each folder holds notes. Open the folder to see a preview. Markdown files live in a folder; Markdown is plain text.');
    await kg.page('More Notes', { body: 'Move a note to another folder. The preview updates. Write Markdown, and the preview shows it.' });
    const support = [{ ...passage, quote: 'folder' }];

    nodes.canvas = await kg.node({ name: 'Canvas', type: 'product' });
    nodes.excalidraw = await kg.node({ name: 'Excalidraw', type: 'product', aliases: ['Whiteboard'] });
    nodes.foam = await kg.node({ name: 'Foam', type: 'product' });
    nodes.vscode = await kg.node({ name: 'VS Code', type: 'product' });

    ids.canvas = await kg.nodeProposal({ name: 'canvas', type: 'concept', confidence: 0.7, signals: ['properNoun'], support });
    ids.whiteboard = await kg.nodeProposal({ name: 'whiteboard', type: 'concept', confidence: 0.66, signals: ['heading'], support });
    ids.requires = await kg.edgeProposal({ source: { name: 'Foam', type: 'product' }, predicate: 'requires', target: { name: 'VS Code', type: 'product' }, confidence: 0.75, signals: ['sentence-pattern'], support: [{ ...passage, quote: 'folder' }] });
    ids.related = await kg.edgeProposal({ source: { name: 'Foam', type: 'product' }, predicate: 'related_to', target: { name: 'VS Code', type: 'product' }, confidence: 0.7, signals: ['co-occurrence'], support });
    ids.halfPending = await kg.edgeProposal({ source: { name: 'Foam', type: 'product' }, predicate: 'uses', target: { name: 'Dendron', type: 'product' }, confidence: 0.7, signals: ['sentence-pattern'], support });
    ids.folder = await kg.nodeProposal({ name: 'Folder', type: 'concept', confidence: 0.62, signals: ['heading', 'repeat×1'], support });
    ids.preview = await kg.nodeProposal({ name: 'preview', type: 'concept', confidence: 0.61, signals: ['nounPhrase'], support });
    ids.linkedFolder = await kg.nodeProposal({ name: 'Folders', type: 'other', confidence: 0.7, signals: ['link'], support });
    ids.markdown = await kg.nodeProposal({ name: 'Markdown', type: 'technology', confidence: 0.7, signals: ['properNoun'], support });
  });
  afterAll(() => t?.close());

  const status = async (id: string) => ((await t.dataSource.query('SELECT status FROM kg_proposals WHERE id = $1', [id])) as { status: string }[])[0].status;

  it('groups the pending proposals by reason, each proposal in one group', async () => {
    const res = await admin.get(`${BASE}/triage`).expect(200);
    const groups = res.body as Group[];
    expect(groups.map((g) => [g.id, g.count, g.action])).toEqual([
      ['same-as-approved', 2, 'approve-into'], ['typed-relations', 1, 'approve'], ['stated-by-links', 0, 'approve'], ['generic-words', 2, 'reject'],
    ]);
    const preview = async (group: string) => ((await admin.get(`${BASE}/triage/${group}`).expect(200)).body.items as Item[]);
    expect((await preview('same-as-approved')).map((i) => [i.proposalId, i.intoEntityId])).toEqual([[ids.canvas, nodes.canvas], [ids.whiteboard, nodes.excalidraw]]);
    expect((await preview('same-as-approved'))[1].change).toBe('“whiteboard” (concept) joins the approved entity “Excalidraw” (product), whose alias it is: its mentions and evidence go to that entity, and the name becomes an alias.');
    // Only a typed predicate whose two ends are approved entities: not related_to, not an edge to a name that is no entity.
    expect((await preview('typed-relations')).map((i) => [i.proposalId, i.change])).toEqual([[ids.requires, 'Adds the edge “Foam” requires “VS Code” between the two approved entities.']]);
    // Ordinary words with weak signals only; a linked name and a capitalised name stay out, lowest confidence first.
    const generic = await preview('generic-words');
    expect(generic.map((i) => i.proposalId)).toEqual([ids.preview, ids.folder]);
    expect(generic[1].change).toMatch(/^Rejects “Folder” \(concept\): written [1-9]\d* times? in lower case, 0 capitalised; it will not be proposed again\.$/);
  });

  it('previews exactly the ids asked for, changing nothing (dryRun)', async () => {
    const res = await admin.post(`${BASE}/triage/generic-words`).send({ ids: [ids.folder, ids.markdown], dryRun: true }).expect(200);
    expect(res.body.items.map((i: Item) => i.proposalId)).toEqual([ids.folder]);
    expect(await status(ids.folder)).toBe('pending');
  });

  it('rejects a group in one undoable action, skipping what is not in the group; undo brings them back', async () => {
    const res = await admin.post(`${BASE}/triage/generic-words`).send({ ids: [ids.folder, ids.preview, ids.markdown] }).expect(200);
    expect(res.body).toMatchObject({ group: 'generic-words', status: 'rejected' });
    expect(res.body.skipped).toEqual([{ proposalId: ids.markdown, reason: 'no longer in “Likely noise: generic word” (reviewed meanwhile, or it changed)' }]);
    expect([await status(ids.folder), await status(ids.preview), await status(ids.markdown)]).toEqual(['rejected', 'rejected', 'pending']);
    const reasons: { reason: string }[] = await t.dataSource.query(`SELECT reason FROM kg_rejections WHERE kind = 'node' ORDER BY signature`);
    expect(reasons.map((r) => r.reason)).toEqual(['triage: likely noise: generic word', 'triage: likely noise: generic word']);
    const audit: { action: string }[] = await t.dataSource.query(`SELECT action FROM audit_log WHERE action LIKE 'kg.proposal.bulk%'`);
    expect(audit.map((a) => a.action)).toEqual(['kg.proposal.bulk_reject']);

    await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
    expect([await status(ids.folder), await status(ids.preview)]).toEqual(['pending', 'pending']);
    expect(await kg.count('kg_rejections')).toBe(0);
  });

  it('approves proposals into the entity they name, in one action: provenance, aliases, no new entity', async () => {
    const before = await kg.count('kg_nodes');
    const res = await admin.post(`${BASE}/triage/same-as-approved`).send({ ids: [ids.canvas, ids.whiteboard] }).expect(200);
    expect(res.body.items.map((i: { proposalId: string; nodeId: string; createdEntity: boolean }) => [i.proposalId, i.nodeId, i.createdEntity]))
      .toEqual(expect.arrayContaining([[ids.canvas, nodes.canvas, false], [ids.whiteboard, nodes.excalidraw, false]]));
    expect(await kg.count('kg_nodes')).toBe(before);
    expect(await kg.count('kg_node_provenance', 'node_id = $1 AND proposal_id = $2', [nodes.canvas, ids.canvas])).toBe(1);
    const [{ aliases }] = await t.dataSource.query('SELECT aliases FROM kg_nodes WHERE id = $1', [nodes.excalidraw]);
    expect(aliases.map((a: string) => a.toLowerCase())).toContain('whiteboard');
    // The queue's groups follow: those two are reviewed.
    const groups = (await admin.get(`${BASE}/triage`).expect(200)).body as Group[];
    expect(groups.find((g) => g.id === 'same-as-approved')!.count).toBe(0);
    await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
    expect([await status(ids.canvas), await status(ids.whiteboard)]).toEqual(['pending', 'pending']);
  });

  it('approves typed relations between approved entities as one action', async () => {
    const res = await admin.post(`${BASE}/triage/typed-relations`).send({ ids: [ids.requires] }).expect(200);
    expect(res.body.summary).toBe('Approved 1 proposal (0 nodes, 1 edge).');
    expect(await kg.count('kg_edges', `kind = 'typed' AND predicate = 'requires' AND source_node_id = $1 AND target_node_id = $2`, [nodes.foam, nodes.vscode])).toBe(1);
    await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
    expect(await status(ids.requires)).toBe('pending');
  });

  it('approves the relations the wiki\'s own links state, with the pending entities they need, as one action', async () => {
    const support = [{ ...passage, quote: 'folder' }];
    const sync = await kg.nodeProposal({ name: 'Obsidian Sync', type: 'product', confidence: 0.8, signals: ['link', 'title'], support });
    const seeAlso = await kg.edgeProposal({ source: { name: 'Foam', type: 'product' }, predicate: 'related_to', target: { name: 'Obsidian Sync', type: 'product' }, confidence: 0.8, signals: ['see-also'], support });
    // A link-stated relation to a name nobody proposes, and a co-occurrence, stay out.
    const orphan = await kg.edgeProposal({ source: { name: 'Foam', type: 'product' }, predicate: 'part_of', target: { name: 'Nowhere', type: 'product' }, confidence: 0.8, signals: ['hierarchy'], support });
    const preview = (await admin.get(`${BASE}/triage/stated-by-links`).expect(200)).body as { count: number; items: Item[] };
    expect(preview.items.map((i) => [i.proposalId, i.change])).toEqual([[seeAlso, 'Adds the edge “Foam” related_to “Obsidian Sync”; approves the pending entity “Obsidian Sync” with it.']]);
    expect(preview.items.map((i) => i.proposalId)).not.toContain(ids.related);

    const res = await admin.post(`${BASE}/triage/stated-by-links`).send({ ids: [seeAlso, orphan] }).expect(200);
    expect(res.body.skipped.map((s: { proposalId: string }) => s.proposalId)).toEqual([orphan]);
    expect([await status(seeAlso), await status(sync), await status(orphan)]).toEqual(['approved', 'approved', 'pending']);
    const [{ id: syncNode }] = await t.dataSource.query(`SELECT id FROM kg_nodes WHERE name = 'Obsidian Sync'`);
    expect(await kg.count('kg_edges', `predicate = 'related_to' AND source_node_id = $1 AND target_node_id = $2`, [nodes.foam, syncNode])).toBe(1);
    await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
    expect([await status(seeAlso), await status(sync)]).toEqual(['pending', 'pending']);
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'retired' WHERE id = ANY($1::bigint[])`, [[sync, seeAlso, orphan]]);
  });

  it('answers a clear 4xx for an unknown group, no ids, or bad ids', async () => {
    expect((await admin.get(`${BASE}/triage/everything`).expect(404)).body.message).toContain('The triage group “everything” (groups: same-as-approved, typed-relations, stated-by-links, generic-words)');
    expect((await admin.post(`${BASE}/triage/generic-words`).send({ ids: [] }).expect(400)).body.message).toContain('Say which proposals');
    expect((await admin.post(`${BASE}/triage/generic-words`).send({ ids: ['x1'] }).expect(400)).body.message).toContain('each of ids must be a proposal id');
    expect((await admin.post(`${BASE}/triage/generic-words`).send({}).expect(400)).body.message).toContain('ids must be a list of proposal ids');
    await (await t.as('author')).get(`${BASE}/triage`).expect(403);
  });

  it('shows why each proposal was proposed, and the similar proposals rejected before', async () => {
    // Two rejected proposals like "Folder": one with the same name stem, one of the same type with the same signals.
    const support = [{ ...passage, quote: 'folder' }];
    const folders = await kg.nodeProposal({ name: 'folders', type: 'product', confidence: 0.6, signals: ['nounPhrase'], support });
    const sameSignals = await kg.nodeProposal({ name: 'Drawer', type: 'concept', confidence: 0.6, signals: ['repeat×3', 'heading'], support });
    await admin.post(`${BASE}/proposals/bulk`).send({ action: 'reject', ids: [folders, sameSignals] }).expect(200);

    const json = (await admin.get(`${BASE}/proposals/${ids.folder}`).expect(200)).body;
    expect(json.why.signals).toEqual([
      { signal: 'heading', weight: 0.3, meaning: 'appears in a heading' },
      { signal: 'repeat×1', weight: 0.15, meaning: 'mentioned in 1 more sentence (0.15 each)' },
    ]);
    expect(json.why.rawConfidence).toBeCloseTo(0.62, 5);
    expect(json.similarRejected).toEqual({ sameStem: 1, samePattern: 1, total: 2 });

    const html = (await admin.get(BASE).expect(200)).text;
    const card = html.slice(html.indexOf(`id="p-${ids.folder}"`), html.indexOf('</article>', html.indexOf(`id="p-${ids.folder}"`)));
    expect(card).toContain('<span class="kg-why"><span class="kg-why-label">why</span>');
    expect(card).toContain('<span class="kg-signal" title="appears in a heading">heading <span class="kg-weight">0.3</span></span>');
    expect(card).toContain('2 similar proposals were rejected before');
    expect(card).toContain('title="1 with the same name stem, 1 with the same type and signals"');
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'retired' WHERE id = ANY($1::bigint[])`, [[folders, sameSignals]]);
    await t.dataSource.query('DELETE FROM kg_rejections');
  });

  it('works without JavaScript: the queue links each group to its preview, whose form acts on the ticked proposals', async () => {
    const { agent: browser, csrfToken: csrf } = await t.login(await t.user('admin', { name: 'Hedy' }));
    const post = (path: string, fields: Record<string, string>) =>
      browser.post(path).type('form').set('Accept', 'text/html').send(new URLSearchParams({ _csrf: csrf, ...fields }).toString());
    const queue = (await browser.get(BASE).set('Accept', 'text/html').expect(200)).text;
    expect(queue).toMatch(/<a class="chip kg-triage-group" href="\/admin\/knowledge-graph\/ui\/triage\/generic-words\?return[^"]+" data-triage="generic-words"[^>]*>Likely noise: generic word <strong>\(2\)<\/strong><\/a>/);
    const preview = await browser.get(`${BASE}/ui/triage/generic-words?return=${encodeURIComponent(BASE)}`).set('Accept', 'text/html').expect(200);
    expect(preview.text).toContain('Triage: Likely noise: generic word (2)');
    expect(preview.text).toContain(`<input type="checkbox" name="ids" value="${ids.folder}" checked>`);
    expect(preview.text).toContain('Reject them all (2)');

    // Nothing ticked: the preview again, with why (400), nothing changed.
    const empty = await post(`${BASE}/ui/triage/generic-words`, { return: BASE }).expect(400);
    expect(empty.text).toContain('Nothing was ticked');
    // One ticked (the other unticked stays in the queue).
    const done = await post(`${BASE}/ui/triage/generic-words`, { return: BASE, ids: ids.preview }).expect(303);
    expect(done.headers.location).toMatch(/^\/admin\/knowledge-graph\?done=\d+$/);
    expect([await status(ids.preview), await status(ids.folder)]).toEqual(['rejected', 'pending']);
    const after = (await browser.get(done.headers.location).set('Accept', 'text/html').expect(200)).text;
    expect(after).toContain('Rejected 1 proposal (“triage: likely noise: generic word”); they will not be proposed again.');
    expect(after).toContain('data-undo');
  });

  it('lists the calibration on its own page, linked from the queue', async () => {
    const queue = (await admin.get(BASE).expect(200)).text;
    expect(queue).toContain('href="/admin/knowledge-graph/ui/calibration"');
    const page = (await admin.get(`${BASE}/ui/calibration`).expect(200)).text;
    expect(page).toContain('data-calibration="builtin-node"');
    expect(page).toContain('the judged set');
  });
});
