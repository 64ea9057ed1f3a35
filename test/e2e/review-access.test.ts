import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenIn, startTestApp, type TestApp } from '../support/test-app.js';

/** Every route under /admin/knowledge-graph, as Express registered them. */
function reviewRoutes(t: TestApp): { method: string; path: string }[] {
  const router = (t.app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router;
  return router.stack
    .filter((layer) => layer.route && /^\/admin\/knowledge-graph(\/|$)/.test(layer.route.path))
    .flatMap((layer) => Object.keys(layer.route!.methods).filter((m) => m !== '_all').map((m) => ({ method: m.toUpperCase(), path: layer.route!.path })));
}

const EXPECTED = [
  'GET /admin/knowledge-graph/proposals', 'GET /admin/knowledge-graph/proposals/:id', 'POST /admin/knowledge-graph/proposals/:id/approve',
  'POST /admin/knowledge-graph/proposals/:id/edit-approve', 'POST /admin/knowledge-graph/proposals/:id/reject',
  'POST /admin/knowledge-graph/proposals/:id/reopen', 'POST /admin/knowledge-graph/proposals/bulk',
  'GET /admin/knowledge-graph/rejections', 'POST /admin/knowledge-graph/rejections/forget',
  'GET /admin/knowledge-graph/entities', 'POST /admin/knowledge-graph/entities', 'GET /admin/knowledge-graph/entities/:id',
  'GET /admin/knowledge-graph/entities/:id/graph', 'PATCH /admin/knowledge-graph/entities/:id', 'DELETE /admin/knowledge-graph/entities/:id',
  'POST /admin/knowledge-graph/entities/:id/merge', 'POST /admin/knowledge-graph/edges', 'GET /admin/knowledge-graph/edges/:id',
  'PATCH /admin/knowledge-graph/edges/:id', 'DELETE /admin/knowledge-graph/edges/:id', 'POST /admin/knowledge-graph/edges/:id/delete-and-reject',
  'GET /admin/knowledge-graph/schema', 'GET /admin/knowledge-graph/audit', 'GET /admin/knowledge-graph/audit/:id', 'POST /admin/knowledge-graph/audit/:id/undo',
  'GET /admin/knowledge-graph/jobs', 'POST /admin/knowledge-graph/jobs/retry-failed', 'GET /admin/knowledge-graph/export', 'POST /admin/knowledge-graph/import',
  'GET /admin/knowledge-graph/gaps',
  'POST /admin/knowledge-graph/entities/:id/synonyms', 'DELETE /admin/knowledge-graph/entities/:id/synonyms/:name',
  'POST /admin/knowledge-graph/ui/entities/:id/synonyms', 'POST /admin/knowledge-graph/ui/entities/:id/synonyms/remove',
  'GET /admin/knowledge-graph/triage', 'GET /admin/knowledge-graph/triage/:group', 'POST /admin/knowledge-graph/triage/:group',
  'GET /admin/knowledge-graph/calibration', 'POST /admin/knowledge-graph/calibration/refit',
  'GET /admin/knowledge-graph/ui/triage/:group', 'POST /admin/knowledge-graph/ui/triage/:group', 'GET /admin/knowledge-graph/ui/calibration',
  'POST /admin/knowledge-graph/ui/calibration/refit',
  'GET /admin/knowledge-graph', 'GET /admin/knowledge-graph/ui/proposals/:id', 'POST /admin/knowledge-graph/ui/proposals/:id/approve',
  'POST /admin/knowledge-graph/ui/proposals/:id/reject', 'POST /admin/knowledge-graph/ui/proposals/:id/reopen', 'POST /admin/knowledge-graph/ui/bulk', 'GET /admin/knowledge-graph/ui/audit',
  'POST /admin/knowledge-graph/ui/audit/:id/undo', 'GET /admin/knowledge-graph/ui/gaps', 'GET /admin/knowledge-graph/ui/transfer',
  'POST /admin/knowledge-graph/ui/import', 'GET /admin/knowledge-graph/ui/entities', 'POST /admin/knowledge-graph/ui/entities',
  'GET /admin/knowledge-graph/ui/entities/:id', 'GET /admin/knowledge-graph/ui/entities/:id/edit', 'POST /admin/knowledge-graph/ui/entities/:id/edit',
  'GET /admin/knowledge-graph/ui/entities/:id/delete', 'POST /admin/knowledge-graph/ui/entities/:id/delete', 'GET /admin/knowledge-graph/ui/entities/:id/merge',
  'POST /admin/knowledge-graph/ui/entities/:id/merge', 'POST /admin/knowledge-graph/ui/edges', 'GET /admin/knowledge-graph/ui/edges/:id',
  'POST /admin/knowledge-graph/ui/edges/:id', 'POST /admin/knowledge-graph/ui/edges/:id/delete',
];

describe('who may use /admin/knowledge-graph', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('registers every review route', () => {
    expect(reviewRoutes(t).map((r) => `${r.method} ${r.path}`).sort()).toEqual([...EXPECTED].sort());
  });

  it('answers 401 to anonymous visitors and 403 to readers and authors on every route, JSON and HTML', async () => {
    const server = t.app.getHttpServer();
    const reader = (await t.user('reader')).token;
    const author = (await t.user('author')).token;
    const anonymous = supertest.agent(server);
    const csrf = csrfTokenIn((await anonymous.get('/login').expect(200)).text);
    const problems: string[] = [];
    for (const { method, path } of reviewRoutes(t)) {
      const concrete = path.replace(/:id/g, '1');
      const call = (agent: supertest.SuperTest<supertest.Test> | supertest.Agent) => (agent as unknown as Record<string, (p: string) => supertest.Test>)[method.toLowerCase()](concrete).set('Accept', 'application/json');
      const anon = await call(anonymous).set('x-csrf-token', csrf).send(method === 'GET' ? undefined : {});
      if (anon.status !== 401 || anon.body.code !== 'unauthenticated') problems.push(`${method} ${path}: anonymous got ${anon.status}`);
      for (const [who, token] of [['reader', reader], ['author', author]] as const) {
        const res = await call(supertest(server)).set('Authorization', `Bearer ${token}`).send(method === 'GET' ? undefined : {});
        if (res.status !== 403 || res.body.code !== 'forbidden') problems.push(`${method} ${path}: ${who} got ${res.status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents the JSON routes in the OpenAPI description, and not the HTML ones', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json').expect(200)).body as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const documented = Object.entries(doc.paths).filter(([p]) => p.startsWith('/admin/knowledge-graph')).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`));
    const json = EXPECTED.filter((r) => !/ \/admin\/knowledge-graph(\/ui\/|$)/.test(r));
    expect(documented.sort()).toEqual(json.sort());
    expect(doc.paths['/admin/knowledge-graph/proposals/bulk'].post.tags).toEqual(['knowledge-graph review']);
    const schemas = (await t.http.get('/api/docs/openapi.json')).body.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    expect(Object.keys(schemas.ImportDto.properties ?? {})).toEqual(expect.arrayContaining(['graph', 'mode', 'reason', 'typeMap', 'predicateMap', 'dryRun']));
  });

  it('answers an id that is not a number with 400 on every route that takes one, for an admin', async () => {
    const admin = await t.as('admin');
    const problems: string[] = [];
    for (const { method, path } of reviewRoutes(t).filter((r) => r.path.includes(':id') && !r.path.includes('/ui/'))) {
      const res = await (admin as unknown as Record<string, (p: string) => supertest.Test>)[method.toLowerCase()](path.replace(':id', 'not-an-id')).send(method === 'GET' ? undefined : {});
      if (res.status !== 400 || !/is not an id/.test(res.body.message)) problems.push(`${method} ${path}: ${res.status} ${res.body.message}`);
    }
    expect(problems).toEqual([]);
  });
});
