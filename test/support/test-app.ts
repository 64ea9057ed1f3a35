import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import supertest from 'supertest';
import { createApp } from '../../src/app.setup.js';
import type { Role } from '../../src/auth/actor.js';
import type { TokenScope } from '../../src/auth/api-token.entity.js';
import { ApiTokensService } from '../../src/auth/api-tokens.service.js';
import { UsersService } from '../../src/auth/users.service.js';
import { KurateConfig, loadConfig } from '../../src/config/kurate-config.js';
import { adminQuery, pgTemplateName, pgliteTemplate, pgliteTemplatePath, realPostgresUrl, withDatabase } from './database.js';

export interface TestApp {
  app: NestExpressApplication;
  http: ReturnType<typeof supertest>;
  dataSource: DataSource;
  config: KurateConfig;
  /** The base URL when started with `listen: true` (browser and CLI tests). */
  baseUrl: string | null;
  /**
   * A supertest agent that sends `Authorization: Bearer` for a user with this role (created on first use and
   * reused per role + name). `name` is the display name revisions record.
   */
  as(role: Role, options?: { name?: string }): Promise<supertest.Agent>;
  /** A user with this role and a token (scope: read, write or admin, by role). */
  user(role: Role, options?: { name?: string }): Promise<TestUser>;
  /** Logs in through the real /login form: an agent with the session cookie, and the session's CSRF token. */
  login(user: TestUser): Promise<{ agent: supertest.Agent; csrfToken: string }>;
  close(): Promise<void>;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  name: string;
  role: Role;
  token: string;
}

const SCOPE_BY_ROLE: Record<Role, TokenScope> = { reader: 'read', author: 'write', admin: 'admin' };

/** The value of the first `name="_csrf"` hidden input in an HTML page. */
export function csrfTokenIn(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('No CSRF token in this page');
  return match[1];
}

/** A made-up client address for requests that count per IP (login throttling), so that tests do not share one. */
export function someIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/**
 * What every test app runs with unless its test says otherwise. The tests run the TypeScript sources, which have no
 * compiled worker module for the built-in extractor's threads, nor for the Markdown threads: both run on the main
 * thread (the same code; test/unit/builtin-extractor-threads.test.ts and test/e2e/render-stall.test.ts run the compiled
 * workers). Passwords are hashed with
 * argon2id at its smallest cost: at the default (64 MiB, 3 passes) each app start, test user and login cost a second
 * of CPU, and the cost is a parameter stored in each hash (test/unit/auth-password-hasher.test.ts covers it).
 */
// Files go to the test database (never to ./data/attachments of the checkout); store tests choose theirs.
const TEST_DEFAULTS = { KURATE_BUILTIN_EXTRACTOR_THREADS: '0', KURATE_RENDER_THREADS: '0', KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1', KURATE_ATTACHMENTS_STORE: 'database' };

/**
 * Builds the configuration a test runs with: a fresh database of its own, quiet logs. `database: 'embedded'` asks for
 * an in-memory PGlite even when the suite runs on PostgreSQL (then migrated from scratch: there is no PGlite template).
 */
/**
 * Logs in through the form of the app behind `server`, as a browser would: the session cookie (`kurate.sid=…`) to
 * send to this app or to another process on the same database, and the session's CSRF token.
 */
export async function sessionCookieLogin(server: Parameters<typeof supertest>[0], who: TestUser): Promise<{ cookie: string; csrf: string }> {
  const form = await supertest(server).get('/login').expect(200);
  const formCookie = (form.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const res = await supertest(server).post('/login').set('Cookie', formCookie).set('X-Forwarded-For', someIp()).type('form')
    .send({ _csrf: csrfTokenIn(form.text), email: who.email, password: who.password }).expect(303);
  const cookie = (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const page = await supertest(server).get('/account/tokens').set('Cookie', cookie).expect(200);
  return { cookie, csrf: csrfTokenIn(page.text) };
}

export async function freshTestConfig(
  env: Record<string, string> = {},
  options: { database?: 'embedded' } = {},
): Promise<{ config: KurateConfig; drop: () => Promise<void> }> {
  const url = options.database === 'embedded' ? null : realPostgresUrl();
  if (url) {
    const database = `kurate_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${database} TEMPLATE ${pgTemplateName()}`);
    const config = loadConfig({ KURATE_LOG_LEVEL: 'error', ...TEST_DEFAULTS, ...env, DATABASE_URL: withDatabase(url, database), KURATE_DB_POOL_SIZE: '4' });
    return { config, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
  }
  const { DATABASE_URL: _unused, ...withoutUrl } = env;
  const config = loadConfig({ KURATE_LOG_LEVEL: 'error', ...TEST_DEFAULTS, ...withoutUrl, KURATE_DATA_DIR: 'memory://' });
  if (config.database.kind === 'embedded' && existsSync(pgliteTemplatePath())) config.database.snapshot = pgliteTemplate();
  return { config, drop: async () => {} };
}

/** Starts the whole application on a fresh database of its own, for one test file. */
export async function startTestApp(options: { env?: Record<string, string>; listen?: boolean; database?: 'embedded' } = {}): Promise<TestApp> {
  const { config, drop } = await freshTestConfig(options.env, { database: options.database });
  const app = await createApp(config);
  let baseUrl: string | null = null;
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    baseUrl = `http://127.0.0.1:${address.port}`;
  } else {
    await app.init();
  }
  const server = app.getHttpServer();
  const users = new Map<string, Promise<TestUser>>();
  const user = (role: Role, options: { name?: string } = {}): Promise<TestUser> => {
    const key = `${role}/${options.name ?? ''}`;
    if (!users.has(key)) users.set(key, createTestUser(app, role, options.name));
    return users.get(key)!;
  };
  return {
    app,
    http: supertest(server),
    dataSource: app.get(DataSource),
    config,
    baseUrl,
    user,
    as: async (role, options) => supertest.agent(server).set('Authorization', `Bearer ${(await user(role, options)).token}`),
    login: async (who) => {
      const agent = supertest.agent(server);
      const form = await agent.get('/login').expect(200);
      await agent
        .post('/login')
        .set('X-Forwarded-For', someIp())
        .type('form')
        .send({ _csrf: csrfTokenIn(form.text), email: who.email, password: who.password })
        .expect(303);
      const page = await agent.get('/account/tokens').expect(200);
      return { agent, csrfToken: csrfTokenIn(page.text) };
    },
    close: async () => {
      await app.close();
      await drop();
    },
  };
}

async function createTestUser(app: NestExpressApplication, role: Role, name?: string): Promise<TestUser> {
  const suffix = randomBytes(4).toString('hex');
  const password = `password-${suffix}-long`;
  const email = `${role}-${suffix}@example.test`;
  const displayName = name ?? `${role} ${suffix}`;
  const origin = { actor: { userId: null, name: 'test', role: null }, ip: null };
  const created = await app.get(UsersService).create({ email, displayName, password, role }, origin);
  const { token } = await app.get(ApiTokensService).create(
    { name: 'test', scopes: [SCOPE_BY_ROLE[role]] },
    { actor: { userId: created.id, name: displayName, role }, ip: null },
  );
  return { id: created.id, email, password, name: displayName, role, token };
}
