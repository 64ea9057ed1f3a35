import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { someIp, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** POST /api/auth/login-token: what `kurate login` calls, with the login form's throttle and lockout. */
describe('POST /api/auth/login-token', () => {
  let t: TestApp;
  let author: TestUser;
  let admin: TestUser;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const loginToken = (body: Record<string, unknown>, ip = someIp()) => t.http.post('/api/auth/login-token').set('X-Forwarded-For', ip).send(body);

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_LOGIN_MAX_ATTEMPTS: '3' } });
    [author, admin] = await Promise.all([t.user('author', { name: 'Ann Author' }), t.user('admin')]);
  });
  afterAll(() => t.close());

  it('makes a personal token from the right email and password, scoped to the role, that then acts as the user', async () => {
    const res = await loginToken({ email: author.email.toUpperCase(), password: author.password, name: 'kurate login on laptop', expiresAt: inAnHour() }).expect(201);
    expect(res.body).toMatchObject({ name: 'kurate login on laptop', scopes: ['write'], status: 'active', userId: author.id, userEmail: author.email });
    expect(res.body.token).toMatch(/^kur_[A-Za-z0-9_-]{43}$/);
    const mine = await t.http.get('/api/tokens').set('Authorization', `Bearer ${res.body.token}`).expect(200);
    expect(mine.body.items.map((i: { id: string }) => i.id)).toContain(res.body.id);
    // It writes as the author it belongs to.
    await t.http.post('/api/pages').set('Authorization', `Bearer ${res.body.token}`).send({ title: 'Logged In Page', body: 'Hello.' }).expect(201);
    const [audit] = await t.dataSource.query(`SELECT actor_name, details FROM audit_log WHERE action = 'token.create' AND details->>'tokenId' = $1`, [res.body.id]);
    expect(audit).toMatchObject({ actor_name: 'Ann Author', details: { via: 'login', scopes: ['write'] } });
  });

  it('gives an admin the admin scope by default, and less when asked; never more than the role', async () => {
    const full = await loginToken({ email: admin.email, password: admin.password, name: 'full' }).expect(201);
    expect(full.body).toMatchObject({ scopes: ['admin'], expiresAt: null });
    const less = await loginToken({ email: admin.email, password: admin.password, name: 'read only', scopes: ['read'] }).expect(201);
    expect(less.body.scopes).toEqual(['read']);
    await t.http.get('/api/admin/users').set('Authorization', `Bearer ${less.body.token}`).expect(403);
    const above = await loginToken({ email: author.email, password: author.password, name: 'too much', scopes: ['admin'] }).expect(403);
    expect(above.body.message).toBe('An author cannot create a token with the admin scope.');
    const metrics = await loginToken({ email: author.email, password: author.password, name: 'metrics', scopes: ['metrics'] }).expect(403);
    expect(metrics.body.message).toMatch(/^Only an admin may grant the metrics scope/);
  });

  it('answers a wrong password and an unknown email alike (401), and refuses bad input with 400', async () => {
    const wrong = await loginToken({ email: author.email, password: 'not-the-password', name: 'x' }).expect(401);
    const unknown = await loginToken({ email: 'nobody@example.test', password: 'whatever-it-is', name: 'x' }).expect(401);
    expect(wrong.body).toMatchObject({ code: 'invalid_credentials', message: 'Email or password is wrong.' });
    expect(unknown.body).toEqual(wrong.body);
    const missing = await loginToken({ email: author.email, name: 'x' }).expect(400);
    expect(missing.body.message).toMatch(/password/);
    await loginToken({ email: author.email, password: author.password, name: 'x', expiresAt: '2001-01-01' }).expect(400);
    await loginToken({ email: author.email, password: author.password, name: '' }).expect(400);
  });

  it('counts failures towards the account lockout (429 with Retry-After), even for the right password while locked', async () => {
    const victim = await t.user('reader', { name: 'locked reader' });
    for (const n of [1, 2]) await loginToken({ email: victim.email, password: `wrong-${n}`, name: 'x' }).expect(401);
    const third = await loginToken({ email: victim.email, password: 'wrong-3', name: 'x' }).expect(429);
    expect(third.body).toMatchObject({ code: 'account_locked', message: expect.stringMatching(/^Too many failed logins for this account/) });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    await loginToken({ email: victim.email, password: victim.password, name: 'x' }).expect(429);
    // The form and the API share the lockout: the form is locked too.
    const count = await t.dataSource.query(`SELECT failures FROM login_attempts WHERE email = $1`, [victim.email]);
    expect(count[0].failures).toBe(3);
  });

  it('limits attempts per client address, as the login form does', async () => {
    const ip = someIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await loginToken({ email: `x${i}@example.test`, password: 'wrong-password', name: 'x' }, ip)).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('refuses a disabled account (403) and a service account, which has no password (401)', async () => {
    const gone = await t.user('reader', { name: 'disabled reader' });
    await t.http.post(`/api/admin/users/${gone.id}/disable`).set('Authorization', `Bearer ${admin.token}`).expect(200);
    const disabled = await loginToken({ email: gone.email, password: gone.password, name: 'x' }).expect(403);
    expect(disabled.body.message).toMatch(/disabled/);
    await t.http.post('/api/admin/service-accounts').set('Authorization', `Bearer ${admin.token}`).send({ name: 'login-bot', role: 'reader' }).expect(201);
    const service = await loginToken({ email: 'login-bot', password: 'anything-at-all', name: 'x' }).expect(401);
    expect(service.body.code).toBe('invalid_credentials');
  });
});
