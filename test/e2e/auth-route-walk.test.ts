import { randomUUID } from 'node:crypto';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LEVELS, type AccessLevel } from '../../src/auth/access.decorator.js';
import { appRoutes } from '../support/routes.js';
import { csrfTokenIn, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * THE ROUTE WALK. Every route the application registers (read from Express's router, not from a list kept by
 * hand) is tried as an anonymous visitor, a reader and an author; wherever the route needs more than they have,
 * the answer must be the guard's 401/403. Every Nest route must declare @Access, and everything under /admin or
 * /api/admin must declare `admin`. A route added later without a declaration fails here (and is closed meanwhile).
 */

interface Route {
  method: string;
  path: string;
  /** null: not a Nest route (swagger-ui's pages), public by construction. */
  access: AccessLevel | null;
  handler: string;
}

// Routes Express serves that are not Nest controllers: swagger-ui's pages and the OpenAPI document.
const NON_NEST_ROUTES = /^\/api\/docs(\/|-yaml$|$)/;
const ADMIN_PATH = /^\/(api\/)?admin(\/|$)/;
// `metrics` is the admins' (and metrics tokens', which this walk does not use).
const RANK: Record<AccessLevel, number> = { public: 0, read: 1, user: 2, author: 3, admin: 4, metrics: 4 };
/** What each identity has, in the same scale (with KURATE_PUBLIC_READ on, `read` is open to everyone). */
type Identity = 'anonymous' | 'reader' | 'author' | 'admin';

function allRoutes(t: TestApp): Route[] {
  return appRoutes(t.app).map(({ method, path, access, handler }) => ({ method, path, access: access as AccessLevel | null, handler }));
}

function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name === 'id' ? randomUUID() : name === 'version' ? '1' : 'walk-page'));
}

/** The guard's own refusals (not a CSRF 403, not a controller's 403 about something else). */
function guardDenied(res: supertest.Response): boolean {
  const body = res.body as { code?: string; message?: string };
  return (res.status === 401 && body.code === 'unauthenticated') || (res.status === 403 && body.code === 'forbidden' && /^This (needs the|route is closed)/.test(body.message ?? ''));
}

function needs(access: AccessLevel, who: Identity, publicRead: boolean): 401 | 403 | null {
  if (access === 'public' || (access === 'read' && publicRead)) return null;
  if (who === 'anonymous') return 401;
  const has = { reader: RANK.user, author: RANK.author, admin: RANK.admin }[who];
  return RANK[access] > has ? 403 : null;
}

async function walk(t: TestApp, identities: Identity[], publicRead: boolean): Promise<string[]> {
  const problems: string[] = [];
  const tokens: Partial<Record<Identity, string>> = {};
  for (const who of identities) if (who !== 'anonymous') tokens[who] = (await t.user(who, { name: `walker ${who}` })).token;
  for (const route of allRoutes(t)) {
    if (route.access === null) continue;
    for (const who of identities) {
      if (who === 'admin' && route.method !== 'GET') continue;
      const path = concrete(route.path);
      let request: supertest.Test;
      if (who === 'anonymous') {
        // An anonymous browser with a session and its CSRF token, so that the guard (not the CSRF check) answers.
        const agent = supertest.agent(t.app.getHttpServer());
        const csrf = csrfTokenIn((await agent.get('/login').expect(200)).text);
        request = agent[route.method.toLowerCase() as 'get'](path).set('x-csrf-token', csrf);
      } else {
        request = supertest(t.app.getHttpServer())[route.method.toLowerCase() as 'get'](path).set('Authorization', `Bearer ${tokens[who]}`);
      }
      const res = await request.set('Accept', 'application/json').send(route.method === 'GET' ? undefined : {});
      const expected = needs(route.access === ('undeclared' as AccessLevel) ? 'admin' : route.access, who, publicRead);
      if (route.access === ('undeclared' as AccessLevel)) {
        if (!guardDenied(res) || res.status !== 403) problems.push(`${route.method} ${route.path} (${route.handler}) is undeclared but answered ${res.status} to ${who}`);
      } else if (expected !== null && !(res.status === expected && guardDenied(res))) {
        problems.push(`${route.method} ${route.path} (${route.handler}, ${route.access}) answered ${res.status} ${res.body?.code ?? ''} to ${who}; expected the guard's ${expected}`);
      } else if (expected === null && guardDenied(res)) {
        problems.push(`${route.method} ${route.path} (${route.handler}, ${route.access}) refused ${who} (${res.status}: ${res.body?.message})`);
      } else if (res.status >= 500) {
        problems.push(`${route.method} ${route.path} (${route.handler}) failed with ${res.status} for ${who}`);
      }
    }
  }
  return problems;
}

describe('the route walk (KURATE_PUBLIC_READ on)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Walk Page', body: 'A page for the walk.' }).expect(201);
  });
  afterAll(() => t.close());

  it('finds the routes Express registers, and each is a Nest route or one of swagger-ui’s', () => {
    const routes = allRoutes(t);
    expect(routes.length).toBeGreaterThan(40);
    const strangers = routes.filter((r) => r.access === null && !NON_NEST_ROUTES.test(r.path));
    expect(strangers).toEqual([]);
    // The walk covers the routes of this issue as well as the others.
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    for (const key of ['GET /api/pages', 'POST /api/pages', 'POST /login', 'GET /api/admin/users', 'DELETE /api/tokens/:id', 'GET /admin/audit', 'GET /health']) {
      expect(keys).toContain(key);
    }
  });

  it('has an @Access declaration on every Nest route, and `admin` on everything under /admin and /api/admin', () => {
    const routes = allRoutes(t).filter((r) => r.access !== null);
    const undeclared = routes.filter((r) => !ACCESS_LEVELS.includes(r.access!)).map((r) => `${r.method} ${r.path} (${r.handler})`);
    expect(undeclared).toEqual([]);
    const weakAdmin = routes.filter((r) => ADMIN_PATH.test(r.path) && r.access !== 'admin').map((r) => `${r.method} ${r.path} (${r.access})`);
    expect(weakAdmin).toEqual([]);
  });

  it('refuses anonymous visitors, readers and authors (401/403 from the guard) wherever a route needs more, and lets them through elsewhere', async () => {
    const problems = await walk(t, ['anonymous', 'reader', 'author', 'admin'], true);
    expect(problems).toEqual([]);
  }, 120_000);
});

describe('the route walk (KURATE_PUBLIC_READ=false)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_PUBLIC_READ: 'false' } });
  });
  afterAll(() => t.close());

  it('refuses anonymous visitors on every route that is not public, and lets readers read', async () => {
    const problems = await walk(t, ['anonymous', 'reader'], false);
    expect(problems).toEqual([]);
  }, 120_000);
});
