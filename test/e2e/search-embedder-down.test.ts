import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchVectorRepository } from '../../src/search/search-vector.repository.js';
import { VECTOR_UNAVAILABLE } from '../../src/search/search.service.js';
import { FAKE_OLLAMA_EMBED_MODEL, startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * Vector search with the Ollama embedder (a local server speaking Ollama's API): the HNSW index is made once the
 * model's size is known, and when the embedder fails the search still answers, by words, with a visible notice.
 */
describe('search with the Ollama embedder, up and down', () => {
  let t: TestApp;
  let fake: FakeOllama;
  let admin: supertest.Agent;
  const failures = (n: number) => Array.from({ length: n }, () => ({ kind: 'error' as const, status: 500, message: 'model runner crashed' }));

  beforeAll(async () => {
    fake = await startFakeOllama({ embedDimensions: 64 });
    t = await startTestApp({
      env: { KURATE_EMBEDDER: 'ollama', OLLAMA_HOST: fake.url, KURATE_SEARCH_WEIGHT_VECTOR: '1', KURATE_SEARCH_WEIGHT_GRAPH: '1', KURATE_LLM_TIMEOUT_MS: '2000' },
    });
    admin = await t.as('admin');
    const author = await t.as('author');
    await startWorker(t);
    await author.post('/api/pages').send({ title: 'Sourdough Starter', body: '---\ncluster: food\n---\nFeed the starter flour and water every day.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Bread Oven', body: '---\ncluster: food\n---\nBake loaves at a high heat with steam.' }).expect(201);
    await setPolicy(admin, 'food', 'include');
    await waitForJobs(t, { timeoutMs: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('ranks by vector once the embedder answers, creating the index for its model and size on first use', async () => {
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks WHERE embedding_model = $1 AND embedding_dims = 64`, [FAKE_OLLAMA_EMBED_MODEL])).toBeGreaterThanOrEqual(2);
    const res = await t.http.get('/api/search?q=starter%20flour').expect(200);
    // The graph ranks only queries that name an approved entity; this one names none.
    expect(res.body.lists).toEqual(['lexical', 'vector']);
    expect(res.body.notices).toEqual([]);
    expect(res.body.hits[0].slug).toBe('sourdough-starter');
    const name = SearchVectorRepository.indexName(FAKE_OLLAMA_EMBED_MODEL, 64);
    expect(await count(t, `SELECT count(*) FROM pg_indexes WHERE indexname = $1 AND indexdef LIKE '%USING hnsw%'`, [name])).toBe(1);
  });

  it('falls back to words and the graph with a notice when the embedder fails: never a 500', async () => {
    fake.reset();
    fake.enqueueEmbed(...failures(10));
    const res = await t.http.get('/api/search?q=starter%20flour').expect(200);
    expect(res.body.hits[0].slug).toBe('sourdough-starter');
    expect(res.body.lists).toEqual(['lexical']);
    expect(res.body.notices).toEqual([{ code: 'vector-unavailable', message: VECTOR_UNAVAILABLE }]);
    expect(fake.requestsTo('/api/embed').length).toBeGreaterThan(0);
    fake.reset();
    fake.enqueueEmbed(...failures(10));
    const page = await t.http.get('/search?q=starter%20flour').set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('Meaning-based search is unavailable right now');
    expect(page.text).toContain('href="/page/sourdough-starter"');
    fake.reset();
    // Back up: vector search returns without a restart.
    expect((await t.http.get('/api/search?q=starter%20flour').expect(200)).body.notices).toEqual([]);
  });
});
