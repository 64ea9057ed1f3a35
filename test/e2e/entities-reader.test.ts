import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { callValidated, httpMcpClient } from '../support/mcp.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy } from './kg-test-helpers.js';

/**
 * /entities/:id and /api/entities/:id: the reader's page of an approved knowledge-graph entity, over HTTP on a real
 * database. Only what the inclusion policy lets readers see is shown (kg_visible_*), as in search and the knowledge
 * MCP tools, whose entity URLs now lead here.
 */
const HTML = { Accept: 'text/html' };

interface EntityJson {
  entity: { id: string; name: string; type: string; aliases: string[]; description: string; url: string };
  relations: { predicate: string; direction: 'out' | 'in'; entity: { id: string; name: string; url: string } }[];
  pages: { items: { slug: string; url: string; mentions: number; quote: { match: string; found: boolean; heading: string; url: string } }[]; total: number; page: number; perPage: number };
}

/** No inline script or style: the page must work under the app's CSP. */
function expectCspSafe(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  expect(html).not.toMatch(/\sstyle=/);
  expect(html).not.toMatch(/<style/);
}

describe('reader entity pages', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;
  let reader: supertest.Agent;
  const ids = { zeiss: '', camera: '', secret: '' };
  const slugs = { lens: '', camera: '', secret: '' };

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Ada Admin' });
    reader = await t.as('reader', { name: 'Rita Reader' });

    const lens = await kg.passage('Lens Workshop', 'Every lens here was ground by Zeiss Optics in Jena.', { headingPath: ['Suppliers'] });
    const camera = await kg.passage('Camera Notes', 'The rangefinder uses glass from Zeiss Optics. Zeiss Optics again.');
    // A page of the "private" cluster, fed to the graph while the cluster was included, soft-excluded afterwards.
    const secretPage = (await admin.post('/api/pages').send({ title: 'Secret Plans', body: '---\ncluster: private\n---\nProject Nightglass buys from Zeiss Optics.\n' }).expect(201)).body as { id: string; slug: string };
    await setPolicy(admin, 'private', 'include');
    const secretChunk = await kg.chunk(secretPage.id, 'Project Nightglass buys from Zeiss Optics.');
    Object.assign(slugs, { lens: lens.slug, camera: camera.slug, secret: secretPage.slug });

    ids.zeiss = await kg.node({ name: 'Zeiss Optics', type: 'organization', aliases: ['Carl Zeiss'], description: 'Maker of lenses, in Jena.', origin: 'extracted' });
    ids.camera = await kg.node({ name: 'Rangefinder Camera', type: 'product' });
    ids.secret = await kg.node({ name: 'Project Nightglass', type: 'project', origin: 'extracted' });
    await kg.mention(lens.chunkId, 'zeiss', 'Zeiss Optics', ids.zeiss);
    await kg.mention(camera.chunkId, 'zeiss', 'Zeiss Optics', ids.zeiss);
    await kg.mention(camera.chunkId, 'camera', 'rangefinder', ids.camera);
    await kg.mention(secretChunk, 'zeiss', 'Zeiss Optics', ids.zeiss);
    await kg.mention(secretChunk, 'nightglass', 'Project Nightglass', ids.secret);
    await kg.edge(ids.zeiss, ids.camera, 'makes');
    await kg.edge(ids.secret, ids.zeiss, 'buys_from');
    await setPolicy(admin, 'private', 'exclude');
  });
  afterAll(() => t?.close());

  it('shows a reader an approved, visible entity: name, type, aliases, description, relations and the pages that mention it', async () => {
    const res = await reader.get(`/entities/${ids.zeiss}`).set(HTML).expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const html = res.text;
    expect(html).toContain('<title>Zeiss Optics · Kurate</title>');
    expect(html).toContain('organization');
    expect(html).toContain('Carl Zeiss');
    expect(html).toContain('Maker of lenses, in Jena.');
    expect(html).toMatch(new RegExp(`makes</span> <a href="/entities/${ids.camera}">Rangefinder Camera</a>`));
    expect(html).toContain(`href="/page/${slugs.lens}"`);
    expect(html).toContain(`href="/page/${slugs.camera}"`);
    expect(html).toContain('<mark>Zeiss Optics</mark>');
    expect(html).toContain(`href="/page/${slugs.lens}#suppliers"`);
    // Neither the hidden entity nor the soft-excluded page that supports it.
    expect(html).not.toContain('Nightglass');
    expect(html).not.toContain(`/entities/${ids.secret}`);
    expect(html).not.toContain(slugs.secret);
    expect(html).not.toContain('/admin/knowledge-graph');
    expectCspSafe(html);

    // The other end links back: the relation seen from the camera.
    const other = await reader.get(`/entities/${ids.camera}`).set(HTML).expect(200);
    expect(other.text).toContain(`<a href="/entities/${ids.zeiss}">Zeiss Optics</a>`);
    expect(other.text).toContain('makes</span> Rangefinder Camera');

    const json = (await reader.get(`/api/entities/${ids.zeiss}`).expect(200)).body as EntityJson;
    expect(json.entity).toEqual({
      id: ids.zeiss, name: 'Zeiss Optics', type: 'organization', aliases: ['Carl Zeiss'], description: 'Maker of lenses, in Jena.', url: `/entities/${ids.zeiss}`,
    });
    expect(json.relations).toEqual([{ predicate: 'makes', direction: 'out', entity: { id: ids.camera, name: 'Rangefinder Camera', type: 'product', url: `/entities/${ids.camera}` } }]);
    expect(json.pages).toMatchObject({ total: 2, page: 1, perPage: 20 });
    // Most mentions first, then by title.
    expect(json.pages.items.map((p) => [p.slug, p.mentions])).toEqual([[slugs.camera, 1], [slugs.lens, 1]]);
    expect(json.pages.items[1].quote).toMatchObject({ heading: 'Suppliers', url: `/page/${slugs.lens}#suppliers` });
    expect(json.pages.items.every((p) => p.quote.found && p.quote.match === 'Zeiss Optics')).toBe(true);
  });

  it('is a 404 for an entity that only soft-excluded pages support, and shows it again once the cluster is included', async () => {
    const hidden = await reader.get(`/entities/${ids.secret}`).set(HTML).expect(404);
    expect(hidden.text).toContain('404 · Not Found');
    expect(hidden.text).toContain(`There is no entity ${ids.secret} in the knowledge graph.`);
    expect(hidden.text).not.toMatch(/at \w+ \(|\.ts:\d+/);
    await admin.get(`/entities/${ids.secret}`).set(HTML).expect(404);
    expect((await reader.get(`/api/entities/${ids.secret}`).expect(404)).body).toMatchObject({ statusCode: 404, code: 'not_found' });

    await setPolicy(admin, 'private', 'include');
    try {
      const shown = await reader.get(`/entities/${ids.secret}`).set(HTML).expect(200);
      expect(shown.text).toContain('Project Nightglass');
      const zeiss = (await reader.get(`/api/entities/${ids.zeiss}`).expect(200)).body as EntityJson;
      expect(zeiss.relations.map((r) => [r.predicate, r.direction, r.entity.id])).toContainEqual(['buys_from', 'in', ids.secret]);
      expect(zeiss.pages.items.map((p) => p.slug)).toContain(slugs.secret);
    } finally {
      await setPolicy(admin, 'private', 'exclude');
    }
    await reader.get(`/entities/${ids.secret}`).set(HTML).expect(404);
    // A visible entity lists and counts only the visible pages that mention it.
    const zeiss = (await reader.get(`/api/entities/${ids.zeiss}`).expect(200)).body as EntityJson;
    expect(zeiss.pages.items.map((p) => p.slug)).not.toContain(slugs.secret);
    expect(zeiss.pages.total).toBe(zeiss.pages.items.length);
  });

  it('is a 404 page for an unknown or deleted entity, and a clear 400 for a malformed id', async () => {
    const unknown = await reader.get('/entities/987654321').set(HTML).expect(404);
    expect(unknown.text).toContain('There is no entity 987654321 in the knowledge graph.');
    expect(unknown.text).toContain('class="error-page"');
    await reader.get('/api/entities/987654321').expect(404);

    const doomed = await kg.node({ name: 'Short Lived', type: 'concept' });
    await reader.get(`/entities/${doomed}`).set(HTML).expect(200);
    await admin.delete(`/admin/knowledge-graph/entities/${doomed}`).send({}).expect(200);
    await reader.get(`/entities/${doomed}`).set(HTML).expect(404);

    for (const bad of ['abc', '0', '-3', '1.5', '12345678901234567890', 'drop%20table']) {
      const res = await reader.get(`/entities/${bad}`).set(HTML);
      expect(res.status, bad).toBe(400);
      expect(res.text, bad).toContain('is not an entity id');
      const api = await reader.get(`/api/entities/${bad}`);
      expect(api.status, bad).toBe(400);
      expect(api.body.message, bad).toMatch(/is not an entity id: entity ids are positive whole numbers/);
    }
    expect((await reader.get(`/api/entities/${ids.zeiss}?page=0`).expect(400)).body.message).toMatch(/page/);
    // A page number past the end shows the last page.
    expect((await reader.get(`/api/entities/${ids.zeiss}?page=99`).expect(200)).body.pages).toMatchObject({ page: 1, total: 2 });
    expect((await reader.get(`/api/entities/${ids.zeiss}?sort=x`).expect(400)).body.message).toMatch(/sort should not exist/);
  });

  it('pages through the pages of an entity many pages mention: most mentions first, then by title, none twice, none in the trash', async () => {
    const hub = await kg.node({ name: 'Lighthouse Keeper', type: 'person' });
    // 26 pages with 1–3 mentioning chunks each; titles of mixed case, many counts tied, so both orders matter.
    const made: { slug: string; title: string; mentions: number }[] = [];
    for (let i = 0; i < 26; i++) {
      const title = `${i % 2 ? 'keeper' : 'Keeper'} log ${String.fromCharCode(97 + ((i * 7) % 26))}`;
      const passage = await kg.passage(title, 'The Lighthouse Keeper lit the lamp.');
      const mentions = 1 + (i % 5 === 0 ? 2 : i % 3 === 0 ? 1 : 0);
      await kg.mention(passage.chunkId, 'keeper', 'Lighthouse Keeper', hub);
      for (let extra = 1; extra < mentions; extra++) {
        await kg.mention(await kg.chunk(passage.pageId, 'Again the Lighthouse Keeper.'), 'keeper', 'Lighthouse Keeper', hub);
      }
      made.push({ slug: passage.slug, title, mentions });
    }
    // One of them goes to the trash: it is neither listed nor counted.
    const trashed = made.splice(4, 1)[0];
    await admin.delete(`/api/pages/${trashed.slug}`).expect(204);
    const expected = [...made].sort((a, b) => b.mentions - a.mentions || a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.slug.localeCompare(b.slug));

    const first = (await reader.get(`/api/entities/${hub}`).expect(200)).body as EntityJson;
    const second = (await reader.get(`/api/entities/${hub}?page=2`).expect(200)).body as EntityJson;
    expect(first.pages).toMatchObject({ total: 25, page: 1, perPage: 20 });
    expect(second.pages).toMatchObject({ total: 25, page: 2 });
    expect([...first.pages.items, ...second.pages.items].map((p) => [p.slug, p.mentions])).toEqual(expected.map((p) => [p.slug, p.mentions]));
    expect(first.pages.items[0].quote.match).toBe('Lighthouse Keeper');
    // Past the end: the last page.
    expect(((await reader.get(`/api/entities/${hub}?page=7`).expect(200)).body as EntityJson).pages).toMatchObject({ page: 2, total: 25 });
  });

  it('lets anonymous visitors read it exactly when they may read pages (KURATE_PUBLIC_READ on, the default)', async () => {
    const page = await t.http.get(`/page/${slugs.lens}`).set(HTML);
    const entity = await t.http.get(`/entities/${ids.zeiss}`).set(HTML);
    expect(page.status).toBe(200);
    expect(entity.status).toBe(page.status);
    expect(entity.text).toContain('Zeiss Optics');
    await t.http.get(`/api/entities/${ids.zeiss}`).expect(200);
  });

  it('shows admins, and only them, a link to the entity’s curation page', async () => {
    const link = `href="/admin/knowledge-graph/ui/entities/${ids.zeiss}"`;
    expect((await admin.get(`/entities/${ids.zeiss}`).set(HTML).expect(200)).text).toContain(link);
    const author = await t.as('author');
    expect((await author.get(`/entities/${ids.zeiss}`).set(HTML).expect(200)).text).not.toContain(link);
    expect((await reader.get(`/entities/${ids.zeiss}`).set(HTML).expect(200)).text).not.toContain(link);
    expect((await t.http.get(`/entities/${ids.zeiss}`).set(HTML).expect(200)).text).not.toContain(link);
    const session = await t.login(await t.user('admin', { name: 'Ada Admin' }));
    expect((await session.agent.get(`/entities/${ids.zeiss}`).set(HTML).expect(200)).text).toContain(link);
  });

  it('links search’s related entities to their reader pages', async () => {
    const res = await reader.get('/search?q=Zeiss%20Optics').set(HTML).expect(200);
    expect(res.text).toMatch(new RegExp(`<aside class="related-entities"[\\s\\S]*<a href="/entities/${ids.zeiss}">Zeiss Optics</a>`));
    const api = await reader.get('/api/search?q=Zeiss%20Optics').expect(200);
    expect(api.body.relatedEntities).toContainEqual(expect.objectContaining({ id: ids.zeiss, name: 'Zeiss Optics', url: `/entities/${ids.zeiss}` }));
  });

  it('gives the knowledge MCP tools’ entities a /entities/<id> URL that the reader can open; the admin tools keep the curation link', async () => {
    const readerUser = await t.user('reader', { name: 'Rita Reader' });
    const client = await httpMcpClient(t.baseUrl!, '/knowledge-mcp', readerUser.token);
    try {
      const tools = (await client.listTools()).tools;
      const node = await callValidated<{ node: { id: string; url: string } }>(client, tools, 'get_node', { id: ids.zeiss });
      expect(node.node.url).toBe(`${t.baseUrl}/entities/${ids.zeiss}`);
      const found = await callValidated<{ nodes: { id: string; url: string }[] }>(client, tools, 'query_nodes', { name: 'zeiss' });
      expect(found.nodes).toEqual([expect.objectContaining({ id: ids.zeiss, url: `${t.baseUrl}/entities/${ids.zeiss}` })]);
      const walked = await callValidated<{ start: { url: string }; nodes: { id: string; url: string }[] }>(client, tools, 'traverse', { from: ids.zeiss, depth: 1 });
      expect(walked.start.url).toBe(`${t.baseUrl}/entities/${ids.zeiss}`);
      expect(walked.nodes.map((n) => n.url)).toEqual([`${t.baseUrl}/entities/${ids.camera}`]);

      // The agent's user follows the link.
      const followed = await fetch(node.node.url, { headers: { ...HTML, Authorization: `Bearer ${readerUser.token}` } });
      expect(followed.status).toBe(200);
      expect(await followed.text()).toContain('Zeiss Optics');
    } finally {
      await client.close();
    }

    const adminUser = await t.user('admin', { name: 'Ada Admin' });
    const adminClient = await httpMcpClient(t.baseUrl!, '/admin-mcp', adminUser.token);
    try {
      const tools = (await adminClient.listTools()).tools;
      const created = await callValidated<{ entity: { id: string; url: string } }>(adminClient, tools, 'curate_nodes', { operation: 'create', name: 'Agent Lens', type: 'product' });
      expect(created.entity.url).toBe(`${t.baseUrl}/admin/knowledge-graph/ui/entities/${created.entity.id}`);
    } finally {
      await adminClient.close();
    }
  });
});

describe('reader entity pages with KURATE_PUBLIC_READ=false', () => {
  let t: TestApp;
  let entityId: string;
  let slug: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_PUBLIC_READ: 'false' } });
    const kg = await KgFactory.for(t);
    slug = (await kg.page('Private Wiki Page')).slug;
    entityId = await kg.node({ name: 'Members Only', type: 'concept' });
  });
  afterAll(() => t?.close());

  it('asks anonymous visitors to log in, as page views do, and shows readers the entity', async () => {
    const page = await t.http.get(`/page/${slug}`).set(HTML);
    const entity = await t.http.get(`/entities/${entityId}`).set(HTML);
    expect(page.status).toBe(303);
    expect(entity.status).toBe(page.status);
    expect(entity.headers.location).toBe(`/login?${new URLSearchParams({ next: `/entities/${entityId}` })}`);
    expect((await t.http.get(`/api/entities/${entityId}`).expect(401)).body).toMatchObject({ code: 'unauthenticated' });
    const reader = await t.as('reader');
    expect((await reader.get(`/entities/${entityId}`).set(HTML).expect(200)).text).toContain('Members Only');
    await reader.get(`/api/entities/${entityId}`).expect(200);
  });
});
