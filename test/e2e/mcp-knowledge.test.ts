// @module-tag slow (extracts the whole Foam corpus, and runs the MCP relay as a process): `npm run test:fast` leaves it out; docs/testing.md
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, ensureCliBuilt, kurate } from '../support/cli.js';
import { callFailing, callValidated, httpMcpClient, stdioMcpClient } from '../support/mcp.js';
import { EXCLUDED_CLUSTER, startFoamWiki, type FoamWiki } from '../support/mcp-wiki.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * /knowledge-mcp, with the official SDK client, over Streamable HTTP and over stdio (`bin/kurate mcp`), on a wiki
 * built from the Foam docs: every tool listed and called, every answer checked against its declared output schema,
 * nothing the inclusion policy hides ever returned, bad arguments answered with a message and the session intact.
 */

const KNOWLEDGE_TOOLS = [
  'search', 'retrieve_context', 'get_page', 'read_pages', 'get_page_for_agent', 'list_pages', 'list_pages_by_filter', 'list_clusters',
  'list_tags', 'list_metadata_values', 'get_backlinks', 'get_outbound_links', 'get_broken_links', 'discover_schema', 'query_nodes',
  'get_node', 'traverse', 'find_similar', 'related_pages',
];

interface PageSummary { id: string; slug: string; title: string; url: string; cluster: string | null; version: number }
interface NodeView { id: string; name: string; type: string; url: string }
interface EdgeView { id: string; source: { id: string }; target: { id: string } }

let w: FoamWiki;
let readerToken: string;
/** An approved, visible entity with typed relations, and a page that mentions it. */
let hub: { id: string; name: string; pageSlug: string };
let pageCount: number;

beforeAll(async () => {
  await ensureCliBuilt();
  w = await startFoamWiki();
  readerToken = (await w.t.user('reader')).token;
  const rows: { id: string; name: string; slug: string }[] = await w.t.dataSource.query(
    `SELECT n.id::text AS id, n.name, (SELECT pg.slug FROM kg_visible_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id JOIN pages pg ON pg.id = c.page_id
                                        WHERE m.node_id = n.id ORDER BY pg.slug LIMIT 1) AS slug
       FROM kg_visible_nodes n
      WHERE EXISTS (SELECT 1 FROM kg_visible_mentions m WHERE m.node_id = n.id)
      ORDER BY (SELECT count(*) FROM kg_visible_edges e WHERE e.kind = 'typed' AND (e.source_node_id = n.id OR e.target_node_id = n.id)) DESC, n.id
      LIMIT 1`,
  );
  hub = { id: rows[0].id, name: rows[0].name, pageSlug: rows[0].slug };
  pageCount = ((await w.t.dataSource.query('SELECT count(*)::int AS n FROM pages WHERE deleted_at IS NULL')) as { n: number }[])[0].n;
}, 300_000);
afterAll(() => w?.t.close());

/** Every tool, called with arguments that make it work on the Foam docs, each answer checked for what it must hold. */
async function exerciseEveryTool(client: Client, tools: Tool[]): Promise<Set<string>> {
  const called = new Set<string>();
  const call = async <T,>(name: string, args: Record<string, unknown> = {}) => {
    called.add(name);
    return callValidated<T>(client, tools, name, args);
  };

  const search = await call<{ hits: { id: string; slug: string; url: string }[]; total: number; nextCursor: string | null }>('search', { query: 'graph visualization', limit: 2, explain: true });
  expect(search.hits.map((h) => h.slug)).toContain('graph-view');
  expect(search.hits[0].url).toBe(`${w.baseUrl}/page/${search.hits[0].slug}`);
  expect(search.hits[0].id).toMatch(/^[0-9a-f-]{36}$/);
  expect(search.nextCursor).not.toBeNull();
  const next = await call<{ hits: { slug: string }[] }>('search', { query: 'graph visualization', limit: 2, cursor: search.nextCursor });
  expect(next.hits.length).toBeGreaterThan(0);
  expect(next.hits.map((h) => h.slug).filter((s) => search.hits.some((h) => h.slug === s))).toEqual([]);

  const context = await call<{ passages: { page: { slug: string }; text: string; url: string; tokens: number }[]; tokensUsed: number }>(
    'retrieve_context', { question: 'How do I show the graph of my notes?', tokenBudget: 600 });
  expect(context.passages.length).toBeGreaterThan(0);
  expect(context.tokensUsed).toBeLessThanOrEqual(600);
  expect(context.passages.map((p) => p.page.slug)).toContain('graph-view');
  expect(context.passages.every((p) => p.url.startsWith(`${w.baseUrl}/page/`))).toBe(true);

  const page = await call<{ page: PageSummary & { body: string } }>('get_page', { slug: 'graph-view' });
  expect(page.page.body).toContain('Foam: Show Graph');

  const several = await call<{ pages: { slug: string }[]; missing: { slug: string; reason: string }[] }>('read_pages', { slugs: ['graph-view', 'no-such-page-here'] });
  expect(several.pages.map((p) => p.slug)).toEqual(['graph-view']);
  expect(several.missing).toEqual([{ slug: 'no-such-page-here', reason: 'There is no page "no-such-page-here".' }]);

  const trimmed = await call<{ sections: unknown[]; outline: { heading: string; url: string }[]; omittedSections: number; tokensUsed: number; summary: string }>(
    'get_page_for_agent', { slug: 'graph-view', tokenBudget: 120 });
  expect(trimmed.tokensUsed).toBeLessThanOrEqual(120);
  expect(trimmed.outline.length).toBeGreaterThan(1);
  expect(trimmed.outline.every((h) => h.url.startsWith(`${w.baseUrl}/page/graph-view#`))).toBe(true);
  expect(trimmed.omittedSections).toBeGreaterThan(0);
  expect(trimmed.summary.length).toBeGreaterThan(0);

  // The whole wiki, page by page through the cursors: every page once.
  const slugs: string[] = [];
  let cursor: string | null = null;
  do {
    const list: { pages: PageSummary[]; total: number; nextCursor: string | null } = await call('list_pages', { limit: 40, ...(cursor ? { cursor } : {}) });
    expect(list.total).toBe(pageCount);
    slugs.push(...list.pages.map((p) => p.slug));
    cursor = list.nextCursor;
  } while (cursor);
  expect(new Set(slugs).size).toBe(pageCount);

  const features = await call<{ pages: PageSummary[]; total: number }>('list_pages_by_filter', { cluster: 'user/features', limit: 100 });
  expect(features.total).toBeGreaterThan(5);
  expect(features.pages.every((p) => p.cluster === 'user/features')).toBe(true);
  const future = await call<{ total: number }>('list_pages_by_filter', { updatedSince: '2999-01-01T00:00:00Z' });
  expect(future.total).toBe(0);

  const clusters = await call<{ clusters: { name: string; pages: number }[] }>('list_clusters', { limit: 100 });
  expect(clusters.clusters.find((c) => c.name === 'user/features')?.pages).toBe(features.total);
  await call('list_tags', { limit: 10 });
  const keys = await call<{ values: { value: string; pages: number }[] }>('list_metadata_values', {});
  expect(keys.values.length).toBeGreaterThan(0);
  const values = await call<{ key: string; values: { value: string; pages: number }[] }>('list_metadata_values', { key: keys.values[0].value });
  expect(values.key).toBe(keys.values[0].value);
  expect(values.values.length).toBeGreaterThan(0);

  const hubs = (await w.t.http.get('/api/reports/hubs?perPage=1').expect(200)).body.items as { slug: string; inbound: number }[];
  const backlinks = await call<{ total: number; backlinks: { slug: string }[] }>('get_backlinks', { slug: hubs[0].slug, limit: 100 });
  expect(backlinks.total).toBe(hubs[0].inbound);
  const outbound = await call<{ links: { resolved: boolean }[] }>('get_outbound_links', { slug: 'index' });
  expect(outbound.links.some((l) => l.resolved)).toBe(true);
  const wanted = (await w.t.http.get('/api/reports/wanted').expect(200)).body as { total: number };
  const broken = await call<{ total: number }>('get_broken_links', {});
  expect(broken.total).toBe(wanted.total);

  const schema = await call<{ totals: { entities: number }; entityTypes: { name: string }[] }>('discover_schema');
  expect(schema.totals.entities).toBe(await visibleNodes());
  expect(schema.entityTypes.length).toBeGreaterThan(3);

  const nodes = await call<{ nodes: NodeView[]; total: number }>('query_nodes', { limit: 100 });
  expect(nodes.total).toBe(await visibleNodes());
  const byName = await call<{ nodes: NodeView[] }>('query_nodes', { name: hub.name });
  expect(byName.nodes.map((n) => n.id)).toContain(hub.id);

  const node = await call<{ node: NodeView; out: EdgeView[]; in: EdgeView[]; pages: { slug: string }[] }>('get_node', { id: hub.id });
  expect(node.node.name).toBe(hub.name);
  expect(node.out.length + node.in.length).toBeGreaterThan(0);
  expect(node.pages.map((p) => p.slug)).toContain(hub.pageSlug);

  const walk = await call<{ nodes: (NodeView & { depth: number })[]; edges: EdgeView[] }>('traverse', { from: hub.id, depth: 2 });
  expect(walk.nodes.length).toBeGreaterThan(0);
  expect(walk.edges.length).toBeGreaterThan(0);
  expect(walk.nodes.every((n) => n.depth >= 1 && n.depth <= 2)).toBe(true);

  const similar = await call<{ similar: (NodeView & { similarity: number })[] }>('find_similar', { id: hub.id, limit: 5 });
  expect(similar.similar.length).toBeGreaterThan(0);
  expect(similar.similar.map((n) => n.id)).not.toContain(hub.id);
  const byText = await call<{ similar: NodeView[] }>('find_similar', { name: hub.name, limit: 5 });
  expect(byText.similar.length).toBeGreaterThan(0);

  const related = await call<{ related: { slug: string; via: string[] }[] }>('related_pages', { slug: hub.pageSlug });
  expect(related.related.length).toBeGreaterThan(0);
  expect(related.related.map((r) => r.slug)).not.toContain(hub.pageSlug);

  // Nothing the policy hides, anywhere in what the graph tools answered.
  const seen = [...nodes.nodes.map((n) => n.id), ...walk.nodes.map((n) => n.id), ...similar.similar.map((n) => n.id), ...byText.similar.map((n) => n.id),
    ...[...node.out, ...node.in, ...walk.edges].flatMap((e) => [e.source.id, e.target.id])];
  expect(seen.filter((id) => w.hiddenNodeIds.includes(id))).toEqual([]);
  return called;
}

async function visibleNodes(): Promise<number> {
  return ((await w.t.dataSource.query('SELECT count(*)::int AS n FROM kg_visible_nodes')) as { n: number }[])[0].n;
}

describe('/knowledge-mcp over Streamable HTTP', () => {
  let client: Client;
  let tools: Tool[];
  beforeAll(async () => {
    client = await httpMcpClient(w.baseUrl, '/knowledge-mcp', readerToken);
    tools = (await client.listTools()).tools;
  });
  afterAll(() => client?.close());

  it('lists every tool with a description, input and output schemas, and read-only annotations', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...KNOWLEDGE_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });

  it('answers every tool on the Foam docs, each result valid against its declared output schema', async () => {
    const called = await exerciseEveryTool(client, tools);
    expect([...called].sort()).toEqual([...KNOWLEDGE_TOOLS].sort());
  }, 120_000);

  it('never returns what the inclusion policy hides (soft exclude): not by id, not by name, not around a page of the excluded cluster', async () => {
    expect(w.hiddenNodeIds.length).toBeGreaterThan(0);
    for (const id of w.hiddenNodeIds.slice(0, 5)) {
      expect(await callFailing(client, 'get_node', { id })).toMatch(/does not exist \(or the inclusion policy hides it\)/);
      expect(await callFailing(client, 'traverse', { from: id })).toMatch(/inclusion policy hides it/);
      expect(await callFailing(client, 'find_similar', { id })).toMatch(/inclusion policy hides it/);
    }
    for (const name of w.hiddenNodeNames.slice(0, 5)) {
      const found = await callValidated<{ nodes: NodeView[] }>(client, tools, 'query_nodes', { name, limit: 100 });
      expect(found.nodes.filter((n) => w.hiddenNodeIds.includes(n.id))).toEqual([]);
      const near = await callValidated<{ similar: NodeView[] }>(client, tools, 'find_similar', { name, limit: 50 });
      expect(near.similar.filter((n) => w.hiddenNodeIds.includes(n.id))).toEqual([]);
    }
    const devPages: { slug: string }[] = await w.t.dataSource.query(
      `SELECT slug FROM pages WHERE cluster = $1 OR cluster LIKE $1 || '/%' ORDER BY slug LIMIT 3`, [EXCLUDED_CLUSTER]);
    for (const { slug } of devPages) {
      expect((await callValidated<{ related: unknown[] }>(client, tools, 'related_pages', { slug })).related).toEqual([]);
    }
    const schema = await callValidated<{ totals: { entities: number } }>(client, tools, 'discover_schema');
    const all = ((await w.t.dataSource.query('SELECT count(*)::int AS n FROM kg_nodes')) as { n: number }[])[0].n;
    expect(schema.totals.entities).toBe(all - w.hiddenNodeIds.length);
  }, 60_000);

  it('answers bad arguments with an MCP error that says what was wrong, and the session keeps working', async () => {
    expect(await callFailing(client, 'search', { query: '' })).toMatch(/query must not be empty/);
    expect(await callFailing(client, 'search', {})).toMatch(/Input validation error.*query/s);
    expect(await callFailing(client, 'get_node', { id: 'abc' })).toMatch(/positive whole number/);
    expect(await callFailing(client, 'list_pages', { limit: 1000 })).toMatch(/limit/);
    expect(await callFailing(client, 'list_pages', { cursor: 'not-a-cursor' })).toMatch(/cursor is not one Kurate gave|belongs to another list/);
    const first = await callValidated<{ nextCursor: string }>(client, tools, 'list_pages', { limit: 5 });
    expect(await callFailing(client, 'list_clusters', { cursor: first.nextCursor })).toMatch(/belongs to another list/);
    expect(await callFailing(client, 'get_page', { slug: 'no-such-page-here' })).toMatch(/There is no page "no-such-page-here"/);
    expect(await callFailing(client, 'find_similar', {})).toMatch(/either `id`/);
    expect(await callFailing(client, 'list_pages_by_filter', { updatedSince: 'yesterday' })).toMatch(/ISO 8601/);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).resolves.toMatchObject({ isError: true });
    const after = await callValidated<{ hits: unknown[] }>(client, tools, 'search', { query: 'graph' });
    expect(after.hits.length).toBeGreaterThan(0);
  });
});

describe('/knowledge-mcp access', () => {
  it('lets anonymous agents read while public reading is on, and refuses a bad token (401)', async () => {
    const anonymous = await httpMcpClient(w.baseUrl, '/knowledge-mcp');
    expect((await anonymous.listTools()).tools.length).toBe(KNOWLEDGE_TOOLS.length);
    await anonymous.close();
    await expect(httpMcpClient(w.baseUrl, '/knowledge-mcp', 'kur_not-a-token')).rejects.toThrow(/401/);
  });

  it('stops a revoked token on its next call', async () => {
    const reader = await w.t.user('reader', { name: 'Revoked Reader' });
    const created = await w.t.http.post('/api/tokens').set('Authorization', `Bearer ${reader.token}`).send({ name: 'agent', scopes: ['read'] }).expect(201);
    const client = await httpMcpClient(w.baseUrl, '/knowledge-mcp', created.body.token);
    expect((await client.listTools()).tools.length).toBe(KNOWLEDGE_TOOLS.length);
    await w.t.http.delete(`/api/tokens/${created.body.id}`).set('Authorization', `Bearer ${reader.token}`).expect(204);
    await expect(client.callTool({ name: 'search', arguments: { query: 'graph' } })).rejects.toThrow(/401/);
    await client.close();
  });

  it('answers a request whose params the protocol rejects with Invalid params (-32602) saying what is wrong, not an internal error', async () => {
    const post = (message: unknown) =>
      w.t.http.post('/knowledge-mcp').set('Authorization', `Bearer ${readerToken}`).set('Accept', 'application/json, text/event-stream').send(message as object).expect(200);
    const missing = (await post({ jsonrpc: '2.0', id: 7, method: 'tools/call' })).body;
    expect(missing).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(missing.error.message).toMatch(/Invalid params for tools\/call: params: .*expected object/);
    const badName = (await post({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 5 } })).body;
    expect(badName).toMatchObject({ id: 'x', error: { code: -32602 } });
    expect(badName.error.message).toMatch(/params\.name: .*expected string/);
    // A well-formed call still goes through the SDK.
    const fine = (await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'search', arguments: { query: 'graph' } } })).body;
    expect(fine.id).toBe(8);
    expect(fine.error).toBeUndefined();
    expect(fine.result.isError ?? false).toBe(false);
    expect(fine.result.structuredContent.hits.length).toBeGreaterThan(0);
    // An empty batch is one Invalid Request error, not a 202 with nothing in it.
    const empty = await w.t.http.post('/knowledge-mcp').set('Authorization', `Bearer ${readerToken}`).set('Accept', 'application/json, text/event-stream').send([]).expect(400);
    expect(empty.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the batch is empty.' } });
  });

  it('answers GET and DELETE with 405: the server is stateless', async () => {
    const res = await w.t.http.get('/knowledge-mcp').set('Authorization', `Bearer ${readerToken}`).expect(405);
    expect(res.headers.allow).toBe('POST');
    await w.t.http.delete('/knowledge-mcp').set('Authorization', `Bearer ${readerToken}`).expect(405);
  });

  it('is in the OpenAPI document (POST only)', async () => {
    const paths = (await w.t.http.get('/api/docs/openapi.json').expect(200)).body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/knowledge-mcp'])).toEqual(['post']);
    expect(Object.keys(paths['/admin-mcp'])).toEqual(['post']);
  });
});

describe('/knowledge-mcp with KURATE_PUBLIC_READ=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { KURATE_PUBLIC_READ: 'false' } });
  });
  afterAll(() => t?.close());

  it('needs a token: anonymous agents get 401, a reader’s token reads', async () => {
    await expect(httpMcpClient(t.baseUrl!, '/knowledge-mcp')).rejects.toThrow(/401/);
    const client = await httpMcpClient(t.baseUrl!, '/knowledge-mcp', (await t.user('reader')).token);
    const tools = (await client.listTools()).tools;
    expect((await callValidated<{ total: number }>(client, tools, 'list_pages')).total).toBe(0);
    await client.close();
  });
});

describe('bin/kurate mcp (stdio)', () => {
  it('relays every tool to the server: the same tools, the same answers, valid against their schemas', async () => {
    const { client } = await stdioMcpClient(w.baseUrl, readerToken);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.map((t) => t.name).sort()).toEqual([...KNOWLEDGE_TOOLS].sort());
      const called = await exerciseEveryTool(client, tools);
      expect(called.size).toBe(KNOWLEDGE_TOOLS.length);
      expect(await callFailing(client, 'get_node', { id: 'abc' })).toMatch(/positive whole number/);
      expect((await callValidated<{ hits: unknown[] }>(client, tools, 'search', { query: 'graph' })).hits.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 180_000);

  it('has --help with examples, like every command', async () => {
    const help = await kurate({ baseUrl: 'http://127.0.0.1:1' }, 'mcp', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: kurate mcp[\s\S]*--admin[\s\S]*\nExamples:\n {2}\$ kurate mcp\n/);
  });

  it('answers with an error that names the refusal when the token is bad, or the server is down, instead of hanging', async () => {
    await expect(stdioMcpClient(w.baseUrl, 'kur_not-a-token')).rejects.toThrow(/401/);
    const down = `http://127.0.0.1:${await closedPort()}`;
    await expect(stdioMcpClient(down, readerToken)).rejects.toThrow(new RegExp(`${down}/knowledge-mcp refused or could not be reached`));
  }, 60_000);
});
