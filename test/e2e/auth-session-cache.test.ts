import type { NestExpressApplication } from '@nestjs/platform-express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { SessionsRepository } from '../../src/auth/sessions.repository.js';
import { realPostgresUrl } from '../support/database.js';
import { sessionCookieLogin as logIn, startTestApp, type TestApp } from '../support/test-app.js';

/** Who a request with this cookie is, as the header shows it: the display name, or null (anonymous). */
async function whoIs(server: ReturnType<NestExpressApplication['getHttpServer']>, cookie: string): Promise<string | null> {
  const res = await supertest(server).get('/pages').set('Cookie', cookie).expect(200);
  return /class="user-name"[^>]*>([^<]+)</.exec(res.text)?.[1] ?? null;
}

/**
 * A process keeps the sessions it read (no database read per logged-in request), and what it keeps is never stale:
 * a logout, a session ended in the database, or a user renamed, demoted or disabled is seen by the very next request,
 * on this process and on every other (migration 0027's notifications, heard before each request).
 */
describe('kept sessions', () => {
  let t: TestApp;
  let server: ReturnType<NestExpressApplication['getHttpServer']>;
  beforeAll(async () => {
    t = await startTestApp();
    server = t.app.getHttpServer();
  });
  afterAll(() => t.close());

  it('reads a session from the database once, then from memory', async () => {
    const user = await t.user('author', { name: 'Kept Author' });
    const { cookie } = await logIn(server, user);
    const read = vi.spyOn(t.app.get(SessionsRepository), 'findLiveWithUser');
    try {
      expect(await whoIs(server, cookie)).toBe('Kept Author');
      expect(await whoIs(server, cookie)).toBe('Kept Author');
      expect(await whoIs(server, cookie)).toBe('Kept Author');
      expect(read.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      read.mockRestore();
    }
  });

  it('sees a change made in the database by anyone (the CLI, another process) on the next request', async () => {
    const user = await t.user('author', { name: 'Changing Author' });
    const { cookie } = await logIn(server, user);
    expect(await whoIs(server, cookie)).toBe('Changing Author');
    await t.dataSource.query(`UPDATE users SET display_name = 'Renamed Author' WHERE id = $1`, [user.id]);
    expect(await whoIs(server, cookie)).toBe('Renamed Author');
    await t.dataSource.query(`UPDATE users SET role = 'reader' WHERE id = $1`, [user.id]);
    expect((await supertest(server).get('/page/new').set('Cookie', cookie)).status).toBe(403);
    await t.dataSource.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [user.id]);
    expect(await whoIs(server, cookie)).toBeNull();
  });

  it('forgets a session deleted in the database, and one that logged out', async () => {
    const user = await t.user('reader', { name: 'Leaving Reader' });
    const first = await logIn(server, user);
    expect(await whoIs(server, first.cookie)).toBe('Leaving Reader');
    await t.dataSource.query(`DELETE FROM user_sessions WHERE user_id = $1`, [user.id]);
    expect(await whoIs(server, first.cookie)).toBeNull();

    const second = await logIn(server, user);
    expect(await whoIs(server, second.cookie)).toBe('Leaving Reader');
    await supertest(server).post('/logout').set('Cookie', second.cookie).type('form').send({ _csrf: second.csrf }).expect(303);
    expect(await whoIs(server, second.cookie)).toBeNull();
  });

  describe.skipIf(!realPostgresUrl())('two app processes on one PostgreSQL', () => {
    let other: NestExpressApplication;
    beforeAll(async () => {
      other = await createApp(t.config);
      await other.init();
    });
    afterAll(() => other?.close());

    it('a logout through one process ends the session on the other at its very next request', async () => {
      const user = await t.user('reader', { name: 'Two Process Reader' });
      const { cookie, csrf } = await logIn(server, user);
      // The other process reads the session and keeps it.
      expect(await whoIs(other.getHttpServer(), cookie)).toBe('Two Process Reader');
      expect(await whoIs(other.getHttpServer(), cookie)).toBe('Two Process Reader');
      await supertest(server).post('/logout').set('Cookie', cookie).type('form').send({ _csrf: csrf }).expect(303);
      expect(await whoIs(other.getHttpServer(), cookie)).toBeNull();
    });

    it('an admin disabling a user through one process logs them out on the other at once', async () => {
      const user = await t.user('author', { name: 'Soon Disabled' });
      const { cookie } = await logIn(server, user);
      expect(await whoIs(other.getHttpServer(), cookie)).toBe('Soon Disabled');
      const admin = await t.as('admin');
      await admin.post(`/api/admin/users/${user.id}/disable`).send({}).expect(200);
      expect(await whoIs(other.getHttpServer(), cookie)).toBeNull();
    });
  });
});
