// @module-tag slow (compiles the server and runs two web processes and a worker of it on PostgreSQL): docs/testing.md
import pg from 'pg';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTokensService } from '../../src/auth/api-tokens.service.js';
import { UsersService } from '../../src/auth/users.service.js';
import { createApp } from '../../src/app.setup.js';
import { closedPort } from '../support/cli.js';
import { realPostgresUrl } from '../support/database.js';
import { ensureServerBuilt, killHard, startServer, stopServer, type ServerProcess } from '../support/server-process.js';
import { csrfTokenIn, freshTestConfig, someIp } from '../support/test-app.js';

/**
 * Scale-out as compose runs it: two web processes (KURATE_ROLE=web) and a worker (KURATE_ROLE=worker), separate
 * processes of the built server on one PostgreSQL, each with its own caches and LISTEN connections. Only real
 * PostgreSQL can be shared: the embedded database belongs to one process.
 */
const ON_POSTGRES = realPostgresUrl() !== null;
const PASSWORD = 'scale-out-password-1';

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface QueueCounts { queue: string; queued: number; retrying: number; running: number; completed: number }
const extractQueue = (status: { queues?: QueueCounts[] }) => status.queues?.find((q) => q.queue === 'kg-extract-page');

describe.runIf(!ON_POSTGRES)('scale-out: two web processes and a worker', () => {
  it.skip('needs real PostgreSQL (the embedded database belongs to one process): run with DATABASE_URL=postgres://… to test it', () => {});
});

describe.runIf(ON_POSTGRES)('scale-out on PostgreSQL: web A, web B and a worker, separate processes', () => {
  let drop: () => Promise<void>;
  const servers: ServerProcess[] = [];
  let webA: ServerProcess;
  // Plain requests, no cookie jar: each request says who it is (a bearer token, or the session cookie given).
  let a: ReturnType<typeof supertest>;
  let b: ReturnType<typeof supertest>;
  let token: string;
  let email: string;
  let url: string;

  beforeAll(async () => {
    const entry = ensureServerBuilt();
    const fresh = await freshTestConfig();
    drop = fresh.drop;
    url = (fresh.config.database as { url: string }).url;
    // An admin and a token, made through the services in this process before the servers start.
    const setup = await createApp(fresh.config);
    await setup.init();
    email = 'scale-admin@example.test';
    const origin = { actor: { userId: null, name: 'test', role: null }, ip: null };
    const user = await setup.get(UsersService).create({ email, displayName: 'Scale Admin', password: PASSWORD, role: 'admin' }, origin);
    token = (await setup.get(ApiTokensService).create({ name: 'scale', scopes: ['admin'] }, { actor: { userId: user.id, name: 'Scale Admin', role: 'admin' }, ip: null })).token;
    await setup.close();

    const env = { DATABASE_URL: url, KURATE_DB_POOL_SIZE: '3', KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1', KURATE_BUILTIN_EXTRACTOR_THREADS: '0', KURATE_JOB_POLL_SECONDS: '0.5' };
    const [portA, portB, portWorker] = [await closedPort(), await closedPort(), await closedPort()];
    const built = await entry;
    const started = await Promise.all([
      startServer(built, { ...env, KURATE_ROLE: 'web', PORT: String(portA) }),
      startServer(built, { ...env, KURATE_ROLE: 'web', PORT: String(portB) }),
      startServer(built, { ...env, KURATE_ROLE: 'worker', PORT: String(portWorker) }),
    ]);
    servers.push(...started);
    webA = started[0];
    a = supertest(`http://127.0.0.1:${portA}`);
    b = supertest(`http://127.0.0.1:${portB}`);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => stopServer(s)));
    await drop?.();
  });

  const bearer = (agent: ReturnType<typeof supertest>) => ({
    post: (url: string) => agent.post(url).set('Authorization', `Bearer ${token}`),
    put: (url: string) => agent.put(url).set('Authorization', `Bearer ${token}`),
    get: (url: string) => agent.get(url).set('Authorization', `Bearer ${token}`),
  });

  it('serves HTTP on both web processes and none on the worker', async () => {
    await a.get('/health').expect(200);
    await b.get('/health').expect(200);
    expect(servers[2].output()).toContain('Kurate worker is running');
  });

  it('shows a save on A at once to anonymous readers of B, whose cached page is forgotten', async () => {
    const created = await bearer(a).post('/api/pages').send({ title: 'Harbour Log', body: 'The first entry.' }).expect(201);
    // Twice on B: the second view comes from B's anonymous page cache.
    expect((await b.get('/page/harbour-log').expect(200)).text).toContain('The first entry.');
    expect((await b.get('/page/harbour-log').expect(200)).text).toContain('The first entry.');
    // Several rounds: each save on A is seen by B's very next read, with no wait in between.
    let version = created.body.version as number;
    for (const entry of ['second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh']) {
      version = (await bearer(a).put('/api/pages/harbour-log').send({ body: `The ${entry} entry.`, baseVersion: version }).expect(200)).body.version;
      const seen = (await b.get('/page/harbour-log').expect(200)).text;
      expect(seen).toContain(`The ${entry} entry.`);
      expect(seen).not.toContain('The first entry.');
    }
  });

  it('shares sessions: a login on A is a login on B, and a logout on A ends it on B', async () => {
    const cookiesOf = (res: supertest.Response) => ((res.headers['set-cookie'] ?? []) as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    const form = await a.get('/login').expect(200);
    const login = await a.post('/login').set('Cookie', cookiesOf(form)).set('X-Forwarded-For', someIp()).type('form')
      .send({ _csrf: csrfTokenIn(form.text), email, password: PASSWORD }).expect(303);
    const cookie = cookiesOf(login);
    const onB = await b.get('/account/tokens').set('Cookie', cookie).expect(200);
    expect(onB.text).toContain('Scale Admin');
    await b.get('/account/tokens').redirects(0).expect((res) => expect([302, 303, 401]).toContain(res.status));
    const page = await a.get('/account/tokens').set('Cookie', cookie).expect(200);
    await a.post('/logout').set('Cookie', cookie).type('form').send({ _csrf: csrfTokenIn(page.text) }).expect(303);
    const after = await b.get('/account/tokens').set('Cookie', cookie).redirects(0);
    expect(after.status).not.toBe(200);
  });

  it('extracts a page saved on A on the worker, and an approval on A changes what search on B understands at once', async () => {
    await bearer(a).post('/api/pages').send({ title: 'Grace Darling', body: '---\ncluster: coast\n---\nGrace Darling was the daughter of a lighthouse keeper at [[Longstone]].\n' }).expect(201);
    await bearer(a).post('/api/pages').send({ title: 'Longstone', body: '---\ncluster: coast\n---\nLongstone is a lighthouse where [[Grace Darling]] lived.\n' }).expect(201);
    await bearer(a).post('/api/pages').send({ title: 'Lighthouse Keepers', body: '---\ncluster: coast\n---\nThe Lighthouse Keepers met [[Grace Darling]] at Longstone in Northumberland.\n' }).expect(201);
    await bearer(a).put('/admin/kg-policy/clusters/coast').send({ action: 'include', reason: 'scale-out test' }).expect(200);
    let names: string[] = [];
    const proposal = await waitFor('the worker to extract the page', async () => {
      const items = (await bearer(b).get('/admin/knowledge-graph/proposals?kind=node&limit=50').expect(200)).body.items as { id: string; name: string }[];
      names = items.map((p) => p.name);
      return items.find((p) => p.name === 'Grace Darling');
    }, 40_000).catch(async (error: Error) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const jobs = (await client.query(`SELECT state, output FROM pgboss.job WHERE name = 'kg-extract-page'`)).rows;
      const excluded = (await client.query(`SELECT p.slug, x.reason FROM pages p LEFT JOIN kg_excluded_pages x ON x.page_id = p.id`)).rows;
      await client.end();
      throw new Error(`${error.message}; proposals: ${names.join(', ')}; jobs: ${JSON.stringify(jobs)}; pages: ${JSON.stringify(excluded)}; worker: ${servers[2].output()}`);
    });
    expect(extractQueue((await bearer(b).get('/api/admin/kg/status').expect(200)).body)?.completed).toBeGreaterThanOrEqual(1);
    // B learns the name of the entity approved on A on its very next search (its dictionary hears NOTIFY).
    expect((await b.get('/api/search?q=grace%20darling').expect(200)).body.entity).toBeNull();
    await bearer(a).post(`/admin/knowledge-graph/proposals/${proposal.id}/approve`).send({}).expect(200);
    const card = (await b.get('/api/search?q=grace%20darling').expect(200)).body.entity;
    expect(card).toMatchObject({ name: 'Grace Darling' });
  });

  it('loses nothing when web A is killed with kill -9 right after a save: B has it, and the worker extracts it', async () => {
    await bearer(a).post('/api/pages').send({ title: 'Storm Night', body: '---\ncluster: coast\n---\nDuring the storm night [[Grace Darling]] rowed to the Forfarshire wreck.\n' }).expect(201);
    await killHard(webA);
    const page = (await bearer(b).get('/api/pages/storm-night').expect(200)).body;
    expect(page.body).toContain('Forfarshire');
    await waitFor('the worker to extract the page saved on A', async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = (await client.query(`SELECT 1 FROM kg_page_extractions e JOIN pages p ON p.id = e.page_id WHERE p.slug = 'storm-night'`)).rows;
        return rows.length === 1;
      } finally {
        await client.end();
      }
    });
    expect((await b.get('/page/storm-night').expect(200)).text).toContain('Forfarshire');
    await b.get('/health').expect(200);
  });
});
