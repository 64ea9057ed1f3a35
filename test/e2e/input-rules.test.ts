import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '../../src/common/input-rules.js';
import { concreteRoute, probesOf, startInputWalk } from '../support/route-probes.js';
import type { AppRoute } from '../support/routes.js';
import { csrfTokenIn, someIp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * THE NUL WALK. PostgreSQL text cannot hold U+0000, so a NUL that reached a query was a 500. Every route the running
 * application registers (read from Express's router, not listed by hand) gets a NUL in each of its path parameters,
 * each query parameter and each body field its handler declares (read from the DTOs' metadata; a handler that reads
 * a form itself gets every field name any DTO declares), as an admin, so that no guard answers first. Nothing may
 * answer 5xx; a NUL outside a page's Markdown source is a 400 that names the field. Then JSON nested 100,000 deep.
 */

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
describe('bad input never gets a 500: NUL everywhere, JSON nested deep', () => {
  let t: TestApp;
  let admin: TestUser;
  let routes: AppRoute[];
  let everyField: string[];

  beforeAll(async () => {
    ({ t, admin, routes, everyField } = await startInputWalk());
  });
  afterAll(() => t?.close());

  it('finds the routes and the text fields they take', () => {
    expect(routes.length).toBeGreaterThan(80);
    for (const field of ['title', 'body', 'message', 'reason', 'name', 'displayName']) expect(everyField).toContain(field);
    const withQuery = routes.filter((r) => probesOf(r, everyField).some((p) => p.where === 'query')).map((r) => `${r.method} ${r.path}`);
    for (const key of ['GET /api/search', 'GET /api/pages', 'GET /search']) expect(withQuery).toContain(key);
  });

  it('answers a NUL in any path parameter, query parameter or body field with a 4xx (a 400 naming the field), never a 5xx', async () => {
    const failures: string[] = [];
    const http = supertest(t.app.getHttpServer());
    let probed = 0;
    for (const route of routes) {
      for (const probe of probesOf(route, everyField)) {
        const path = concreteRoute(route.path, probe.where === 'param' ? { name: probe.field, value: NUL } : null);
        const method = route.method.toLowerCase() as 'get';
        // A fresh client address per request: the login throttle counts per address and would answer 429 first.
        let request = http[method](path).set('Authorization', `Bearer ${admin.token}`).set('Accept', 'application/json').set('X-Forwarded-For', someIp());
        if (probe.where === 'query') request = request.query({ [probe.field]: NUL });
        const form = !route.path.startsWith('/api') && route.method === 'POST';
        const res = probe.where === 'body'
          ? await (form ? request.type('form') : request).send({ [probe.field]: NUL })
          : await request.send(route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
        probed++;
        const what = `${route.method} ${route.path} (${route.handler}) ${probe.where} ${probe.field}`;
        if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (probe.field !== 'body' && res.status !== 400) failures.push(`${what}: ${res.status}, expected 400`);
        else if (probe.field !== 'body' && probe.where !== 'param' && !String(res.body?.message ?? res.text).includes(probe.field)) {
          failures.push(`${what}: the message does not name the field: ${String(res.body?.message ?? res.text).slice(0, 200)}`);
        }
      }
    }
    expect(probed).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  }, 300_000);

  it('answers a lone UTF-16 surrogate in any JSON body field with a 400 naming the field, never a 5xx (it cannot be sent in an address or a form)', async () => {
    const failures: string[] = [];
    const http = supertest(t.app.getHttpServer());
    let probed = 0;
    for (const route of routes) {
      if (route.method === 'GET') continue;
      for (const probe of probesOf(route, everyField).filter((p) => p.where === 'body')) {
        const method = route.method.toLowerCase() as 'post';
        const res = await http[method](concreteRoute(route.path, null)).set('Authorization', `Bearer ${admin.token}`).set('Accept', 'application/json')
          .set('X-Forwarded-For', someIp()).send({ [probe.field]: LONE_SURROGATE });
        probed++;
        const what = `${route.method} ${route.path} (${route.handler}) body ${probe.field}`;
        if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (probe.field !== 'body' && res.status !== 400) failures.push(`${what}: ${res.status}, expected 400`);
      }
    }
    expect(probed).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 300_000);

  it('keeps a page’s source with lone surrogates shown as U+FFFD; refuses frontmatter whose YAML escapes write NUL or a lone surrogate, or whose value contains itself', async () => {
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Half Characters', body: 'Half \ud800 of a pair.' }).expect(201);
    expect(created.body.body).toBe('Half \uFFFD of a pair.');
    for (const [yaml, reason] of [
      ['extra: "a\\0b"', /NUL/],
      ['extra: "\\ud800"', /lone UTF-16 surrogate/],
      ['tags: ["\\0"]', /NUL/],
      ['a: &a\n  b: *a', /contains itself/],
    ] as const) {
      const res = await author.post('/api/pages').send({ title: `Escaped ${yaml.length}`, body: `---\n${yaml}\n---\nText.` });
      expect(res.status, `${yaml}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.body.message).toMatch(reason);
    }
  });

  it('refuses a save with more distinct words than a page\'s search index holds with a 422, keeping the page as it was', async () => {
    const author = await t.as('author');
    const page = (await author.post('/api/pages').send({ title: 'Word Hoard', body: 'A few words.' }).expect(201)).body;
    const body = Array.from({ length: 100_000 }, (_, i) => `Word${i}`).join(' ');
    const res = await author.put('/api/pages/word-hoard').send({ body, baseVersion: page.version });
    expect(res.status, res.text.slice(0, 200)).toBe(422);
    expect(res.body.message).toMatch(/more distinct words than the search index can hold/);
    const after = (await author.get('/api/pages/word-hoard').expect(200)).body;
    expect([after.body, after.version]).toEqual(['A few words.', page.version]);
  });

  it('keeps a page’s Markdown source as written, with each NUL shown as U+FFFD (as CommonMark reads it)', async () => {
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Pasted', body: 'From a binary\u0000ish source.' }).expect(201);
    expect(created.body.body).toBe('From a binary\uFFFDish source.');
    const rendered = await supertest(t.app.getHttpServer()).get('/page/pasted').expect(200);
    expect(rendered.text).toContain('From a binary\uFFFDish source.');
  });

  it('shows the editor again, with the text typed and the message, when a form save is refused for a NUL', async () => {
    const author = await t.user('author', { name: 'Form Author' });
    const { agent, csrfToken } = await t.login(author);
    const page = (await agent.get('/api/pages/nul-walk').set('x-csrf-token', csrfToken).expect(200)).body;
    const res = await agent.post('/page/nul-walk').type('form')
      .send({ _csrf: csrfToken, body: 'My long edit that must not be lost.', message: `why${NUL}`, baseVersion: String(page.version) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('My long edit that must not be lost.');
    expect(res.text).toContain('NUL character');
    expect(res.text).toMatch(/<textarea[^>]*name="body"/);
    const created = await agent.post('/page').type('form').send({ _csrf: csrfToken, title: `New${NUL}`, body: 'A new page’s text, kept.', message: '' });
    expect(created.status).toBe(400);
    expect(created.text).toContain('A new page’s text, kept.');
    // Another form (its handler does not show its own form again) gets the 400 page.
    const token = await agent.post('/account/tokens').type('form').send({ _csrf: csrfTokenIn((await agent.get('/account/tokens')).text), name: NUL, scope: 'read' });
    expect(token.status).toBe(400);
  });

  it('refuses JSON nested 100,000 deep (and one level past the limit) with a 400 that says why, on any route', async () => {
    const http = supertest(t.app.getHttpServer());
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    for (const [path, levels] of [['/api/pages', 100_000], ['/api/search/suggest', 100_000], ['/knowledge-mcp', 100_000], ['/api/pages', MAX_INPUT_DEPTH + 1]] as const) {
      const res = await http.post(path).set('Authorization', `Bearer ${admin.token}`).set('Content-Type', 'application/json').send(deep(levels));
      expect(res.status, `${path} ${levels}`).toBe(400);
      expect(res.body.message).toContain(`nested more than ${MAX_INPUT_DEPTH} levels`);
    }
    const arrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await http.put('/api/pages/nul-walk').set('Authorization', `Bearer ${admin.token}`).set('Content-Type', 'application/json').send(arrays);
    expect(res.status).toBe(400);
    // Nesting within the limit is fine.
    const ok = await http.post('/api/pages').set('Authorization', `Bearer ${admin.token}`).set('Content-Type', 'application/json')
      .send(JSON.stringify({ title: 'Nested Ok', body: 'Fine.', extra: JSON.parse(deep(10)) }));
    expect(ok.status).toBe(400); // an unknown field, refused by validation: a 400 about the field, not the depth
    expect(ok.body.message).not.toContain('nested');
  });
});
