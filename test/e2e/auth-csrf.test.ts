import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenIn, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

describe('CSRF protection (a synchronizer token per session)', () => {
  let t: TestApp;
  let author: TestUser;
  beforeAll(async () => {
    t = await startTestApp();
    author = await t.user('author', { name: 'Cora Cookie' });
  });
  afterAll(() => t.close());

  it('refuses a form post without the token, and with the token of another session (403)', async () => {
    const mine = await t.login(author);
    const other = await t.login(await t.user('reader'));
    const missing = await mine.agent.post('/account/tokens').type('form').send({ name: 'x', scope: 'read' }).expect(403);
    expect(missing.body).toMatchObject({ code: 'invalid_csrf_token', message: expect.stringMatching(/security token/) });
    await mine.agent.post('/account/tokens').type('form').send({ _csrf: other.csrfToken, name: 'x', scope: 'read' }).expect(403);
    await mine.agent.post('/account/tokens').type('form').send({ _csrf: `${mine.csrfToken}x`, name: 'x', scope: 'read' }).expect(403);
    await mine.agent.post('/account/tokens').type('form').send({ _csrf: mine.csrfToken, name: 'x', scope: 'read' }).expect(201);
    const html = await mine.agent.post('/account/tokens').set('Accept', 'text/html').type('form').send({ name: 'x' }).expect(403);
    expect(html.text).toContain('security token of this form is missing or out of date');
  });

  it('asks JSON calls made with the session cookie for the x-csrf-token header', async () => {
    const { agent, csrfToken } = await t.login(author);
    await agent.post('/api/pages').send({ title: 'Cookie Page', body: 'x' }).expect(403);
    await agent.post('/api/pages').set('x-csrf-token', 'wrong').send({ title: 'Cookie Page', body: 'x' }).expect(403);
    const ok = await agent.post('/api/pages').set('x-csrf-token', csrfToken).send({ title: 'Cookie Page', body: 'x' }).expect(201);
    expect(ok.body.createdBy).toBe('Cora Cookie');
    // The preview a logged-in editor asks for goes through the same check.
    await agent.post('/api/preview').send({ body: 'x' }).expect(403);
    await agent.post('/api/preview').set('x-csrf-token', csrfToken).send({ body: 'x' }).expect(200);
    // Reading needs no token.
    await agent.get('/api/pages/cookie-page').expect(200);
  });

  it('needs no token with a Bearer token, even when a session cookie comes along', async () => {
    const { agent } = await t.login(author);
    await agent.post('/api/pages').set('Authorization', `Bearer ${author.token}`).send({ title: 'Bearer Page', body: 'x' }).expect(201);
  });

  it('renews the token at login: the one from the login form stops working', async () => {
    const agent = supertest.agent(t.app.getHttpServer());
    const form = await agent.get('/login').expect(200);
    const before = csrfTokenIn(form.text);
    await agent.post('/login').set('X-Forwarded-For', '10.9.9.9').type('form').send({ _csrf: before, email: author.email, password: author.password }).expect(303);
    await agent.post('/account/tokens').type('form').send({ _csrf: before, name: 'x', scope: 'read' }).expect(403);
    const after = csrfTokenIn((await agent.get('/account/tokens').expect(200)).text);
    expect(after).not.toBe(before);
  });
});
