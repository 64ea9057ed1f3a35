import type supertest from 'supertest';
import type { EntityManager } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXTRACTION_JOBS_HOOK, NODE_EMBEDDING_HOOK, type ExtractionJobsHook, type NodeEmbeddingHook } from '../../src/kg/review-hooks.js';
import { JobQueue } from '../../src/jobs/job-queue.service.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { KgEmbeddingService } from '../../src/kg/kg-embedding.service.js';
import { EXTRACT_PAGE_QUEUE, KgExtractionQueue, REEMBED_QUEUE } from '../../src/kg/kg-extraction-queue.service.js';
import { EXTRACTOR, type ExtractionRequest, type Extractor } from '../../src/extractors/extraction.types.js';
import { EMBEDDER, type Embedder } from '../../src/embedders/embedder.js';
import { PageSaveHooks } from '../../src/pages/page-save-hooks.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, jobStates, openJobs, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/** The jobs around extraction: where they are enqueued, when not, de-duplication, aborts, re-embedding, the review hooks. */
describe('extraction jobs (pg-boss in the same database)', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let worker: JobWorker;
  let extractor: Extractor;

  const jobsFor = (slug: string) =>
    count(t, `SELECT count(*) FROM pgboss.job j JOIN pages p ON p.id::text = j.data ->> 'pageId' WHERE j.name = $1 AND p.slug = $2`, [EXTRACT_PAGE_QUEUE, slug]);
  const create = (title: string, cluster: string, text = `About ${title}: it links to [[${title} Guide]] and explains the details.`) =>
    admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\n${text}\n` }).expect(201);
  const edit = async (slug: string, text: string) => {
    const current = (await admin.get(`/api/pages/${slug}`).expect(200)).body;
    return admin.put(`/api/pages/${slug}`).send({ body: current.body.replace(/\n[^\n]*\n$/, `\n${text}\n`), baseVersion: current.version });
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_JOB_POLL_SECONDS: '0.5', KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1' } });
    admin = await t.as('admin');
    worker = t.app.get(JobWorker);
    extractor = t.app.get<Extractor>(EXTRACTOR);
    await create('Alpha', 'lab');
    await create('Beta', 'lab');
  });
  afterAll(() => t?.close());

  it('enqueues a page’s job inside its save’s transaction: a save that fails later leaves no job', async () => {
    await setPolicy(admin, 'lab', 'include');
    expect(await jobsFor('alpha')).toBe(1);
    t.app.get(PageSaveHooks).register({
      onPageSaved: async (event) => {
        if (event.page.title === 'Doomed') throw new Error('a later listener failed');
      },
    });
    await admin.post('/api/pages').send({ title: 'Doomed', body: '---\ncluster: lab\n---\nThis save is rolled back.\n' }).expect(500);
    expect(await count(t, `SELECT count(*) FROM pages WHERE slug = 'doomed'`)).toBe(0);
    expect(await count(t, `SELECT count(*) FROM pgboss.job WHERE data ->> 'pageId' NOT IN (SELECT id::text FROM pages)`)).toBe(0);
    expect(await openJobs(t)).toBe(2);
  });

  it('de-duplicates jobs per page and source: asking again while one waits enqueues nothing', async () => {
    const again = await admin.post('/api/admin/kg/extract').send({ cluster: 'lab' }).expect(200);
    expect(again.body).toMatchObject({ pagesToExtract: 2, enqueued: 0, alreadyQueued: 2 });
    expect(await openJobs(t)).toBe(2);
    // A second save of the same text is no save at all (no revision, no job).
    const current = (await admin.get('/api/pages/alpha').expect(200)).body;
    await admin.put('/api/pages/alpha').send({ body: current.body, baseVersion: current.version }).expect(200);
    expect(await jobsFor('alpha')).toBe(1);
  });

  it('works the jobs once a worker runs, then has nothing left to do', async () => {
    await startWorker(t);
    await waitForJobs(t);
    expect(await jobStates(t)).toEqual({ completed: 2 });
    expect(await count(t, 'SELECT count(*) FROM kg_page_extractions')).toBe(2);
    const estimate = await admin.post('/api/admin/kg/extract').send({ all: true, dryRun: true }).expect(200);
    expect(estimate.body).toMatchObject({ includedPages: 2, pagesToExtract: 0, estimatedCalls: 0 });
  });

  it('reads again a page saved while excluded, and a purged page, when its cluster is included again', async () => {
    await setPolicy(admin, 'lab', 'exclude');
    await edit('alpha', 'Alpha changed while the lab was excluded.').then((r) => expect(r.status).toBe(200));
    expect(await openJobs(t)).toBe(0);
    // Beta is purged (hard exclude): its rows go, so it must be read again.
    await admin.post('/admin/kg-policy/clusters/lab/purge').send({ dryRun: false, confirm: 'lab' }).expect(200);
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks`)).toBe(0);
    const before = await count(t, 'SELECT count(*) FROM pgboss.job');
    await setPolicy(admin, 'lab', 'include');
    expect(await count(t, 'SELECT count(*) FROM pgboss.job') - before).toBe(2);
    await waitForJobs(t);
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug IN ('alpha', 'beta')`)).toBe(2);
  });

  it('aborts a running job whose page gets excluded, before any further call, and writes nothing', async () => {
    let release: () => void = () => {};
    const calls: ExtractionRequest[] = [];
    const original = extractor.extract.bind(extractor);
    const spy = vi.spyOn(extractor, 'extract').mockImplementation(async (request, signal) => {
      calls.push(request);
      // Hangs like a slow model until the job is aborted.
      await new Promise<void>((resolve, reject) => {
        release = resolve;
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      return original(request, signal);
    });
    try {
      await edit('beta', 'Beta, first paragraph.\n\n## Second\n\nA second section, long enough to be a chunk of its own for sure, about Gamma and Delta.');
      await vi.waitFor(() => expect(calls.length).toBeGreaterThan(0), { timeout: 10_000 });
      const chunksBefore = await count(t, 'SELECT count(*) FROM kg_content_chunks');
      await setPolicy(admin, 'lab', 'exclude');
      await waitForJobs(t);
      const [last] = await t.dataSource.query(`SELECT state::text AS state, output FROM pgboss.job WHERE name = $1 ORDER BY started_on DESC NULLS LAST LIMIT 1`, [EXTRACT_PAGE_QUEUE]);
      expect(last).toMatchObject({ state: 'completed', output: { status: 'skipped', reason: 'the inclusion policy now excludes the page' } });
      expect(await count(t, 'SELECT count(*) FROM kg_content_chunks')).toBe(chunksBefore);
    } finally {
      release();
      spy.mockRestore();
    }
    await setPolicy(admin, 'lab', 'include');
    await waitForJobs(t);
  });

  it('hands a job interrupted by shutdown back for a retry', async () => {
    const spy = vi.spyOn(extractor, 'extract').mockImplementation(
      (_request, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true })),
    );
    try {
      await edit('alpha', 'Alpha, edited once more while a worker runs.').then((r) => expect(r.status).toBe(200));
      await vi.waitFor(() => expect(spy).toHaveBeenCalled(), { timeout: 10_000 });
      await worker.stop();
      const [job] = await t.dataSource.query(`SELECT state::text AS state, output FROM pgboss.job WHERE name = $1 ORDER BY created_on DESC LIMIT 1`, [EXTRACT_PAGE_QUEUE]);
      expect(job).toMatchObject({ state: 'retry', output: { message: 'the worker shut down mid-job', retryable: true } });
    } finally {
      spy.mockRestore();
    }
    await worker.start();
    await waitForJobs(t);
    expect(await jobStates(t)).not.toHaveProperty('retry');
  });

  it('re-embeds in the background when the embedding model changes (chunks and entities; old entity vectors go)', async () => {
    const model = t.app.get<Embedder>(EMBEDDER).model;
    const [node] = await t.dataSource.query(`INSERT INTO kg_nodes (signature, name, node_type, created_by) VALUES ('gamma|concept', 'Gamma', 'concept', 'test') RETURNING id`);
    await t.dataSource.query(`INSERT INTO kg_node_embeddings (node_id, model, dims, embedding) VALUES ($1, 'old-model', 3, '[1,2,3]')`, [node.id]);
    await t.dataSource.query(`UPDATE kg_content_chunks SET embedding = '[1,2,3]', embedding_model = 'old-model', embedding_dims = 3`);
    await t.app.get(KgExtractionQueue).reembedIfModelChanged();
    await waitForJobs(t, { queue: REEMBED_QUEUE });
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks WHERE embedding_model IS DISTINCT FROM $1`, [model])).toBe(0);
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks WHERE embedding_dims <> vector_dims(embedding)`)).toBe(0);
    const vectors: { model: string; dims: number }[] = await t.dataSource.query(`SELECT model, dims FROM kg_node_embeddings WHERE node_id = $1`, [node.id]);
    expect(vectors).toEqual([{ model, dims: t.app.get<Embedder>(EMBEDDER).dimensions }]);
    expect(await t.app.get(KgEmbeddingService).needsReembedding()).toBe(false);
  });

  it('embeds approved entities inside the approval’s transaction (NODE_EMBEDDING_HOOK), rolled back with it', async () => {
    const hook = t.app.get<NodeEmbeddingHook>(NODE_EMBEDDING_HOOK);
    const [node] = await t.dataSource.query(`INSERT INTO kg_nodes (signature, name, node_type, description, created_by) VALUES ('delta|concept', 'Delta', 'concept', 'A letter.', 'test') RETURNING id::text AS id`);
    await t.dataSource
      .transaction(async (tx: EntityManager) => {
        await hook.embedNodes([node.id], tx);
        expect(await tx.query('SELECT count(*)::int AS n FROM kg_node_embeddings WHERE node_id = $1', [node.id])).toEqual([{ n: 1 }]);
        throw new Error('the approval fails');
      })
      .catch(() => undefined);
    expect(await count(t, 'SELECT count(*) FROM kg_node_embeddings WHERE node_id = $1', [node.id])).toBe(0);
    await t.dataSource.transaction((tx: EntityManager) => hook.embedNodes([node.id], tx));
    const [row] = await t.dataSource.query('SELECT model, dims, vector_dims(embedding) AS actual FROM kg_node_embeddings WHERE node_id = $1', [node.id]);
    expect(row.dims).toBe(row.actual);
    const named = await hook.embedName!('Delta', 'concept');
    expect(named.model).toBe(row.model);
    expect(named.vector).toHaveLength(row.dims);
  });

  it('tells the review UI about the jobs (EXTRACTION_JOBS_HOOK)', async () => {
    const status = await t.app.get<ExtractionJobsHook>(EXTRACTION_JOBS_HOOK).status();
    const extract = status.queues.find((q) => q.name === EXTRACT_PAGE_QUEUE)!;
    expect(extract.counts.completed).toBeGreaterThan(3);
    expect(status.queues.map((q) => q.name)).toContain(`${EXTRACT_PAGE_QUEUE} (builtin)`);
    expect(status.failures).toEqual([]);
    expect(await t.app.get<ExtractionJobsHook>(EXTRACTION_JOBS_HOOK).retryFailed()).toEqual({ retried: 0 });
  });
});

/**
 * The singleton key `${pageId}:${sourceHash}` under pg-boss's `short` policy: at most one *queued* job per page
 * version, however often that version is saved; a job already running does not hold the key. No worker runs here
 * (as with KURATE_ROLE=web), so every job stays queued unless the test fetches it.
 */
describe('extraction jobs are unique per page and source hash while queued', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  const TEXT_A = 'Gamma is measured with the first method, which the lab trusts.';
  const TEXT_B = 'Gamma is measured with the second method, which the lab prefers.';
  const save = async (text: string) => {
    const current = (await admin.get('/api/pages/gamma').expect(200)).body;
    await admin.put('/api/pages/gamma').send({ body: `---\ncluster: dedup\n---\n${text}\n`, baseVersion: current.version }).expect(200);
  };
  /** The queue's jobs of the page, oldest first: [sourceHash, state]. */
  const jobsOfGamma = async (): Promise<[string, string][]> => {
    const rows: { hash: string; state: string }[] = await t.dataSource.query(
      `SELECT j.data ->> 'sourceHash' AS hash, j.state::text AS state FROM pgboss.job j JOIN pages p ON p.id::text = j.data ->> 'pageId'
       WHERE j.name = $1 AND p.slug = 'gamma' ORDER BY j.created_on, j.id`,
      [EXTRACT_PAGE_QUEUE],
    );
    return rows.map((r) => [r.hash, r.state]);
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
  });
  afterAll(() => t?.close());

  it('saving A, B, then A again while both wait leaves one job for A and one for B; once A runs, A queues again', async () => {
    expect(t.app.get(JobWorker).isRunning).toBe(false);
    await admin.post('/api/pages').send({ title: 'Gamma', body: `---\ncluster: dedup\n---\n${TEXT_A}\n` }).expect(201);
    await setPolicy(admin, 'dedup', 'include');
    const [[hashA]] = await jobsOfGamma();
    await save(TEXT_B);
    const [, [hashB]] = await jobsOfGamma();
    expect(hashB).not.toBe(hashA);

    await save(TEXT_A);
    await save(TEXT_B);
    await save(TEXT_A);
    // Every save is a revision of its own; only the jobs are shared.
    expect(await count(t, `SELECT count(*) FROM page_revisions r JOIN pages p ON p.id = r.page_id WHERE p.slug = 'gamma'`)).toBe(5);
    expect(await jobsOfGamma()).toEqual([
      [hashA, 'created'],
      [hashB, 'created'],
    ]);

    // A worker takes A's job: the key is free again, so the next save of A queues a job that reads it afresh.
    const [taken] = await t.app.get(JobQueue).fetch<{ sourceHash: string }>(EXTRACT_PAGE_QUEUE, 1);
    expect(taken.data.sourceHash).toBe(hashA);
    await save(TEXT_B);
    await save(TEXT_A);
    expect(await jobsOfGamma()).toEqual([
      [hashA, 'active'],
      [hashB, 'created'],
      [hashA, 'created'],
    ]);
  });
});
