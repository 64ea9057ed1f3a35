import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseNotifications, NOTIFICATIONS_APPLICATION_NAME } from '../../src/db/database-notifications.js';
import { realPostgresUrl } from '../support/database.js';
import { sessionCookieLogin, startTestApp, type TestApp } from '../support/test-app.js';

async function until(what: string, probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The process's LISTEN connection (DatabaseNotifications): while it is down, the caches that depend on it (sessions,
 * rendered pages, search names) trust nothing they keep; when it is back, they forget what they kept before.
 */
describe.skipIf(!realPostgresUrl())('database notifications when the LISTEN connection drops', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('keeps no stale session or page while it is down, and reconnects', async () => {
    const notifications = t.app.get(DatabaseNotifications);
    const server = t.app.getHttpServer();
    const user = await t.user('author', { name: 'Listening Author' });
    const { cookie } = await sessionCookieLogin(server, user);
    const name = async () => /class="user-name"[^>]*>([^<]+)</.exec((await supertest(server).get('/pages').set('Cookie', cookie).expect(200)).text)?.[1];
    expect(await name()).toBe('Listening Author');
    expect(notifications.listening).toBe(true);

    const [{ n }] = await t.dataSource.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [NOTIFICATIONS_APPLICATION_NAME],
    );
    expect(n).toBe(1);
    await until('the connection to be lost', () => !notifications.listening);
    // Nobody tells this process now: what it kept is not trusted, the database is read.
    await t.dataSource.query(`UPDATE users SET display_name = 'Unheard Rename' WHERE id = $1`, [user.id]);
    expect(await name()).toBe('Unheard Rename');

    await until('the connection to come back', () => notifications.listening);
    await t.dataSource.query(`UPDATE users SET display_name = 'Heard Rename' WHERE id = $1`, [user.id]);
    expect(await name()).toBe('Heard Rename');
  });
});
