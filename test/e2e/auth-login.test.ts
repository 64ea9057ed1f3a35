import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenIn, someIp, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** The session cookie line of a response, if it set one. */
function sessionCookie(res: supertest.Response): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('kurate.sid='));
}

function sessionId(cookie: string | undefined): string {
  return decodeURIComponent(/^kurate\.sid=([^;]+)/.exec(cookie ?? '')?.[1] ?? '');
}

describe('login and logout', () => {
  let t: TestApp;
  let reader: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_LOGIN_MAX_ATTEMPTS: '3' } });
    reader = await t.user('reader', { name: 'Rita Reader' });
  });
  afterAll(() => t.close());

  /** GET /login on a fresh agent: the agent (holding the anonymous session) and the form's CSRF token. */
  async function loginForm(ip = someIp()) {
    const agent = supertest.agent(t.app.getHttpServer());
    const form = await agent.get('/login').set('X-Forwarded-For', ip).expect(200);
    return { agent, csrf: csrfTokenIn(form.text), ip, cookie: sessionCookie(form) };
  }

  it('shows a login form with a CSRF token, and logs in with a new session id (no fixation)', async () => {
    const { agent, csrf, ip, cookie: before } = await loginForm();
    const storedSid = sessionId(before).slice(2).split('.')[0];
    const countSid = async () => ((await t.dataSource.query(`SELECT count(*)::int AS n FROM user_sessions WHERE sid = $1`, [storedSid])) as { n: number }[])[0].n;
    expect(await countSid()).toBe(1);
    const res = await agent.post('/login').set('X-Forwarded-For', ip).type('form')
      .send({ _csrf: csrf, email: reader.email.toUpperCase(), password: reader.password, next: '/account/tokens' })
      .expect(303);
    expect(res.headers.location).toBe('/account/tokens');
    const after = sessionCookie(res);
    expect(after).toBeDefined();
    expect(sessionId(after)).not.toBe(sessionId(before));
    // The planted (pre-login) session id means nothing now.
    expect(await countSid()).toBe(0);
    const page = await agent.get('/account/tokens').expect(200);
    expect(page.text).toContain('Your tokens');
  });

  it('sets the cookie HttpOnly and SameSite=Lax, and Secure behind HTTPS (X-Forwarded-Proto from loopback)', async () => {
    const plain = await t.http.get('/login').expect(200);
    const cookie = sessionCookie(plain)!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).not.toMatch(/; Secure/i);
    expect(cookie).toMatch(/; Path=\//);
    const https = await t.http.get('/login').set('X-Forwarded-Proto', 'https').expect(200);
    expect(sessionCookie(https)).toMatch(/; Secure/i);
    // A visitor's session (holding only the form token) lasts two hours; a logged-in one KURATE_SESSION_DAYS (14).
    const expires = (c: string) => new Date(/Expires=([^;]+)/.exec(c)![1]).getTime() - Date.now();
    expect(expires(cookie)).toBeLessThanOrEqual(2 * 3600_000);
    expect(expires(cookie)).toBeGreaterThan(3500_000);
    const { agent, csrf, ip } = await loginForm();
    const login = await agent.post('/login').set('X-Forwarded-Proto', 'https').set('X-Forwarded-For', ip).type('form')
      .send({ _csrf: csrf, email: reader.email, password: reader.password }).expect(303);
    const loggedIn = sessionCookie(login)!;
    expect(loggedIn).toMatch(/; HttpOnly/i);
    expect(loggedIn).toMatch(/; SameSite=Lax/i);
    expect(loggedIn).toMatch(/; Secure/i);
    expect(expires(loggedIn)).toBeGreaterThan(13.9 * 86_400_000);
    expect(expires(loggedIn)).toBeLessThanOrEqual(14 * 86_400_000);
  });

  it('answers an unknown email and a wrong password with the same words and status, in similar time', async () => {
    // Each attempt from a fresh form and address, with no failure counted before it: no lockout or address limit
    // answers instead of the password check.
    const timed = async (email: string) => {
      await t.dataSource.query(`DELETE FROM login_attempts`);
      const { agent, csrf, ip } = await loginForm();
      const start = process.hrtime.bigint();
      const res = await agent.post('/login').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email, password: 'not-the-password' });
      return { res, ms: Number(process.hrtime.bigint() - start) / 1e6 };
    };
    // One of each first (the first argon2 verification of a process pays for warming up), then three of each,
    // alternating, compared by their medians: one slow request on a busy machine says nothing.
    await timed('nobody@example.test');
    await timed(reader.email);
    const unknowns: Awaited<ReturnType<typeof timed>>[] = [];
    const wrongs: Awaited<ReturnType<typeof timed>>[] = [];
    for (let i = 0; i < 3; i++) {
      unknowns.push(await timed('nobody@example.test'));
      wrongs.push(await timed(reader.email));
    }
    const median = (runs: { ms: number }[]) => runs.map((r) => r.ms).sort((a, b) => a - b)[1];
    const [unknown, wrong] = [unknowns[0], wrongs[0]];
    for (const run of [...unknowns, ...wrongs]) expect(run.res.status).toBe(401);
    expect(unknown.res.text).toContain('Email or password is wrong.');
    expect(wrong.res.text).toContain('Email or password is wrong.');
    expect(sessionCookie(wrong.res) ?? '').not.toMatch(/Max-Age=0/);
    // Both verify an argon2 hash: neither answers in a fraction of the other's time.
    expect(median(unknowns)).toBeGreaterThan(median(wrongs) / 4);
    expect(median(wrongs)).toBeGreaterThan(median(unknowns) / 4);
    await t.dataSource.query(`DELETE FROM login_attempts`);
  });

  it('locks an account after the configured failures for a growing delay, and says when to retry', async () => {
    const victim = await t.user('author');
    const { agent, csrf, ip } = await loginForm();
    const attempt = (password: string) => agent.post('/login').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email: victim.email, password });
    await attempt('wrong-1').expect(401);
    await attempt('wrong-2').expect(401);
    const third = await attempt('wrong-3').expect(429);
    expect(third.text).toMatch(/Too many failed logins for this account\. Try again after \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in \d+ seconds\)/);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(50);
    // Even the right password waits until the lock ends.
    await attempt(victim.password).expect(429);
    // The lock ends; the next failure locks again, twice as long.
    await t.dataSource.query(`UPDATE login_attempts SET locked_until = now() - interval '1 second' WHERE email = $1`, [victim.email]);
    const again = await attempt('wrong-4').expect(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(110);
    await t.dataSource.query(`UPDATE login_attempts SET locked_until = now() - interval '1 second' WHERE email = $1`, [victim.email]);
    await attempt(victim.password).expect(303);
    const rows = await t.dataSource.query(`SELECT * FROM login_attempts WHERE email = $1`, [victim.email]);
    expect(rows).toEqual([]);
  });

  it('locks unknown emails the same way (a lockout reveals nothing about which accounts exist)', async () => {
    const { agent, csrf, ip } = await loginForm();
    const attempt = () => agent.post('/login').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email: 'ghost@example.test', password: 'whatever-it-is' });
    await attempt().expect(401);
    await attempt().expect(401);
    const third = await attempt().expect(429);
    expect(third.text).toContain('Too many failed logins for this account');
  });

  it('limits login attempts per client address (429 with a clear message)', async () => {
    const { agent, csrf, ip } = await loginForm();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await agent.post('/login').set('X-Forwarded-For', ip).set('Accept', 'text/html')
        .type('form').send({ _csrf: csrf, email: `nobody-${i}@example.test`, password: 'wrong-password' });
      statuses.push(res.status);
      if (res.status === 429) expect(res.text).toContain('Too many attempts from your address');
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Another address is not affected.
    const other = await loginForm();
    await other.agent.post('/login').set('X-Forwarded-For', other.ip).type('form').send({ _csrf: other.csrf, email: reader.email, password: reader.password }).expect(303);
  });

  it('asks for both fields without counting a failure, and only redirects to paths on this site', async () => {
    const { agent, csrf, ip } = await loginForm();
    const empty = await agent.post('/login').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email: reader.email, password: '' }).expect(400);
    expect(empty.text).toContain('Enter your email and your password.');
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      const form = await loginForm();
      const res = await form.agent.post('/login').set('X-Forwarded-For', form.ip).type('form')
        .send({ _csrf: form.csrf, email: reader.email, password: reader.password, next }).expect(303);
      expect(res.headers.location).toBe('/');
    }
  });

  it('refuses a login without the form token, or with the token of another session', async () => {
    const mine = await loginForm();
    const theirs = await loginForm();
    await mine.agent.post('/login').set('X-Forwarded-For', mine.ip).type('form').send({ email: reader.email, password: reader.password }).expect(403);
    const stolen = await mine.agent.post('/login').set('X-Forwarded-For', mine.ip).type('form')
      .send({ _csrf: theirs.csrf, email: reader.email, password: reader.password }).expect(403);
    expect(stolen.body.code).toBe('invalid_csrf_token');
  });

  it('redirects a logged-in user away from the form, and logs out with the token (ending the session row)', async () => {
    const { agent, csrfToken } = await t.login(reader);
    await agent.get('/login?next=/account/tokens').expect(303).expect('location', '/account/tokens');
    const before: { n: number }[] = await t.dataSource.query(`SELECT count(*)::int AS n FROM user_sessions WHERE user_id = $1`, [reader.id]);
    await agent.post('/logout').type('form').send({}).expect(403);
    const out = await agent.post('/logout').type('form').send({ _csrf: csrfToken }).expect(303);
    expect(out.headers.location).toBe('/');
    const after: { n: number }[] = await t.dataSource.query(`SELECT count(*)::int AS n FROM user_sessions WHERE user_id = $1`, [reader.id]);
    expect(after[0].n).toBe(before[0].n - 1);
    await agent.get('/account/tokens').expect(401);
  });

  it('sends a browser that needs to log in to /login?next=…, and an API client a 401', async () => {
    const res = await t.http.get('/account/tokens').set('Accept', 'text/html').expect(303);
    expect(res.headers.location).toBe('/login?next=%2Faccount%2Ftokens');
    const api = await t.http.get('/api/tokens').set('Accept', 'text/html').expect(401);
    expect(api.body).toMatchObject({ statusCode: 401, code: 'unauthenticated' });
  });

  it('refuses a disabled user\'s open session on its next request, and their login', async () => {
    const admin = await t.as('admin');
    const victim = await t.user('author', { name: 'Soon Disabled' });
    const { agent } = await t.login(victim);
    await agent.get('/account/tokens').expect(200);
    await admin.post(`/api/admin/users/${victim.id}/disable`).expect(200);
    await agent.get('/account/tokens').expect(401);
    const { agent: again, csrf, ip } = await loginForm();
    const res = await again.post('/login').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email: victim.email, password: victim.password }).expect(403);
    expect(res.text).toContain('This account is disabled');
  });
});
