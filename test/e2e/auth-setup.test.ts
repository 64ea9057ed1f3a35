import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { UsersService } from '../../src/auth/users.service.js';
import { loadConfig } from '../../src/config/kurate-config.js';
import { pgliteTemplate, realPostgresUrl } from '../support/database.js';
import { csrfTokenIn, freshTestConfig, someIp, startTestApp, type TestApp } from '../support/test-app.js';

describe('the first admin, through /setup and the code in the server log', () => {
  let t: TestApp;
  let logged = '';

  beforeAll(async () => {
    const capture = (chunk: unknown) => {
      logged += String(chunk);
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      t = await startTestApp({ env: { KURATE_LOG_LEVEL: 'warn' } });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
  afterAll(() => t.close());

  const code = async () => ((await t.dataSource.query(`SELECT value FROM server_secrets WHERE name = 'setup_code'`)) as { value: string }[])[0]?.value;

  async function setupForm() {
    const agent = supertest.agent(t.app.getHttpServer());
    const ip = someIp();
    const page = await agent.get('/setup').set('X-Forwarded-For', ip).expect(200);
    return { agent, ip, csrf: csrfTokenIn(page.text), page };
  }

  it('prints a random setup code in the log at start', async () => {
    const current = await code();
    expect(current).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){4}$/);
    expect(logged).toContain(`setup code: ${current}`);
  });

  it('offers the setup form while no admin exists, and refuses a wrong code', async () => {
    const { agent, ip, csrf, page } = await setupForm();
    expect(page.text).toContain('Set up Kurate');
    const wrong = await agent.post('/setup').set('X-Forwarded-For', ip).type('form')
      .send({ _csrf: csrf, code: 'AAAA-BBBB-CCCC-DDDD-EEEE', email: 'root@example.test', displayName: 'Root', password: 'correct horse battery', passwordConfirm: 'correct horse battery' })
      .expect(403);
    expect(wrong.text).toContain('The setup code is wrong');
    expect(await t.app.get(UsersService).findByEmail('root@example.test')).toBeNull();
  });

  it('checks the form: passwords must match and be long enough', async () => {
    const { agent, ip, csrf } = await setupForm();
    const base = { _csrf: csrf, code: await code(), email: 'root@example.test', displayName: 'Root' };
    const differ = await agent.post('/setup').set('X-Forwarded-For', ip).type('form').send({ ...base, password: 'correct horse battery', passwordConfirm: 'correct horse batter' }).expect(400);
    expect(differ.text).toContain('The two passwords differ.');
    const short = await agent.post('/setup').set('X-Forwarded-For', ip).type('form').send({ ...base, password: 'short', passwordConfirm: 'short' }).expect(400);
    expect(short.text).toContain('at least 12 characters');
  });

  it('creates the admin with the right code (any case, without dashes), logs them in, and audits it', async () => {
    const { agent, ip, csrf } = await setupForm();
    const typed = (await code())!.toLowerCase().replace(/-/g, ' ');
    const res = await agent.post('/setup').set('X-Forwarded-For', ip).type('form')
      .send({ _csrf: csrf, code: typed, email: 'Root@Example.test', displayName: 'Root', password: 'correct horse battery', passwordConfirm: 'correct horse battery' })
      .expect(303);
    expect(res.headers.location).toBe('/admin/users?notice=welcome');
    const users = await agent.get('/admin/users?notice=welcome').expect(200);
    expect(users.text).toContain('root@example.test');
    expect(users.text).toContain('You are the admin of this wiki');
    const audit: { actor_name: string; action: string; target: string; details: { source: string } }[] = await t.dataSource.query(`SELECT * FROM audit_log WHERE action = 'user.create'`);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_name: 'setup', target: 'user:root@example.test', details: { source: 'setup' } });
  });

  it('is gone once an admin exists: /setup answers 404 and the code is deleted', async () => {
    await t.http.get('/setup').expect(404);
    const { agent } = { agent: supertest.agent(t.app.getHttpServer()) };
    const login = await agent.get('/login').expect(200);
    await agent.post('/setup').type('form').send({ _csrf: csrfTokenIn(login.text), code: 'x' }).expect(404);
    expect(await code()).toBeUndefined();
  });
});

describe('the first admin from KURATE_ADMIN_EMAIL and KURATE_ADMIN_PASSWORD', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_ADMIN_EMAIL: 'Boss@Example.test', KURATE_ADMIN_PASSWORD: 'a long admin password' } });
  });
  afterAll(() => t.close());

  it('creates the admin on first start; there is no setup page and no setup code', async () => {
    const admin = await t.app.get(UsersService).findByEmail('boss@example.test');
    expect(admin).toMatchObject({ email: 'boss@example.test', role: 'admin', disabledAt: null });
    await t.http.get('/setup').expect(404);
    expect(await t.dataSource.query(`SELECT * FROM server_secrets WHERE name = 'setup_code'`)).toEqual([]);
    const { agent } = await t.login({ id: admin!.id, email: 'boss@example.test', password: 'a long admin password', name: 'Admin', role: 'admin', token: '' });
    await agent.get('/admin/users').expect(200);
  });
});

describe('sessions across a restart', () => {
  it('keeps a logged-in user logged in after the server restarts (sessions and their secret live in the database)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kurate-restart-'));
    const fresh = realPostgresUrl() ? await freshTestConfig() : null;
    const config = fresh?.config ?? loadConfig({ KURATE_LOG_LEVEL: 'error', KURATE_DATA_DIR: dir });
    try {
      if (config.database.kind === 'embedded') config.database.snapshot = pgliteTemplate();
      const first = await createApp(config);
      await first.init();
      let cookie: string;
      try {
        const password = 'a long enough password';
        await first.get(UsersService).create({ email: 'stay@example.test', displayName: 'Stay', password, role: 'reader' }, { actor: { userId: null, name: 'test', role: null }, ip: null });
        const agent = supertest.agent(first.getHttpServer());
        const form = await agent.get('/login').expect(200);
        const res = await agent.post('/login').type('form').send({ _csrf: csrfTokenIn(form.text), email: 'stay@example.test', password }).expect(303);
        cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('kurate.sid='))!.split(';')[0];
      } finally {
        await first.close();
      }
      if (config.database.kind === 'embedded') config.database.snapshot = undefined;
      const second = await createApp(config);
      await second.init();
      try {
        const page = await supertest(second.getHttpServer()).get('/account/tokens').set('Cookie', cookie).expect(200);
        expect(page.text).toContain('Your tokens');
      } finally {
        await second.close();
      }
    } finally {
      await fresh?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
