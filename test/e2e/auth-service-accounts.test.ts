import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenIn, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** Service accounts: no password, tokens made by admins (REST and /admin/service-accounts), scoped and expiring. */
describe('service accounts and their tokens', () => {
  let t: TestApp;
  let admin: TestUser;
  let author: TestUser;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const asAdmin = {
    get: (path: string) => t.http.get(path).set(bearer(admin.token)),
    post: (path: string, body: object = {}) => t.http.post(path).set(bearer(admin.token)).send(body),
  };

  beforeAll(async () => {
    t = await startTestApp();
    [admin, author] = await Promise.all([t.user('admin', { name: 'Ada Admin' }), t.user('author')]);
  });
  afterAll(() => t.close());

  it('creates a service account (kind service, no password), lists it, and refuses bad names, duplicates and non-admins', async () => {
    const created = await asAdmin.post('/api/admin/service-accounts', { name: ' CI-Bot ', role: 'author', description: 'Nightly import' }).expect(201);
    expect(created.body).toMatchObject({ email: 'ci-bot', displayName: 'Nightly import', role: 'author', kind: 'service', disabled: false });
    const [row] = await t.dataSource.query(`SELECT kind, password_hash FROM users WHERE id = $1`, [created.body.id]);
    expect(row).toEqual({ kind: 'service', password_hash: null });
    const list = await asAdmin.get('/api/admin/service-accounts').expect(200);
    expect(list.body.items.map((a: { email: string }) => a.email)).toEqual(['ci-bot']);
    expect((await asAdmin.get('/api/admin/service-accounts/ci-bot').expect(200)).body.id).toBe(created.body.id);
    expect((await asAdmin.get(`/api/admin/service-accounts/${created.body.id}`).expect(200)).body.email).toBe('ci-bot');
    // A person is not a service account.
    await asAdmin.get(`/api/admin/service-accounts/${author.id}`).expect(404);

    const taken = await asAdmin.post('/api/admin/service-accounts', { name: 'ci-bot', role: 'reader' }).expect(409);
    expect(taken.body.message).toBe('An account named ci-bot already exists.');
    for (const name of ['a', 'has space', 'ada@example.org', '-dash-first', 'x'.repeat(65)]) {
      const bad = await asAdmin.post('/api/admin/service-accounts', { name, role: 'reader' }).expect(400);
      expect(bad.body.message).toMatch(/^name must be 2 to 64 lower-case letters/);
    }
    await asAdmin.post('/api/admin/service-accounts', { name: 'ok-name', role: 'owner' }).expect(400);
    await t.http.post('/api/admin/service-accounts').set(bearer(author.token)).send({ name: 'sneaky', role: 'reader' }).expect(403);
    await t.http.post('/api/admin/service-accounts').send({ name: 'sneaky', role: 'reader' }).expect(401);
    const audit = await t.dataSource.query(`SELECT actor_name, target FROM audit_log WHERE action = 'service_account.create'`);
    expect(audit).toEqual([{ actor_name: 'Ada Admin', target: 'user:ci-bot' }]);
  });

  it('makes scoped, expiring tokens for it that act as it, never above its role', async () => {
    const { body: account } = await asAdmin.post('/api/admin/service-accounts', { name: 'importer', role: 'author' }).expect(201);
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const made = await asAdmin.post('/api/admin/service-accounts/importer/tokens', { name: 'nightly', expiresAt }).expect(201);
    // Without scopes: all its role may.
    expect(made.body).toMatchObject({ name: 'nightly', scopes: ['write'], status: 'active', userId: account.id, userEmail: 'importer' });
    expect(new Date(made.body.expiresAt).toISOString()).toBe(expiresAt);
    const page = await t.http.post('/api/pages').set(bearer(made.body.token)).send({ title: 'Imported By Bot', body: 'From CI.' }).expect(201);
    const [revision] = await t.dataSource.query(`SELECT author FROM page_revisions WHERE page_id = $1`, [page.body.id]);
    expect(revision.author).toBe('importer');
    // Its role caps its tokens; admin routes stay closed to it.
    const above = await asAdmin.post('/api/admin/service-accounts/importer/tokens', { name: 'too much', scopes: ['admin'] }).expect(400);
    expect(above.body.message).toBe('importer is an author: its tokens cannot have the admin scope.');
    await t.http.get('/api/admin/users').set(bearer(made.body.token)).expect(403);
    const readOnly = await asAdmin.post(`/api/admin/service-accounts/${account.id}/tokens`, { name: 'reads', scopes: ['read'] }).expect(201);
    await t.http.post('/api/pages').set(bearer(readOnly.body.token)).send({ title: 'Nope', body: 'x' }).expect(403);
    // Only service accounts get tokens this way; authors cannot make them at all.
    await asAdmin.post(`/api/admin/service-accounts/${author.id}/tokens`, { name: 'x' }).expect(404);
    await t.http.post('/api/admin/service-accounts/importer/tokens').set(bearer(author.token)).send({ name: 'x' }).expect(403);
    await asAdmin.post('/api/admin/service-accounts/importer/tokens', { name: 'x', expiresAt: '2001-01-01' }).expect(400);
    await asAdmin.post('/api/admin/service-accounts/nobody/tokens', { name: 'x' }).expect(404);
    const [audit] = await t.dataSource.query(`SELECT actor_name, details FROM audit_log WHERE action = 'token.create' AND details->>'tokenId' = $1`, [made.body.id]);
    expect(audit).toMatchObject({ actor_name: 'Ada Admin', details: { serviceAccount: 'importer', scopes: ['write'] } });
  });

  it('lists its tokens with their status: an expired token is refused with 401 and listed as expired, a revoked one as revoked', async () => {
    await asAdmin.post('/api/admin/service-accounts', { name: 'expiring-bot', role: 'reader' }).expect(201);
    const soon = await asAdmin.post('/api/admin/service-accounts/expiring-bot/tokens', { name: 'soon', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }).expect(201);
    const revoked = await asAdmin.post('/api/admin/service-accounts/expiring-bot/tokens', { name: 'revoked' }).expect(201);
    await t.http.get('/api/pages').set(bearer(soon.body.token)).expect(200);
    await t.dataSource.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [soon.body.id]);
    const refused = await t.http.get('/api/tokens').set(bearer(soon.body.token)).expect(401);
    expect(refused.body.message).toMatch(/invalid, expired or revoked/);
    await t.http.delete(`/api/tokens/${revoked.body.id}`).set(bearer(admin.token)).expect(204);
    await t.http.get('/api/pages').set(bearer(revoked.body.token)).expect(401);
    const list = await asAdmin.get('/api/admin/service-accounts/expiring-bot/tokens').expect(200);
    const status = Object.fromEntries(list.body.items.map((i: { name: string; status: string }) => [i.name, i.status]));
    expect(status).toEqual({ soon: 'expired', revoked: 'revoked' });
    // A person's own expired token is listed as expired too, on /api/tokens and /account/tokens.
    const own = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'my expiring', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }).expect(201);
    await t.dataSource.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [own.body.id]);
    const mine = await t.http.get('/api/tokens').set(bearer(author.token)).expect(200);
    expect(mine.body.items.find((i: { id: string }) => i.id === own.body.id).status).toBe('expired');
    const { agent } = await t.login(author);
    const page = await agent.get('/account/tokens').expect(200);
    expect(page.text).toMatch(/<td>my expiring<\/td>[\s\S]*?<td>expired<\/td>/);
  });

  it('has no password: it cannot have one reset, and as an admin it never counts as the last admin', async () => {
    const { body: bot } = await asAdmin.post('/api/admin/service-accounts', { name: 'admin-bot', role: 'admin' }).expect(201);
    const reset = await t.http.put(`/api/admin/users/${bot.id}/password`).set(bearer(admin.token)).send({ password: 'a-long-password-1234' }).expect(400);
    expect(reset.body.message).toBe('admin-bot is a service account: it has no password and acts only through its API tokens.');
    // The only person who is an admin cannot be disabled, although admin-bot is an enabled admin.
    const others = await t.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND kind = 'person' AND disabled_at IS NULL`);
    expect(others[0].n).toBe(1);
    const last = await t.http.post(`/api/admin/users/${admin.id}/disable`).set(bearer(admin.token)).expect(409);
    expect(last.body.code).toBe('last_admin');
    // A service account may be disabled like any user: its tokens stop working, and no new ones are made.
    const token = await asAdmin.post('/api/admin/service-accounts/admin-bot/tokens', { name: 'ops' }).expect(201);
    await t.http.post(`/api/admin/users/${bot.id}/disable`).set(bearer(admin.token)).expect(200);
    await t.http.get('/api/pages').set(bearer(token.body.token)).expect(401);
    const refused = await asAdmin.post('/api/admin/service-accounts/admin-bot/tokens', { name: 'more' }).expect(400);
    expect(refused.body.message).toBe('admin-bot is disabled: enable it first.');
  });

  it('lets admins (only) grant the metrics scope, to a service account of any role', async () => {
    await asAdmin.post('/api/admin/service-accounts', { name: 'prometheus', role: 'reader' }).expect(201);
    const scraper = await asAdmin.post('/api/admin/service-accounts/prometheus/tokens', { name: 'scraper', scopes: ['metrics'] }).expect(201);
    expect(scraper.body.scopes).toEqual(['metrics']);
    const personal = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'm', scopes: ['metrics'] }).expect(403);
    expect(personal.body.message).toMatch(/^Only an admin may grant the metrics scope/);
    await t.http.post('/api/tokens').set(bearer(admin.token)).send({ name: 'm', scopes: ['read', 'metrics'] }).expect(201);
  });

  it('has a screen at /admin/service-accounts: create an account, make it a token (shown once), revoke it', async () => {
    const { agent } = await t.login(admin);
    const screen = await agent.get('/admin/service-accounts').expect(200);
    const csrf = csrfTokenIn(screen.text);
    const bad = await agent.post('/admin/service-accounts').type('form').send({ _csrf: csrf, name: 'Bad Name!', role: 'reader', description: 'kept' }).expect(400);
    expect(bad.text).toContain('name must be 2 to 64 lower-case letters');
    expect(bad.text).toContain('value="kept"');
    const created = await agent.post('/admin/service-accounts').type('form').send({ _csrf: csrf, name: 'ui-bot', role: 'author', description: 'From the screen' }).expect(303);
    expect(created.headers.location).toBe('/admin/service-accounts?notice=created');
    const [bot] = await t.dataSource.query(`SELECT id, kind, role FROM users WHERE email = 'ui-bot'`);
    expect(bot).toMatchObject({ kind: 'service', role: 'author' });
    const expiresOn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const made = await agent.post(`/admin/service-accounts/${bot.id}/tokens`).type('form').send({ _csrf: csrf, name: 'deploys', scope: 'write', expiresOn }).expect(201);
    const token = /<code class="token-value">(kur_[^<]+)<\/code>/.exec(made.text)?.[1];
    expect(token).toBeDefined();
    expect(made.text).toContain('Token “deploys” created for ui-bot.');
    await t.http.post('/api/pages').set(bearer(token!)).send({ title: 'From UI Bot', body: 'x' }).expect(201);
    const [row] = await t.dataSource.query(`SELECT id, scopes, expires_at FROM api_tokens WHERE user_id = $1`, [bot.id]);
    expect(row.scopes).toEqual(['write']);
    expect(new Date(row.expires_at).toISOString()).toBe(`${expiresOn}T23:59:59.000Z`);
    const above = await agent.post(`/admin/service-accounts/${bot.id}/tokens`).type('form').send({ _csrf: csrf, name: 'x', scope: 'admin' }).expect(400);
    expect(above.text).toContain('ui-bot is an author: its tokens cannot have the admin scope.');
    const revoked = await agent.post(`/admin/service-accounts/tokens/${row.id}/revoke`).type('form').send({ _csrf: csrf }).expect(303);
    expect(revoked.headers.location).toBe('/admin/service-accounts?notice=revoked');
    await t.http.get('/api/pages').set(bearer(token!)).expect(401);
    const after = await agent.get('/admin/service-accounts').expect(200);
    expect(after.text).toMatch(/<td>deploys<\/td>[\s\S]*?<td>revoked<\/td>/);
    // The admin home leads here; /admin/users marks service accounts.
    expect((await agent.get('/admin').expect(200)).text).toContain('<a href="/admin/service-accounts">Service accounts</a>');
    expect((await agent.get('/admin/users').expect(200)).text).toMatch(/ui-bot<\/span> <span class="badge">service account<\/span>/);
    // Readers and authors do not see the screen.
    const { agent: authorAgent } = await t.login(author);
    await authorAgent.get('/admin/service-accounts').expect(403);
  });
});
