import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('roles on pages (KURATE_PUBLIC_READ on, the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lets anyone read, and only authors and admins write (anonymous 401, reader 403)', async () => {
    const [reader, author, admin] = await Promise.all([t.as('reader'), t.as('author', { name: 'Ann Author' }), t.as('admin', { name: 'Ada Admin' })]);
    await t.http.get('/api/pages').expect(200);
    await t.http.get('/api/search?q=x').expect(200);
    const anonymous = await t.http.post('/api/pages').send({ title: 'Anon', body: 'x' }).expect(401);
    expect(anonymous.body).toMatchObject({ statusCode: 401, code: 'unauthenticated', message: 'Log in to continue.' });
    const denied = await reader.post('/api/pages').send({ title: 'Reader', body: 'x' }).expect(403);
    expect(denied.body).toMatchObject({ statusCode: 403, code: 'forbidden' });
    const created = await author.post('/api/pages').send({ title: 'Roles', body: 'one' }).expect(201);
    expect(created.body.createdBy).toBe('Ann Author');
    await admin.put('/api/pages/roles').send({ body: 'two', baseVersion: 1 }).expect(200);
    await reader.put('/api/pages/roles').send({ body: 'three', baseVersion: 2 }).expect(403);
    await reader.delete('/api/pages/roles').expect(403);
    await t.http.delete('/api/pages/roles').expect(401);
    await reader.post('/api/pages/roles/rename').send({ title: 'Nope' }).expect(403);
    await reader.post('/api/pages/roles/revisions/1/restore').expect(403);
    // Each revision records who really wrote it.
    const history = await t.http.get('/api/pages/roles/history').expect(200);
    expect(history.body.items.map((r: { version: number; author: string }) => [r.version, r.author])).toEqual([[2, 'Ada Admin'], [1, 'Ann Author']]);
    await author.delete('/api/pages/roles').expect(204);
    await reader.post('/api/pages/roles/restore').expect(403);
    await author.post('/api/pages/roles/restore').expect(201);
  });

  it('checks the role before the input: a reader learns nothing from validation errors', async () => {
    const reader = await t.as('reader');
    await reader.post('/api/pages').send({ nonsense: true }).expect(403);
    await t.http.post('/api/pages').send({ nonsense: true }).expect(401);
  });

  it('lets anonymous visitors preview Markdown (no state changes, no cookie, no CSRF needed), up to 64 KB', async () => {
    const res = await t.http.post('/api/preview').send({ body: '**hi**' }).expect(200);
    expect(res.body.html).toContain('<strong>hi</strong>');
    await t.http.post('/api/preview').send({ body: 'a '.repeat(32_000) }).expect(200);
    // A megabyte of hostile Markdown held the render thread for seconds (a hostile-input audit): a visitor, who saves
    // nothing, previews less than a page; a reader previews as much as an author may save.
    const big = 'x'.repeat(64_001);
    const refused = await t.http.post('/api/preview').send({ body: big }).expect(413);
    expect(refused.body.message).toBe('A visitor who is not logged in may preview up to 64 KB of text (this is 65 KB); log in to preview a whole page.');
    const reader = await t.as('reader');
    await reader.post('/api/preview').send({ body: big }).expect(200);
  });
});

describe('KURATE_PUBLIC_READ=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_PUBLIC_READ: 'false' } });
  });
  afterAll(() => t.close());

  it('needs a login for every read; health, login and the API docs stay public', async () => {
    await t.http.get('/api/pages').expect(401);
    await t.http.get('/api/search?q=x').expect(401);
    await t.http.get('/api/pages/anything').expect(401);
    await t.http.post('/api/preview').send({ body: 'x' }).expect(401);
    await t.http.get('/health').expect(200);
    await t.http.get('/login').expect(200);
    await t.http.get('/api/docs/openapi.json').expect(200);
    const reader = await t.as('reader');
    await reader.get('/api/pages').expect(200);
    await reader.get('/api/search?q=x').expect(200);
    await reader.post('/api/pages').send({ title: 'x', body: 'y' }).expect(403);
  });

  it('sends browsers to the login form, and back after logging in', async () => {
    const res = await t.http.get('/account/tokens').set('Accept', 'text/html,application/xhtml+xml').expect(303);
    expect(res.headers.location).toBe('/login?next=%2Faccount%2Ftokens');
  });
});
