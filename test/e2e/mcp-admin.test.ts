// @module-tag slow (extracts the whole Foam corpus): `npm run test:fast` leaves it out; docs/testing.md
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFailing, callValidated, httpMcpClient } from '../support/mcp.js';
import { EXCLUDED_CLUSTER, startFoamWiki, type FoamWiki } from '../support/mcp-wiki.js';

/**
 * /admin-mcp with the official SDK client over Streamable HTTP, on a wiki built from the Foam docs: only admin
 * tokens get in; every tool is called and its answer checked against its declared output schema; every call
 * leaves an audit entry, and each change the same journal and audit rows as from the web UI.
 */

const ADMIN_TOOLS = [
  'list_proposals', 'inspect_proposal', 'review_proposals', 'curate_nodes', 'curate_edges', 'propose_knowledge', 'policy_list', 'policy_set',
  'policy_explain', 'policy_estimate', 'write_page', 'update_page', 'get_page_history', 'get_orphaned_pages', 'get_wiki_stats',
];

interface Proposal { id: string; kind: string; status: string; name: string | null; type: string | null; fromAgent: boolean; extractor: string }

let w: FoamWiki;
let client: Client;
let tools: Tool[];
let adminName: string;

beforeAll(async () => {
  w = await startFoamWiki();
  const admin = await w.t.user('admin', { name: 'Agent Operator' });
  adminName = admin.name;
  client = await httpMcpClient(w.baseUrl, '/admin-mcp', admin.token);
  tools = (await client.listTools()).tools;
}, 300_000);
afterAll(async () => {
  await client?.close();
  await w?.t.close();
});

const audits = async (): Promise<{ action: string; actor_name: string; details: Record<string, unknown> }[]> =>
  w.t.dataSource.query('SELECT action, actor_name, details FROM audit_log ORDER BY id');
const call = <T,>(name: string, args: Record<string, unknown> = {}) => callValidated<T>(client, tools, name, args);

describe('/admin-mcp access', () => {
  it('refuses tokens without the admin scope (reader, author: 403) and anonymous agents (401)', async () => {
    await expect(httpMcpClient(w.baseUrl, '/admin-mcp', (await w.t.user('reader')).token)).rejects.toThrow(/403/);
    await expect(httpMcpClient(w.baseUrl, '/admin-mcp', (await w.t.user('author')).token)).rejects.toThrow(/403/);
    await expect(httpMcpClient(w.baseUrl, '/admin-mcp')).rejects.toThrow(/401/);
  });

  it('refuses an admin’s token whose scope is read only', async () => {
    const admin = await w.t.user('admin', { name: 'Agent Operator' });
    const created = await w.t.http.post('/api/tokens').set('Authorization', `Bearer ${admin.token}`).send({ name: 'read only', scopes: ['read'] }).expect(201);
    await expect(httpMcpClient(w.baseUrl, '/admin-mcp', created.body.token)).rejects.toThrow(/403/);
  });

  it('lists every curation tool with a description, input and output schemas, and honest annotations', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...ADMIN_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name).sort();
    expect(readOnly).toEqual(['get_orphaned_pages', 'get_page_history', 'get_wiki_stats', 'inspect_proposal', 'list_proposals', 'policy_estimate', 'policy_explain', 'policy_list']);
  });
});

describe('/admin-mcp tools', () => {
  it('lists, inspects and reviews proposals (approve, edit-approve, reject, bulk), each audited as in the web UI', async () => {
    const queue = await call<{ proposals: Proposal[]; total: number; nextCursor: string | null }>('list_proposals', { kind: 'node', limit: 5 });
    expect(queue.proposals.length).toBe(5);
    expect(queue.proposals.every((p) => p.status === 'pending' && p.kind === 'node')).toBe(true);
    const more = await call<{ proposals: Proposal[] }>('list_proposals', { kind: 'node', limit: 5, cursor: queue.nextCursor });
    expect(more.proposals.map((p) => p.id).filter((id) => queue.proposals.some((p) => p.id === id))).toEqual([]);
    const [a, b, c, d, e] = queue.proposals;

    const inspected = await call<{ proposal: Proposal & { evidence: { quote: string; url: string }[] }; evidenceTotal: number }>('inspect_proposal', { id: a.id });
    expect(inspected.proposal.id).toBe(a.id);
    expect(inspected.proposal.evidence.length).toBeGreaterThan(0);
    expect(inspected.proposal.evidence[0].url).toMatch(new RegExp(`^${w.baseUrl}/page/`));

    const approved = await call<{ status: string; items: { nodeId: string | null }[]; actionId: string }>('review_proposals', { decision: 'approve', ids: [a.id] });
    expect(approved.status).toBe('approved');
    expect(approved.items[0].nodeId).not.toBeNull();
    const edited = await call<{ items: { nodeId: string }[] }>('review_proposals', { decision: 'edit_approve', ids: [b.id], edits: { name: 'Renamed By Agent', type: 'concept' } });
    const renamed: { name: string }[] = await w.t.dataSource.query('SELECT name FROM kg_nodes WHERE id = $1', [edited.items[0].nodeId]);
    expect(renamed[0].name).toBe('Renamed By Agent');
    const rejected = await call<{ status: string }>('review_proposals', { decision: 'reject', ids: [c.id], reason: 'noise' });
    expect(rejected.status).toBe('rejected');
    const bulk = await call<{ summary: string; items: unknown[] }>('review_proposals', { decision: 'approve', ids: [d.id, e.id] });
    expect(bulk.summary).toMatch(/Approved 2 proposals/);

    const actions = (await audits()).map((r) => r.action);
    for (const action of ['kg.proposal.approve', 'kg.proposal.edit_approve', 'kg.proposal.reject', 'kg.proposal.bulk_approve']) expect(actions).toContain(action);
    const mine = (await audits()).filter((r) => r.action.startsWith('kg.proposal.'));
    expect(mine.slice(-4).every((r) => r.actor_name === adminName)).toBe(true);
  });

  it('curates entities (create, update, merge, undo, delete) and edges (create, update, delete, delete-and-reject)', async () => {
    const created = await call<{ entity: { id: string; name: string }; actionId: string }>('curate_nodes', { operation: 'create', name: 'Agent Made Tool', type: 'technology', description: 'made over MCP' });
    const other = await call<{ entity: { id: string } }>('curate_nodes', { operation: 'create', name: 'Agent Made Twin', type: 'technology' });
    const updated = await call<{ entity: { aliases: string[] } }>('curate_nodes', { operation: 'update', id: created.entity.id, aliases: ['AMT'] });
    expect(updated.entity.aliases).toEqual(['AMT']);
    const withSynonym = await call<{ entity: { aliases: string[] } }>('curate_nodes', { operation: 'add_synonym', id: created.entity.id, synonym: 'Agent Tool' });
    expect(withSynonym.entity.aliases).toEqual(['AMT', 'Agent Tool']);
    const without = await call<{ entity: { aliases: string[] } }>('curate_nodes', { operation: 'remove_synonym', id: created.entity.id, synonym: 'agent tool' });
    expect(without.entity.aliases).toEqual(['AMT']);

    const edge = await call<{ details: { edge: { id: string } } }>('curate_edges', { operation: 'create', sourceId: created.entity.id, targetId: other.entity.id, predicate: 'related_to' });
    const edgeId = edge.details.edge.id;
    await call('curate_edges', { operation: 'update', id: edgeId, swapDirection: true });
    await call('curate_edges', { operation: 'delete', id: edgeId });
    const again = await call<{ details: { edge: { id: string } } }>('curate_edges', { operation: 'create', sourceId: created.entity.id, targetId: other.entity.id, predicate: 'uses' });
    await call('curate_edges', { operation: 'delete_and_reject', id: again.details.edge.id, reason: 'wrong' });

    const merged = await call<{ actionId: string; entity: { id: string; aliases: string[] } }>('curate_nodes', { operation: 'merge', id: other.entity.id, intoId: created.entity.id });
    expect(merged.entity.aliases).toContain('Agent Made Twin');
    const undone = await call<{ actionId: string | null; summary: string }>('curate_nodes', { operation: 'undo', actionId: merged.actionId });
    expect(undone.actionId).not.toBeNull();
    expect(((await w.t.dataSource.query('SELECT count(*)::int AS n FROM kg_nodes WHERE id = $1', [other.entity.id])) as { n: number }[])[0].n).toBe(1);
    const deleted = await call<{ summary: string }>('curate_nodes', { operation: 'delete', id: other.entity.id });
    expect(deleted.summary).toMatch(/Deleted entity “Agent Made Twin”/);

    const actions = (await audits()).map((r) => r.action);
    for (const action of ['kg.entity.create', 'kg.entity.update', 'kg.entity.merge', 'kg.undo', 'kg.entity.delete', 'kg.edge.create', 'kg.edge.update', 'kg.edge.delete']) {
      expect(actions, action).toContain(action);
    }
  });

  it('takes an agent’s proposals into the review queue, marked as such, and never lets an agent approve them', async () => {
    const report = await call<{ summary: string; nodes: { accepted: number }; edges: { accepted: number } }>('propose_knowledge', {
      entities: [{ key: 'a', name: 'Zettelkasten Method', type: 'concept', confidence: 0.9 }, { key: 'b', name: 'Niklas Luhmann', type: 'person' }],
      relations: [{ source: 'a', target: 'b', predicate: 'created_by' }],
    });
    expect(report.nodes.accepted).toBe(2);
    expect(report.edges.accepted).toBe(1);
    const queue = await call<{ proposals: Proposal[] }>('list_proposals', { extractor: 'agent', limit: 10 });
    expect(queue.proposals).toHaveLength(3);
    expect(queue.proposals.every((p) => p.fromAgent && p.status === 'pending')).toBe(true);
    const node = queue.proposals.find((p) => p.name === 'Zettelkasten Method')!;
    expect(await callFailing(client, 'review_proposals', { decision: 'approve', ids: [node.id] })).toMatch(/made by an agent: a person approves it/);
    expect(await callFailing(client, 'review_proposals', { decision: 'edit_approve', ids: [node.id], edits: { name: 'Zettelkasten' } })).toMatch(/made by an agent/);
    const stillPending: { status: string }[] = await w.t.dataSource.query('SELECT status FROM kg_proposals WHERE id = $1', [node.id]);
    expect(stillPending[0].status).toBe('pending');
    // A person approves it through the web UI's route.
    await w.admin.post(`/admin/knowledge-graph/proposals/${node.id}/approve`).send({}).expect(200);
    // Nor indirectly: an edge whose pending endpoint an agent proposed would approve that endpoint with it.
    await w.admin.post('/admin/knowledge-graph/import').send({
      graph: { nodes: [{ id: 'x', name: 'Niklas Luhmann', type: 'person' }, { id: 'y', name: 'Bielefeld', type: 'place' }], edges: [{ source: 'x', target: 'y', predicate: 'located_in' }] },
      mode: 'pending',
    }).expect(200);
    const [edge] = (await call<{ proposals: Proposal[] }>('list_proposals', { extractor: 'import', predicate: 'located_in' })).proposals;
    expect(edge.fromAgent).toBe(false);
    expect(await callFailing(client, 'review_proposals', { decision: 'approve', ids: [edge.id] })).toMatch(/would approve with it proposal \d+, which an agent made/);
    const imports = (await audits()).filter((r) => r.action === 'kg.import');
    expect(imports.map((r) => [r.actor_name, r.details.source ?? 'file'])).toEqual([[adminName, 'agent'], ['Ada Admin', 'file']]);
  });

  it('reads and sets the inclusion policy: list, explain, estimate, set (audited in the policy trail)', async () => {
    const list = await call<{ clusters: { cluster: string; effectiveAction: string }[] }>('policy_list');
    expect(list.clusters.find((c) => c.cluster === EXCLUDED_CLUSTER)?.effectiveAction).toBe('exclude');
    const explained = await call<{ included: boolean; explanation: string }>('policy_explain', { slug: 'graph-view' });
    expect(explained.included).toBe(true);
    const estimate = await call<{ summary: string; changes: { kind: string; hide: number; reveal: number }[] }>('policy_estimate', { cluster: EXCLUDED_CLUSTER, action: 'include' });
    expect(estimate.changes.find((c) => c.kind === 'nodes')?.reveal).toBe(w.hiddenNodeIds.length);
    const set = await call<{ cluster: { effectiveAction: string } }>('policy_set', { cluster: 'user/recipes', action: 'exclude', reason: 'agent test' });
    expect(set.cluster.effectiveAction).toBe('exclude');
    await call('policy_set', { cluster: 'user/recipes', action: 'clear', reason: 'back to the parent' });
    const trail: { event: string; actor: string }[] = await w.t.dataSource.query(`SELECT event, actor FROM kg_policy_audit WHERE cluster = 'user/recipes' ORDER BY id`);
    expect(trail).toEqual([{ event: 'set', actor: adminName }, { event: 'clear', actor: adminName }]);
    expect(await callFailing(client, 'policy_set', { cluster: 'user/recipes', action: 'exclude', reason: '  ' })).toMatch(/give a reason/);
  });

  it('writes and updates pages with the base version: a stale write is refused and loses nothing', async () => {
    const written = await call<{ page: { slug: string; version: number; url: string } }>('write_page', { title: 'Agent Notes', body: '# Agent Notes\n\nFirst text.' });
    expect(written.page.url).toBe(`${w.baseUrl}/page/agent-notes`);
    const updated = await call<{ page: { version: number }; changed: boolean }>('update_page', { slug: 'agent-notes', body: '# Agent Notes\n\nSecond text.', baseVersion: written.page.version });
    expect(updated).toMatchObject({ changed: true, page: { version: 2 } });
    const stale = await callFailing(client, 'update_page', { slug: 'agent-notes', body: '# Agent Notes\n\nMy stale text.', baseVersion: 1 });
    expect(stale).toMatch(/Your text was not saved/);
    expect(JSON.parse(stale.slice(stale.indexOf('{')))).toMatchObject({ code: 'version_conflict', currentVersion: 2, yourBody: '# Agent Notes\n\nMy stale text.' });
    const page = (await w.t.http.get('/api/pages/agent-notes').expect(200)).body as { body: string; version: number };
    expect(page).toMatchObject({ version: 2, body: '# Agent Notes\n\nSecond text.' });
    const history = await call<{ revisions: { version: number; author: string }[]; total: number }>('get_page_history', { slug: 'agent-notes' });
    expect(history.revisions.map((r) => [r.version, r.author])).toEqual([[2, adminName], [1, adminName]]);
    expect(await callFailing(client, 'write_page', { title: 'Agent Notes', body: 'again' })).toMatch(/already exists/);
  });

  it('reports orphans and the wiki’s numbers', async () => {
    const orphans = await call<{ pages: { slug: string }[]; total: number }>('get_orphaned_pages', { limit: 100 });
    expect(orphans.pages.map((p) => p.slug)).toContain('agent-notes');
    const stats = await call<{ pages: { live: number }; graph: { entities: number; pendingProposals: number }; links: { broken: number } }>('get_wiki_stats');
    const live = ((await w.t.dataSource.query('SELECT count(*)::int AS n FROM pages WHERE deleted_at IS NULL')) as { n: number }[])[0].n;
    expect(stats.pages.live).toBe(live);
    expect(stats.graph.entities).toBe(((await w.t.dataSource.query('SELECT count(*)::int AS n FROM kg_visible_nodes')) as { n: number }[])[0].n);
  });

  it('answers bad arguments with an MCP error that says what was wrong, and keeps the session', async () => {
    expect(await callFailing(client, 'review_proposals', { decision: 'maybe', ids: ['1'] })).toMatch(/decision/);
    expect(await callFailing(client, 'review_proposals', { decision: 'edit_approve', ids: ['1', '2'] })).toMatch(/exactly one id/);
    expect(await callFailing(client, 'curate_nodes', { operation: 'merge', id: '1' })).toMatch(/merge needs `intoId`/);
    expect(await callFailing(client, 'curate_edges', { operation: 'create', sourceId: '1', targetId: '2', predicate: 'likes' })).toMatch(/not a predicate/);
    expect(await callFailing(client, 'inspect_proposal', { id: '99999999' })).toMatch(/does not exist/);
    expect(await callFailing(client, 'propose_knowledge', { entities: [] })).toMatch(/entities/);
    expect((await call<{ pages: { live: number } }>('get_wiki_stats')).pages.live).toBeGreaterThan(0);
  });

  it('called every tool, and wrote one audit entry per call (mcp.admin.<tool>) with the token’s user as the actor', async () => {
    const entries = (await audits()).filter((r) => r.action.startsWith('mcp.admin.'));
    expect(new Set(entries.map((r) => r.action.slice('mcp.admin.'.length)))).toEqual(new Set(ADMIN_TOOLS));
    expect(entries.every((r) => r.actor_name === adminName)).toBe(true);
    const failed = entries.filter((r) => r.details.ok === false);
    expect(failed.length).toBeGreaterThan(5);
    const before = entries.length;
    await call('get_wiki_stats');
    expect((await audits()).filter((r) => r.action.startsWith('mcp.admin.')).length).toBe(before + 1);
    // A page body is kept by its length, not its text.
    const write = entries.find((r) => r.action === 'mcp.admin.write_page')!;
    expect(write.details).toMatchObject({ ok: true, arguments: { title: 'Agent Notes' } });
  });
});
