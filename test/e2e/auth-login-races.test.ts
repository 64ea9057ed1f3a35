import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { csrfTokenIn, someIp, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Logins against what happens to the account meanwhile (src/auth/login.service.ts): concurrent guesses against the
 * lockout, and a login whose password is reset while it is checked. On PostgreSQL a lock held from the test's own
 * connection makes each interleaving happen; on the embedded database the requests run one after the other, and the
 * outcome must be the one a serial order gives.
 */
describe('logins under concurrency', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_LOGIN_MAX_ATTEMPTS: '3' } });
  });
  afterAll(() => t?.close());

  const tokenLogin = (email: string, password: string) =>
    supertest(t.app.getHttpServer()).post('/api/auth/login-token').set('X-Forwarded-For', someIp()).send({ email, password, name: 'race' }).then((r) => r);

  it('counts concurrent guesses before checking them: past the limit even the right password is refused, unchecked', async () => {
    const victim = await t.user('author', { name: 'Guessed At' });
    await tokenLogin(victim.email, 'wrong-0').then((r) => expect(r.status).toBe(401));
    // Three guesses wait together where a try is counted; then the right password arrives behind them.
    const gate = await holdLock(t.dataSource, 'SELECT 1 FROM login_attempts WHERE email = $1 FOR UPDATE', [victim.email], { ownConnections: true });
    let guesses: Promise<supertest.Response>[] = [];
    let right: Promise<supertest.Response> | null = null;
    try {
      guesses = Array.from({ length: 3 }, (_, i) => tokenLogin(victim.email, `wrong-${i + 1}`));
      await waitFor('the guesses to wait', async () => (await gate.waiting()) >= 3);
      right = tokenLogin(victim.email, victim.password);
      await waitFor('the right password to wait behind them', async () => (await gate.waiting()) >= 4);
    } finally {
      await gate.release();
    }
    const statuses = (await Promise.all(guesses)).map((r) => r.status).sort();
    // Failures 2 and 3 are checked (the third locks the account: its answer says so); the fourth is refused unchecked.
    expect(statuses).toEqual([401, 429, 429]);
    const answer = await right!;
    expect(answer.status).toBe(429);
    expect(answer.body.token).toBeUndefined();
    const [row] = await t.dataSource.query('SELECT failures, locked_until > now() AS locked FROM login_attempts WHERE email = $1', [victim.email]);
    expect(row).toEqual({ failures: 3, locked: true });
  });

  it('ends the session of a login whose password an admin reset while it was checked', async () => {
    const admin = await t.as('admin');
    const user = await t.user('reader', { name: 'Reset Meanwhile' });
    const agent = supertest.agent(t.app.getHttpServer());
    const ip = someIp();
    const csrf = csrfTokenIn((await agent.get('/login').set('X-Forwarded-For', ip).expect(200)).text);
    const { id } = (await t.dataSource.query('SELECT id FROM users WHERE email = $1', [user.email]))[0];

    // The login has checked the old password and waits to store its session; the reset then changes the password
    // and waits to end the account's sessions. Before, the reset ended the sessions that existed, the login's
    // session came after, and the old password went on working.
    const gate = await holdLock(t.dataSource, 'LOCK TABLE user_sessions IN EXCLUSIVE MODE', [], { ownConnections: true });
    let login: Promise<supertest.Response> | null = null;
    let reset: Promise<supertest.Response> | null = null;
    try {
      login = agent.post('/login').type('form').set('X-Forwarded-For', ip).send({ _csrf: csrf, email: user.email, password: user.password, next: '/' }).then((r) => r);
      await waitFor('the login to wait', async () => (await gate.waiting()) >= 1);
      reset = admin.put(`/api/admin/users/${id}/password`).send({ password: 'a-brand-new-password-42' }).then((r) => r);
      await waitFor('the reset to wait', async () => (await gate.waiting()) >= 2);
    } finally {
      await gate.release();
    }
    expect((await reset!).status).toBe(200);
    const answer = await login!;
    if (answer.status === 303) {
      // The serial order "login, then reset" (the embedded database): the reset ended the session.
      expect(ON_POSTGRES).toBe(false);
    } else {
      expect(answer.status).toBe(401);
      expect(answer.text).toContain('Email or password is wrong.');
    }
    // Either way the old password logs nobody in any more: no session of the account is left, and the agent is anonymous.
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM user_sessions WHERE user_id = $1', [id]))[0].n).toBe(0);
    await agent.get('/account/tokens').expect((r) => expect([302, 303, 401]).toContain(r.status));
  });
});
