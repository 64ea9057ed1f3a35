import { createServer } from 'node:net';
import { Ollama } from 'ollama';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXTRACTION_JSON_SCHEMA } from '../../src/extractors/extraction-prompt.js';
import { type ExtractionRequest } from '../../src/extractors/extraction.types.js';
import { ExtractorError } from '../../src/llm-client/llm-errors.js';
import { OllamaEmbedder } from '../../src/embedders/ollama.embedder.js';
import { OllamaExtractor } from '../../src/extractors/ollama/ollama.extractor.js';
import { chunkTextOfOllamaRequest, FAKE_OLLAMA_CHAT_MODEL, FAKE_OLLAMA_EMBED_MODEL, startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';

const CHUNK =
  'Foam is a personal knowledge management system built on Visual Studio Code and GitHub.\n\n' +
  'It uses [[Wikilinks]] to connect notes, and the graph view shows how they relate.';

const REQUEST: ExtractionRequest = {
  pageTitle: 'Foam',
  headingPath: ['Introduction', 'What is Foam'],
  chunkText: CHUNK,
  knownEntities: [
    { name: 'Visual Studio Code', type: 'product' },
    { name: 'Wikilinks', type: 'concept' },
  ],
  linkTargets: ['Wikilinks'],
};

const GOOD_ANSWER = {
  entities: [
    { name: 'Foam', type: 'product', confidence: 0.95, evidence: 'Foam is a personal knowledge management system' },
    { name: 'Visual Studio Code', type: 'framework', confidence: 0.9, evidence: 'built on Visual Studio Code' },
    { name: 'Wikilinks', type: 'concept', confidence: 0.8, evidence: 'It uses [[Wikilinks]] to connect notes' },
  ],
  relations: [
    { source: 'Foam', predicate: 'built_on', target: 'Visual Studio Code', confidence: 0.9, evidence: 'Foam is a personal knowledge management system built on Visual Studio Code' },
    { source: 'Foam', predicate: 'depends_on', target: 'Wikilinks', confidence: 1.7, evidence: 'It uses [[Wikilinks]] to connect notes' },
  ],
};

async function extractorError(promise: Promise<unknown>): Promise<ExtractorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractorError);
  return error as ExtractorError;
}

describe('Ollama extractor through the real `ollama` client', () => {
  let fake: FakeOllama;
  let extractor: OllamaExtractor;

  beforeAll(async () => {
    fake = await startFakeOllama();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    extractor = new OllamaExtractor({ host: fake.url, model: FAKE_OLLAMA_CHAT_MODEL, timeoutMs: 2000 });
  });

  it('parses and validates a good answer: aliases mapped, confidence clamped, quotes verified', async () => {
    fake.enqueue({ kind: 'chat', content: GOOD_ANSWER });
    const result = await extractor.extract(REQUEST);
    expect(result.extractor).toBe('ollama');
    expect(result.model).toBe(FAKE_OLLAMA_CHAT_MODEL);
    expect(result.entities).toEqual([
      { name: 'Foam', type: 'product', confidence: 0.95, evidence: 'Foam is a personal knowledge management system' },
      // A known entity keeps its approved type.
      { name: 'Visual Studio Code', type: 'product', confidence: 0.9, evidence: 'built on Visual Studio Code' },
      { name: 'Wikilinks', type: 'concept', confidence: 0.8, evidence: 'It uses [[Wikilinks]] to connect notes' },
    ]);
    expect(result.relations).toEqual([
      {
        source: 'Foam',
        predicate: 'uses',
        target: 'Visual Studio Code',
        confidence: 0.9,
        evidence: 'Foam is a personal knowledge management system built on Visual Studio Code',
      },
      { source: 'Foam', predicate: 'requires', target: 'Wikilinks', confidence: 1, evidence: 'It uses [[Wikilinks]] to connect notes' },
    ]);
    expect(result.dropped).toEqual([]);
    expect(fake.calls).toBe(1);
  });

  it('sends /api/chat with the JSON schema as format, think false, stream false, and the known entities in the prompt', async () => {
    await extractor.extract(REQUEST);
    const [request] = fake.requestsTo('/api/chat');
    expect(request.method).toBe('POST');
    expect(request.body).toMatchObject({ model: FAKE_OLLAMA_CHAT_MODEL, stream: false, think: false, options: { temperature: 0 } });
    expect(request.body.format).toEqual(JSON.parse(JSON.stringify(EXTRACTION_JSON_SCHEMA)));
    expect(request.body.format.properties.entities.items.properties.type.enum).toContain('technology');
    const [system, user] = request.body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/verbatim quote/);
    expect(user.role).toBe('user');
    expect(user.content).toContain('Page title: Foam');
    expect(user.content).toContain('Section: Introduction › What is Foam');
    expect(user.content).toContain('- Visual Studio Code (product)');
    expect(user.content).toContain('- Wikilinks (concept)');
    expect(chunkTextOfOllamaRequest(request)).toBe(CHUNK);
  });

  it('reads an answer wrapped in a code fence after some prose, with a trailing comma', async () => {
    fake.enqueue({
      kind: 'chat',
      content: 'Here is the JSON:\n```json\n{"entities": [{"name": "Foam", "type": "company", "confidence": 0.7, "evidence": "Foam is a personal"},], "relations": []}\n```',
    });
    const result = await extractor.extract(REQUEST);
    expect(result.entities).toEqual([{ name: 'Foam', type: 'organization', confidence: 0.7, evidence: 'Foam is a personal' }]);
  });

  it('turns malformed JSON into a retryable ExtractorError', async () => {
    fake.enqueue({ kind: 'chat', content: '{"entities": [{"name": "Foam", "type": ' });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/malformed output/);
  });

  it('turns an answer of the wrong shape into a retryable ExtractorError', async () => {
    fake.enqueue({ kind: 'chat', content: { entities: 'Foam, Visual Studio Code' } });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/"entities" must be an array/);
  });

  it('lowers the confidence of an unverifiable quote, or drops the item, and lists it in `dropped`', async () => {
    fake.enqueue({
      kind: 'chat',
      content: {
        entities: [
          { name: 'Foam', type: 'product', confidence: 0.9, evidence: 'Foam is the best note-taking app ever made' },
          { name: 'Obsidian', type: 'product', confidence: 0.9, evidence: 'Obsidian is an alternative to Foam' },
        ],
        relations: [],
      },
    });
    const result = await extractor.extract(REQUEST);
    expect(result.entities).toEqual([
      {
        name: 'Foam',
        type: 'product',
        confidence: 0.45,
        evidence: 'Foam is a personal knowledge management system built on Visual Studio Code and GitHub.',
      },
    ]);
    expect(result.dropped).toEqual([
      { item: 'evidence of entity "Foam"', reason: expect.stringMatching(/is not in the chunk; replaced by the chunk's sentence that names it, confidence ×0.5/) },
      { item: 'entity "Obsidian"', reason: expect.stringMatching(/is not in the chunk, and no sentence of the chunk names it/) },
    ]);
  });

  it('gives up at the timeout with a retryable error, in bounded time', async () => {
    extractor = new OllamaExtractor({ host: fake.url, model: FAKE_OLLAMA_CHAT_MODEL, timeoutMs: 300 });
    fake.enqueue({ kind: 'hang' });
    const started = Date.now();
    const error = await extractorError(extractor.extract(REQUEST));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/did not answer within 300 ms/);
  });

  it('stops when the caller aborts, with a retryable error', async () => {
    fake.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await extractorError(extractor.extract(REQUEST, controller.signal));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/cancelled/);
  });

  it('is retryable on 429 with the wait from Retry-After', async () => {
    fake.enqueue({ kind: 'error', status: 429, message: 'too many requests', headers: { 'Retry-After': '7' } });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(7000);
    expect(error.message).toMatch(/429: too many requests/);
  });

  it.each([
    [500, 'llama runner process has terminated: exit status 2'],
    [503, 'server busy, please try again.  maximum pending requests exceeded'],
  ])('is retryable on %i', async (status, message) => {
    fake.enqueue({ kind: 'error', status, message });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('is retryable when a gateway answers 502 with an HTML page', async () => {
    fake.enqueue({ kind: 'raw', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'Content-Type': 'text/html' } });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^Ollama answered 502: 502 Bad Gateway \(chat with/);
  });

  it.each([
    [400, 'invalid format: expected "json" or a JSON schema'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
  ])('is not retryable on %i', async (status, message) => {
    fake.enqueue({ kind: 'error', status, message });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(message);
  });

  it('says to pull a model the server does not have (404, not retryable)', async () => {
    extractor = new OllamaExtractor({ host: fake.url, model: 'llama3.1:70b', timeoutMs: 2000 });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/model "llama3.1:70b" not found, try pulling it first.*ollama pull/);
  });

  it('is retryable when the connection is refused or cut', async () => {
    const closedPort = await freePort();
    const refused = new OllamaExtractor({ host: `http://127.0.0.1:${closedPort}`, model: FAKE_OLLAMA_CHAT_MODEL, timeoutMs: 2000 });
    const error = await extractorError(refused.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/Cannot reach Ollama at http:\/\/127.0.0.1:\d+: ECONNREFUSED/);

    fake.enqueue({ kind: 'drop' });
    expect((await extractorError(extractor.extract(REQUEST))).retryable).toBe(true);
  });

  it('treats an answer cut at the token limit as retryable', async () => {
    fake.enqueue({ kind: 'chat', content: '{"entities": [', doneReason: 'length' });
    const error = await extractorError(extractor.extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/cut at the token limit/);
  });

  it('stops sending `think` once the server says the model does not support thinking', async () => {
    fake.enqueue(
      { kind: 'error', status: 400, message: `"${FAKE_OLLAMA_CHAT_MODEL}" does not support thinking` },
      { kind: 'chat', content: GOOD_ANSWER },
    );
    const result = await extractor.extract(REQUEST);
    expect(result.entities).toHaveLength(3);
    const bodies = fake.requestsTo('/api/chat').map((r) => r.body);
    expect(bodies.map((b) => b.think)).toEqual([false, undefined]);
    await extractor.extract(REQUEST);
    expect(fake.calls).toBe(3);
    expect(fake.requestsTo('/api/chat')[2].body).not.toHaveProperty('think');
  });

  it('counts calls and records every request body', async () => {
    await extractor.extract(REQUEST);
    await extractor.extract({ ...REQUEST, chunkText: 'Another chunk about Foam.' });
    expect(fake.calls).toBe(2);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/chat', 'POST /api/chat']);
    expect(chunkTextOfOllamaRequest(fake.requests[1])).toBe('Another chunk about Foam.');
  });
});

describe('Ollama embedder through the real `ollama` client', () => {
  let fake: FakeOllama;

  beforeAll(async () => {
    fake = await startFakeOllama({ embedDimensions: 8 });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('embeds a batch with /api/embed and learns the dimension from the first answer', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: FAKE_OLLAMA_EMBED_MODEL, dimensions: null, timeoutMs: 2000 });
    expect(embedder.dimensions).toBe(0);
    const vectors = await embedder.embed(['graph view', 'backlinks panel']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(8);
    expect(embedder.dimensions).toBe(8);
    expect(embedder.model).toBe(FAKE_OLLAMA_EMBED_MODEL);
    const [request] = fake.requestsTo('/api/embed');
    expect(request.body).toEqual({ model: FAKE_OLLAMA_EMBED_MODEL, input: ['graph view', 'backlinks panel'], truncate: true });
    // The same text gets the same vector.
    expect((await embedder.embed(['graph view']))[0]).toEqual(vectors[0]);
    expect(fake.embedCalls).toBe(2);
    expect(fake.calls).toBe(0);
  });

  it('makes no call for an empty batch', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: FAKE_OLLAMA_EMBED_MODEL, dimensions: null, timeoutMs: 2000 });
    expect(await embedder.embed([])).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  it('refuses vectors whose dimension differs from the configured one (not retryable)', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: FAKE_OLLAMA_EMBED_MODEL, dimensions: 768, timeoutMs: 2000 });
    expect(embedder.dimensions).toBe(768);
    const error = await extractorError(embedder.embed(['graph view']));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/8 dimensions .* expected 768.*KURATE_OLLAMA_EMBED_DIMENSIONS/);
  });

  it('maps errors like the extractor: 500 retryable, a missing model not', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: FAKE_OLLAMA_EMBED_MODEL, dimensions: null, timeoutMs: 2000 });
    fake.enqueueEmbed({ kind: 'error', status: 500, message: 'failed to generate embedding' });
    expect((await extractorError(embedder.embed(['x']))).retryable).toBe(true);
    const missing = new OllamaEmbedder({ host: fake.url, model: 'mxbai-embed-large', dimensions: null, timeoutMs: 2000 });
    expect((await extractorError(missing.embed(['x']))).retryable).toBe(false);
  });

  it('times out on a hang', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: FAKE_OLLAMA_EMBED_MODEL, dimensions: null, timeoutMs: 200 });
    fake.enqueueEmbed({ kind: 'hang' });
    const error = await extractorError(embedder.embed(['x']));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/within 200 ms/);
  });
});

describe('the fake Ollama server speaks the wire format', () => {
  let fake: FakeOllama;

  beforeAll(async () => {
    fake = await startFakeOllama();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('lists models on /api/tags as the real client reads them', async () => {
    const { models } = await new Ollama({ host: fake.url }).list();
    expect(models.map((m) => m.name)).toEqual([FAKE_OLLAMA_CHAT_MODEL, `${FAKE_OLLAMA_EMBED_MODEL}:latest`]);
    expect(models[0].details).toMatchObject({ format: 'gguf', quantization_level: 'Q4_K_M' });
  });

  it('answers a non-streamed chat with the full response shape', async () => {
    fake.enqueue({ kind: 'chat', content: 'hello' });
    const response = await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: FAKE_OLLAMA_CHAT_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false }),
    });
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await response.json()) as Record<string, any>;
    expect(body).toMatchObject({ model: FAKE_OLLAMA_CHAT_MODEL, message: { role: 'assistant', content: 'hello' }, done: true, done_reason: 'stop' });
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining(['created_at', 'total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration']),
    );
  });

  it('streams NDJSON when `stream` is not false, as Ollama does by default', async () => {
    fake.enqueue({ kind: 'chat', content: 'hello world' });
    const stream = await new Ollama({ host: fake.url }).chat({ model: FAKE_OLLAMA_CHAT_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    let done = false;
    for await (const part of stream) {
      text += part.message.content;
      done = part.done;
    }
    expect(text).toBe('hello world');
    expect(done).toBe(true);
  });

  it('answers errors as {"error": …} with the status, and unknown paths as Go does', async () => {
    const missing = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'nope', messages: [] }) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'model "nope" not found, try pulling it first' });
    const noModel = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: '{}' });
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toEqual({ error: 'model is required' });
    const unknown = await fetch(`${fake.url}/api/nothing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('404 page not found');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
