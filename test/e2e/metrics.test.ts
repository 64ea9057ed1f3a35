import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/job-queue.service.js';
import { MetricsPort } from '../../src/metrics/metrics-port.js';
import { REPO_ROOT } from '../support/database.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { count, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/** One sample of a scrape: the value of the series with exactly these labels (in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

/** Every label set a metric has in a scrape. */
function labelSets(text: string, name: string): Record<string, string>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => Object.fromEntries([...line.slice(name.length).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]])));
}

describe('/metrics', () => {
  let t: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  const scrape = async () => (await t.http.get('/metrics').set('Authorization', `Bearer ${admin.token}`).expect(200)).text;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_METRICS_PORT: '0' } });
    [admin, reader] = await Promise.all([t.user('admin'), t.user('reader')]);
    // Some traffic: pages read by pattern, a 404, a search that matches words and one that only vectors answer, an extraction.
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Lighthouse Keeping', body: '---\ncluster: ops\n---\nThe Lighthouse Keepers Guild of Brittany maintains brass lanterns on the Atlantic coast. See [[Fog Signals]].' }).expect(201);
    await author.post('/api/pages').send({ title: 'Fog Signals', body: 'Fog horns warn ships near the coast.' }).expect(201);
    await setPolicy(await t.as('admin'), 'ops', 'include');
    await t.http.get('/api/pages/lighthouse-keeping').expect(200);
    await t.http.get('/api/pages/fog-signals').expect(200);
    await t.http.get('/api/pages/no-such-page').expect(404);
    await t.http.get('/no/such/route/at/all').set('Accept', 'application/json').expect(404);
    await t.http.get('/api/search?q=lighthouse').expect(200);
    await t.http.get('/api/search?q=zzqxw').expect(200);
    await startWorker(t);
    await waitForJobs(t);
  }, 120_000);
  afterAll(() => t?.close());

  it('is refused to anonymous callers (401), readers and authors (403), and served to admins and metrics tokens', async () => {
    const anonymous = await t.http.get('/metrics').set('Accept', 'application/json').expect(401);
    expect(anonymous.body.code).toBe('unauthenticated');
    const refused = await t.http.get('/metrics').set('Authorization', `Bearer ${reader.token}`).expect(403);
    expect(refused.body.message).toBe('This needs the admin role, or a token with the metrics scope.');
    await t.http.get('/metrics').set('Authorization', `Bearer ${(await t.user('author')).token}`).expect(403);

    await t.http.post('/api/admin/service-accounts').set('Authorization', `Bearer ${admin.token}`).send({ name: 'prometheus', role: 'reader' }).expect(201);
    const { body } = await t.http.post('/api/admin/service-accounts/prometheus/tokens').set('Authorization', `Bearer ${admin.token}`).send({ name: 'scraper', scopes: ['metrics'] }).expect(201);
    const scraped = await t.http.get('/metrics').set('Authorization', `Bearer ${body.token}`).expect(200);
    expect(scraped.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.headers['cache-control']).toBe('no-store');
    // The metrics token reads nothing an admin may.
    await t.http.get('/api/admin/users').set('Authorization', `Bearer ${body.token}`).expect(403);
  });

  it('counts HTTP requests by route pattern (never the raw URL) and status, with latency histograms', async () => {
    const text = await scrape();
    expect(sample(text, 'kurate_http_requests_total', { method: 'GET', route: '/api/pages/:slug', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'kurate_http_requests_total', { method: 'GET', route: '/api/pages/:slug', status: '404' })).toBe(1);
    expect(sample(text, 'kurate_http_requests_total', { method: 'POST', route: '/api/pages', status: '201' })).toBe(2);
    expect(sample(text, 'kurate_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kurate_http_request_duration_seconds_count', { method: 'GET', route: '/api/search', status: '200' })).toBe(2);
    expect(sample(text, 'kurate_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/search', status: '200', le: '+Inf' })).toBe(2);
    const routes = labelSets(text, 'kurate_http_requests_total').map((l) => l.route);
    expect(routes.some((r) => /lighthouse|fog|no-such|zzqxw/.test(r))).toBe(false);
  });

  it('times search by list: lexical, vector (when no word matched) and the whole search', async () => {
    const text = await scrape();
    expect(sample(text, 'kurate_search_duration_seconds_count', { list: 'total' })).toBe(2);
    expect(sample(text, 'kurate_search_duration_seconds_count', { list: 'lexical' })).toBe(2);
    expect(sample(text, 'kurate_search_duration_seconds_count', { list: 'vector' })).toBe(1);
    expect(sample(text, 'kurate_search_duration_seconds_bucket', { list: 'lexical', le: '+Inf' })).toBe(2);
  });

  it('counts LLM calls by backend and operation, extracted pages, and shows the review queue, the job queues and the pool', async () => {
    const text = await scrape();
    expect(sample(text, 'kurate_llm_calls_total', { backend: 'builtin', operation: 'extract', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kurate_llm_calls_total', { backend: 'builtin', operation: 'embed', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'kurate_llm_call_duration_seconds_count', { backend: 'builtin', operation: 'extract' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kurate_extraction_pages_total', { outcome: 'extracted' })).toBe(1);
    const pendingNodes = await count(t, `SELECT count(*) FROM kg_visible_proposals WHERE status = 'pending' AND kind = 'node'`);
    expect(pendingNodes).toBeGreaterThan(0);
    expect(sample(text, 'kurate_review_pending_proposals', { kind: 'node' })).toBe(pendingNodes);
    expect(sample(text, 'kurate_review_pending_proposals', { kind: 'edge' })).toBeDefined();
    expect(sample(text, 'kurate_job_queue_depth', { queue: 'kg-extract-page', state: 'waiting' })).toBe(0);
    expect(sample(text, 'kurate_job_queue_depth', { queue: 'kg-extract-page', state: 'active' })).toBe(0);
    expect(sample(text, 'kurate_job_queue_oldest_waiting_seconds', { queue: 'kg-extract-page' })).toBe(0);
    expect(sample(text, 'kurate_db_pool_connections', { state: 'max' })).toBe(t.config.database.kind === 'postgres' ? 4 : 1);
    expect(sample(text, 'kurate_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('shows a waiting job and its age, per queue', async () => {
    // A queue no worker works: its job waits.
    const queue = t.app.get(JobQueue);
    await queue.defineQueue({ name: 'metrics-test', retryLimit: 0, retryDelaySeconds: 1, expireInSeconds: 60 });
    const id = await queue.send('metrics-test', { what: 'waits' });
    await t.dataSource.query(`UPDATE pgboss.job SET created_on = now() - interval '90 seconds' WHERE id = $1`, [id]);
    const text = await scrape();
    expect(sample(text, 'kurate_job_queue_depth', { queue: 'metrics-test', state: 'waiting' })).toBe(1);
    expect(sample(text, 'kurate_job_queue_oldest_waiting_seconds', { queue: 'metrics-test' })).toBeGreaterThanOrEqual(90);
    // Every queue is listed, an empty one at 0.
    expect(sample(text, 'kurate_job_queue_depth', { queue: 'kg-embed-nodes', state: 'waiting' })).toBe(0);
  });

  it('has every series the example Grafana dashboard (docs/grafana/kurate.json) queries', async () => {
    const dashboard = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/grafana/kurate.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const queried = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(kurate|process)_\w+/g) ?? [])));
    expect(queried.size).toBeGreaterThan(10);
    const text = await scrape();
    // Declared in the scrape (a counter of errors has no sample until the first error): its # TYPE line.
    const missing = [...queried].filter((name) => !text.includes(`# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `));
    expect(missing).toEqual([]);
  });

  it('serves /metrics without a token on KURATE_METRICS_PORT, and nothing else there', async () => {
    const port = t.app.get(MetricsPort).port;
    expect(port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE kurate_http_requests_total counter');
    expect((await fetch(`http://127.0.0.1:${port}/api/pages`)).status).toBe(404);
  });
});
