import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/** /api/admin/kg/*: admins only, clear 4xx for every mistake, and the numbers `kurate kg` prints. */
describe('/api/admin/kg REST API', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    for (const [title, cluster] of [['Install', 'docs'], ['Configure', 'docs/advanced'], ['Diary', 'personal']]) {
      await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\n# ${title}\n\n${title} the [[Kurate Server]] on a [[Debian]] machine, step by step.\n` }).expect(201);
    }
    await setPolicy(admin, 'docs', 'include');
  });
  afterAll(() => t?.close());

  it('refuses readers and authors (403) and anonymous requests (401) on every route', async () => {
    const reader = await t.as('reader');
    const author = await t.as('author');
    const routes: [('get' | 'post'), string][] = [
      ['get', '/api/admin/kg/status'], ['post', '/api/admin/kg/extract'], ['get', '/api/admin/kg/extract/00000000-0000-4000-8000-000000000000'],
      ['get', '/api/admin/kg/failures'], ['post', '/api/admin/kg/failures/retry'],
    ];
    for (const [method, path] of routes) {
      await reader[method](path).send({}).expect(403);
      await author[method](path).send({}).expect(403);
      if (method === 'get') await t.http.get(path).expect(401);
    }
  });

  it('estimates before enqueuing: pages of the scope, excluded ones, and one call per new chunk', async () => {
    const all = await admin.post('/api/admin/kg/extract').send({ all: true, dryRun: true }).expect(200);
    expect(all.body).toMatchObject({
      scope: 'all', target: null, dryRun: true, backend: 'builtin', pages: 3, includedPages: 2, excludedPages: 1, pagesToExtract: 2,
      chunks: 2, estimatedCalls: 2, requestId: null, enqueued: 0,
    });
    expect(all.body.summary).toBe('About 2 extraction calls (builtin, kurate-builtin-v9) for 2 of 2 included pages; 0 unchanged chunks cost nothing.');
    const cluster = await admin.post('/api/admin/kg/extract').send({ cluster: 'docs/advanced', dryRun: true }).expect(200);
    expect(cluster.body).toMatchObject({ scope: 'cluster', target: 'docs/advanced', pages: 1, pagesToExtract: 1, estimatedCalls: 1 });
    const page = await admin.post('/api/admin/kg/extract').send({ page: 'install', dryRun: 'true' }).expect(200);
    expect(page.body).toMatchObject({ scope: 'page', target: 'install', pages: 1, estimatedCalls: 1 });
  });

  it('answers mistakes with a clear 4xx', async () => {
    const none = await admin.post('/api/admin/kg/extract').send({}).expect(400);
    expect(none.body.message).toBe('Say what to extract with exactly one of: all: true, cluster: "<cluster>", page: "<slug>".');
    await admin.post('/api/admin/kg/extract').send({ all: true, cluster: 'docs' }).expect(400);
    expect((await admin.post('/api/admin/kg/extract').send({ cluster: 'Not A Cluster' }).expect(400)).body.message).toMatch(/is not a cluster name/);
    expect((await admin.post('/api/admin/kg/extract').send({ page: 'a/b' }).expect(400)).body.message).toBe('page must be a page slug, e.g. getting-started');
    expect((await admin.post('/api/admin/kg/extract').send({ all: 'yes' }).expect(400)).body.message).toBe('all must be true or false');
    expect((await admin.post('/api/admin/kg/extract').send({ all: true, force: true }).expect(400)).body.message).toMatch(/property force should not exist/);
    expect((await admin.post('/api/admin/kg/extract').send({ cluster: 'nowhere' }).expect(404)).body.message).toBe('No page has the cluster "nowhere" (or a sub-cluster of it).');
    expect((await admin.post('/api/admin/kg/extract').send({ page: 'nothing-here' }).expect(404)).body.message).toBe('There is no page "nothing-here".');
    const excluded = await admin.post('/api/admin/kg/extract').send({ page: 'diary' }).expect(409);
    expect(excluded.body.message).toMatch(/"Diary" is excluded from the knowledge graph by the inclusion policy.*explain\/diary/);
    await admin.get('/api/admin/kg/extract/not-a-uuid').expect(400);
    expect((await admin.get('/api/admin/kg/failures?limit=0').expect(400)).body.message).toMatch(/limit must not be less than 1/);
  });

  it('enqueues, follows the request to its end, and reports the status per queue and per backend', async () => {
    // The listener already enqueued both pages when docs was included; the request names them as already queued.
    const started = await admin.post('/api/admin/kg/extract').send({ all: true }).expect(200);
    expect(started.body).toMatchObject({ dryRun: false, pagesToExtract: 2, alreadyQueued: 2, enqueued: 0 });
    expect(started.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await startWorker(t);
    await waitForJobs(t);
    const progress = await admin.get(`/api/admin/kg/extract/${started.body.requestId}`).expect(200);
    expect(progress.body).toEqual({ requestId: started.body.requestId, total: 0, queued: 0, retrying: 0, running: 0, completed: 0, failed: 0, cancelled: 0, done: true });

    // Changed pages asked for by a request are followed by its id.
    await t.dataSource.query(`UPDATE kg_page_extractions SET source_hash = 'outdated'`);
    const request = await admin.post('/api/admin/kg/extract').send({ cluster: 'docs' }).expect(200);
    expect(request.body).toMatchObject({ pagesToExtract: 2, estimatedCalls: 0, enqueued: 2, alreadyQueued: 0 });
    await waitForJobs(t);
    const done = await admin.get(`/api/admin/kg/extract/${request.body.requestId}`).expect(200);
    expect(done.body).toMatchObject({ total: 2, completed: 2, done: true });

    const status = (await admin.get('/api/admin/kg/status').expect(200)).body;
    expect(status.backend).toMatchObject({ extractor: 'builtin', model: 'kurate-builtin-v9', embedder: 'builtin', concurrency: 4, ratePerMinute: 0, confidenceThreshold: 0.6 });
    expect(status.role).toBe('all');
    expect(status.queues.map((q: { queue: string }) => q.queue)).toEqual(['kg-extract-page', 'kg-embed-nodes', 'kg-reembed']);
    expect(status.queues[0]).toMatchObject({ queued: 0, running: 0, failed: 0, completed: 4 });
    expect(status.backends).toEqual([{ backend: 'builtin', queued: 0, retrying: 0, running: 0, completed: 4, failed: 0, cancelled: 0, pagesExtracted: 2, calls: 2 }]);
    expect(status.pages).toEqual({ included: 2, extracted: 2, changedSinceExtraction: 0, neverExtracted: 0 });
    expect(status.openFailures).toBe(0);
    expect((await admin.get('/api/admin/kg/failures').expect(200)).body).toEqual({ items: [] });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json').expect(200)).body;
    for (const path of ['/api/admin/kg/status', '/api/admin/kg/extract', '/api/admin/kg/extract/{requestId}', '/api/admin/kg/failures', '/api/admin/kg/failures/retry']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });
});
