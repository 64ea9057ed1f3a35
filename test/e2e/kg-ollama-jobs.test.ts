import type supertest from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunkTextOfOllamaRequest, startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, gadgetAnswer, gadgetPage, jobStates, paragraph, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * Extraction through the real Ollama client against a local server that speaks Ollama's API (test/support/
 * fake-ollama.ts), which counts the calls: incremental re-extraction, retries (429 with Retry-After, 500, a
 * timeout), a permanent failure recorded with its reason, and all-or-nothing writes.
 */
describe('extraction jobs with the Ollama backend (fake server)', () => {
  let fake: FakeOllama;
  let t: TestApp;
  let admin: supertest.Agent;
  let pageId: string;
  const SLUG = 'gadgets';

  const chunkRows = async () =>
    (await t.dataSource.query(`SELECT id::text AS id, content_hash AS hash, position, text FROM kg_content_chunks WHERE page_id = $1 ORDER BY position`, [pageId])) as {
      id: string; hash: string; position: number; text: string;
    }[];
  /** The chunk texts the fake server was asked about since its last reset, sorted. */
  const sentChunks = () => fake.requestsTo('/api/chat').map(chunkTextOfOllamaRequest).sort();
  /** Rows of `after` that are not rows of `before` (by id): the chunks a run re-extracted. */
  const newRows = (before: { id: string }[], after: { id: string; text: string }[]) => after.filter((row) => !before.some((b) => b.id === row.id));
  const kgSnapshot = async () =>
    JSON.stringify({
      chunks: await t.dataSource.query('SELECT id, position, content_hash, embedding_model FROM kg_content_chunks ORDER BY id'),
      mentions: await t.dataSource.query('SELECT id, chunk_id, signature, node_id, confidence FROM kg_mentions ORDER BY id'),
      proposals: await t.dataSource.query('SELECT id, signature, status, support_count, confidence, evidence_quote FROM kg_proposals ORDER BY id'),
      support: await t.dataSource.query('SELECT proposal_id, chunk_id, quote FROM kg_proposal_support ORDER BY proposal_id, chunk_id'),
      record: await t.dataSource.query('SELECT source_hash, chunk_count FROM kg_page_extractions ORDER BY page_id'),
    });
  /** Replaces one sentence-internal word of paragraph `n` (0-based) of the page body and saves it. */
  const editParagraph = async (n: number, replacement: string) => {
    const current = (await admin.get(`/api/pages/${SLUG}`).expect(200)).body;
    const paragraphs = (current.body as string).split('\n\n');
    const index = paragraphs.findIndex((p, k) => k > 0 && !p.startsWith('##') && n-- === 0);
    paragraphs[index] = paragraphs[index].replace(/ (\w+) (\w+)\./, ` $1 ${replacement}.`);
    await admin.put(`/api/pages/${SLUG}`).send({ body: paragraphs.join('\n\n'), baseVersion: current.version }).expect(200);
  };
  const lastJob = async () =>
    ((await t.dataSource.query(
      `SELECT state::text AS state, retry_count AS "retryCount", output, started_on AS "startedOn", created_on AS "createdOn"
         FROM pgboss.job WHERE name = 'kg-extract-page' ORDER BY created_on DESC LIMIT 1`,
    )) as { state: string; retryCount: number; output: Record<string, unknown>; startedOn: Date }[])[0];

  beforeAll(async () => {
    fake = await startFakeOllama({ respond: (request) => ({ kind: 'chat', content: gadgetAnswer(chunkTextOfOllamaRequest(request)) }) });
    t = await startTestApp({
      env: {
        KURATE_EXTRACTOR: 'ollama',
        OLLAMA_HOST: fake.url,
        KURATE_LLM_TIMEOUT_MS: '1500',
        KURATE_EXTRACT_RETRY_LIMIT: '2',
        KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1',
        KURATE_JOB_POLL_SECONDS: '0.5',
      },
    });
    admin = await t.as('admin');
    await startWorker(t);
    const created = await admin.post('/api/pages').send({ title: 'Gadgets', body: gadgetPage('docs', { sections: 17, firstSectionParagraphs: 12 }) }).expect(201);
    pageId = created.body.id;
    // Not included yet (the default is exclude): no job, no call.
    expect(await count(t, `SELECT count(*) FROM pgboss.job WHERE name = 'kg-extract-page'`)).toBe(0);
    await setPolicy(admin, 'docs', 'include');
    await waitForJobs(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('extracted the 20-chunk page with one call per chunk, through the real client', async () => {
    const rows = await chunkRows();
    expect(rows).toHaveLength(20);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE status = 'pending' AND kind = 'node'`)).toBe(17);
    const [job] = await t.dataSource.query(`SELECT output FROM pgboss.job WHERE name = 'kg-extract-page'`);
    expect(job.output).toMatchObject({ status: 'extracted', chunks: 20, newChunks: 20, calls: 20 });
  });

  it('editing one paragraph of the 20-chunk page causes at most 2 extraction calls (counted on the server)', async () => {
    const before = await chunkRows();
    // A paragraph inside the long first section (split into 4 chunks), then one in a later section.
    await editParagraph(5, 'gizmo');
    await waitForJobs(t);
    const afterFirst = await chunkRows();
    expect(fake.calls).toBeGreaterThanOrEqual(1);
    expect(fake.calls).toBeLessThanOrEqual(2);
    expect(afterFirst).toHaveLength(20);
    // Every chunk the edit did not touch is the same row (same id), not a re-extracted copy.
    const added = newRows(before, afterFirst);
    expect(added).toHaveLength(fake.calls);
    // Exactly the new chunks were sent, as stored, and the edited text is in them (and in no chunk that was kept).
    expect(sentChunks()).toEqual(added.map((r) => r.text).sort());
    expect(sentChunks().some((text) => text.includes(' gizmo.'))).toBe(true);
    expect(afterFirst.filter((r) => r.text.includes(' gizmo.')).every((r) => added.includes(r))).toBe(true);

    fake.reset();
    await editParagraph(30, 'widget');
    await waitForJobs(t);
    const afterSecond = await chunkRows();
    expect(fake.calls).toBeGreaterThanOrEqual(1);
    expect(fake.calls).toBeLessThanOrEqual(2);
    expect(sentChunks()).toEqual(newRows(afterFirst, afterSecond).map((r) => r.text).sort());
    expect(sentChunks().some((text) => text.includes(' widget.'))).toBe(true);
  });

  it('running the page again costs no call and changes no row', async () => {
    const before = await kgSnapshot();
    const estimate = await admin.post('/api/admin/kg/extract').send({ page: SLUG, dryRun: true }).expect(200);
    expect(estimate.body).toMatchObject({ pagesToExtract: 0, estimatedCalls: 0, upToDatePages: 1 });
    // Even a job that runs anyway (a duplicate, a retry) finds nothing new.
    const { PageExtractionService } = await import('../../src/kg/page-extraction.service.js');
    const outcome = await t.app.get(PageExtractionService).extractPage(pageId);
    expect(outcome).toMatchObject({ status: 'extracted', calls: 0, newChunks: 0, removedChunks: 0 });
    expect(fake.calls).toBe(0);
    expect(await kgSnapshot()).toBe(before);
  });

  it('retries after a 429, no sooner than its Retry-After, and then succeeds', async () => {
    fake.enqueue({ kind: 'error', status: 429, message: 'too many requests', headers: { 'Retry-After': '2' } });
    const started = Date.now();
    await editParagraph(8, 'sprocket');
    await waitForJobs(t, { timeoutMs: 30_000 });
    const job = await lastJob();
    expect(job).toMatchObject({ state: 'completed', retryCount: 1 });
    expect(fake.calls).toBe(2);
    // The retry waited for the Retry-After (2 s), longer than the queue's own first delay (1 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect((await chunkRows()).length).toBe(20);
  });

  it('retries after a 500 and after a timeout', async () => {
    fake.enqueue({ kind: 'error', status: 500, message: 'model runner crashed' });
    await editParagraph(9, 'flange');
    await waitForJobs(t, { timeoutMs: 30_000 });
    expect(await lastJob()).toMatchObject({ state: 'completed', retryCount: 1 });
    expect(fake.calls).toBe(2);

    fake.reset();
    fake.enqueue({ kind: 'hang', ms: 5000 });
    await editParagraph(10, 'grommet');
    await waitForJobs(t, { timeoutMs: 30_000 });
    expect(await lastJob()).toMatchObject({ state: 'completed', retryCount: 1 });
    expect(fake.calls).toBe(2);
  });

  it('records a permanent failure with its reason, visible to admins, and writes no row of the failed job', async () => {
    const before = await kgSnapshot();
    const calls = fake.calls;
    // Two paragraphs in two sections: two calls; the first succeeds, the second fails for good (unknown model).
    fake.enqueue({ kind: 'chat', content: { entities: [], relations: [] } }, { kind: 'error', status: 404, message: 'model "qwen2.5:7b-instruct" not found, try pulling it first' });
    const current = (await admin.get(`/api/pages/${SLUG}`).expect(200)).body;
    const body = (current.body as string)
      .replace('## Part 5\n', `## Part 5\n\n${paragraph(501, 'Gadget5')}\n`)
      .replace('## Part 9\n', `## Part 9\n\n${paragraph(901, 'Gadget9')}\n`);
    await admin.put(`/api/pages/${SLUG}`).send({ body, baseVersion: current.version }).expect(200);
    await waitForJobs(t, { timeoutMs: 30_000 });

    const job = await lastJob();
    expect(job.state).toBe('failed');
    expect(job.retryCount).toBe(0);
    expect(fake.calls - calls).toBe(2);
    // All or nothing: the call that succeeded wrote nothing either.
    expect(await kgSnapshot()).toBe(before);

    const failures = (await admin.get('/api/admin/kg/failures').expect(200)).body.items;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ slug: SLUG, backend: 'ollama', attempts: 1 });
    expect(failures[0].reason).toMatch(/not found.*ollama pull/);
    const status = (await admin.get('/api/admin/kg/status').expect(200)).body;
    expect(status.openFailures).toBe(1);
    expect(status.backends.find((b: { backend: string }) => b.backend === 'ollama')).toMatchObject({ failed: 1 });

    // Once the model is there, retrying the failures extracts the page and resolves the failure.
    fake.reset();
    expect((await admin.post('/api/admin/kg/failures/retry').send({}).expect(200)).body).toEqual({ retried: 1 });
    await waitForJobs(t, { timeoutMs: 30_000 });
    // Only the call that failed is made again: the other's result was kept (in memory) when the job failed.
    expect(fake.calls).toBe(1);
    expect((await lastJob()).output).toMatchObject({ status: 'extracted', calls: 1, reusedResults: 1, newChunks: 2 });
    expect((await admin.get('/api/admin/kg/failures').expect(200)).body.items).toEqual([]);
    expect((await chunkRows()).length).toBe(20);
  });

  it('fails for good once its retries are used up, with the number of attempts', async () => {
    for (let k = 0; k < 3; k++) fake.enqueue({ kind: 'error', status: 503, message: 'overloaded' });
    await editParagraph(12, 'bracket');
    await waitForJobs(t, { timeoutMs: 40_000 });
    expect(await lastJob()).toMatchObject({ state: 'failed', retryCount: 2 });
    expect(fake.calls).toBe(3);
    const [failure] = (await admin.get('/api/admin/kg/failures').expect(200)).body.items;
    expect(failure).toMatchObject({ slug: SLUG, attempts: 3 });
    expect(failure.reason).toMatch(/503/);
    expect(await jobStates(t)).toMatchObject({ failed: 2 });
  }, 60_000);

  it('sends with each chunk the approved entities nearest to its page (the known-entities dictionary), not one far from it', async () => {
    // Gadget99 lives on a page of its own, which the new page does not link to.
    await admin.post('/api/pages').send({ title: 'Far Away', body: `---\ncluster: docs\n---\n${paragraph(9901, 'Gadget99')}\n` }).expect(201);
    await waitForJobs(t);
    // An admin approves Gadget3 (named by the gadgets page) and Gadget99 through the review API.
    for (const name of ['Gadget3', 'Gadget99']) {
      const { items } = (await admin.get(`/admin/knowledge-graph/proposals?q=${name}`).expect(200)).body as { items: { id: string; name: string }[] };
      const proposal = items.find((p) => p.name === name);
      expect(proposal, name).toBeDefined();
      await admin.post(`/admin/knowledge-graph/proposals/${proposal!.id}/approve`).send({}).expect(200);
    }
    fake.reset();
    await admin.post('/api/pages').send({ title: 'Gadget Review', body: '---\ncluster: docs\n---\nA review of the parts listed in [[Gadgets]], one by one.\n' }).expect(201);
    await waitForJobs(t);

    const [request, ...more] = fake.requestsTo('/api/chat');
    expect(more).toHaveLength(0);
    const prompt: string = request.body.messages.find((m: { role: string }) => m.role === 'user').content;
    expect(chunkTextOfOllamaRequest(request)).toContain('[[Gadgets]]');
    const section = (title: string, next: string) => prompt.slice(prompt.indexOf(title) + title.length, prompt.indexOf(next)).trim().split('\n');
    const known = section('Known entities (reuse these names when they fit):', 'Pages this chunk links to:');
    // Gadget3, mentioned on the linked page, is there; Gadget99 (approved too, but nowhere near) is not; the pending
    // gadgets are not entities yet.
    expect(known).toEqual(['- Gadget3 (product)']);
    expect(section('Pages this chunk links to:', 'Chunk:')).toEqual(['- Gadgets']);
  });
});
