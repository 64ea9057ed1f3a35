import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicExtractor, type AnthropicExtractorOptions } from '../../src/extractors/anthropic/anthropic.extractor.js';
import { EXTRACTION_JSON_SCHEMA } from '../../src/extractors/extraction-prompt.js';
import { type ExtractionRequest } from '../../src/extractors/extraction.types.js';
import { ExtractorError } from '../../src/llm-client/llm-errors.js';
import { chunkTextOfAnthropicRequest, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';

const API_KEY = 'sk-ant-test-0123456789';
const MODEL = 'claude-haiku-5-5';

const CHUNK =
  '## Graph view\n\nThe graph view shows notes as nodes and [[Wikilinks]] as edges. It is part of Foam, ' +
  'which was created by Jani Eväkallio.';

const REQUEST: ExtractionRequest = {
  pageTitle: 'Graph Visualization',
  headingPath: ['Graph view'],
  chunkText: CHUNK,
  knownEntities: [{ name: 'Foam', type: 'product' }],
  linkTargets: ['Wikilinks'],
};

const GOOD_INPUT = {
  entities: [
    { name: 'graph view', type: 'feature', confidence: 0.9, evidence: 'The graph view shows notes as nodes' },
    { name: 'foam', type: 'software', confidence: 0.8, evidence: 'It is part of Foam' },
    { name: 'Jani Eväkallio', type: 'person', confidence: 0.85, evidence: 'which was created by Jani Eväkallio.' },
  ],
  relations: [
    { source: 'graph view', predicate: 'part of', target: 'Foam', confidence: 0.9, evidence: 'It is part of Foam' },
    { source: 'Jani Eväkallio', predicate: 'created', target: 'Foam', confidence: 0.8, evidence: 'which was created by Jani Eväkallio' },
    { source: 'graph view', predicate: 'visualises', target: 'Wikilinks', confidence: 0.6, evidence: '[[Wikilinks]] as edges' },
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

describe('Anthropic extractor through the real `@anthropic-ai/sdk`', () => {
  let fake: FakeAnthropic;
  const make = (overrides: Partial<AnthropicExtractorOptions> = {}) =>
    new AnthropicExtractor({ apiKey: API_KEY, model: MODEL, baseUrl: fake.url, maxTokens: 4096, timeoutMs: 2000, ...overrides });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: API_KEY });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('validates the tool input: names reuse known entities, aliases mapped, inverse predicates turned round', async () => {
    fake.enqueue({ kind: 'tool', input: GOOD_INPUT });
    const result = await make().extract(REQUEST);
    expect(result).toMatchObject({ extractor: 'anthropic', model: MODEL });
    expect(result.entities).toEqual([
      { name: 'graph view', type: 'concept', confidence: 0.9, evidence: 'The graph view shows notes as nodes' },
      { name: 'Foam', type: 'product', confidence: 0.8, evidence: 'It is part of Foam' },
      { name: 'Jani Eväkallio', type: 'person', confidence: 0.85, evidence: 'which was created by Jani Eväkallio.' },
    ]);
    expect(result.relations).toEqual([
      { source: 'graph view', predicate: 'part_of', target: 'Foam', confidence: 0.9, evidence: 'It is part of Foam' },
      { source: 'Foam', predicate: 'created_by', target: 'Jani Eväkallio', confidence: 0.8, evidence: 'which was created by Jani Eväkallio' },
    ]);
    // Wikilinks was never listed as an entity: the relation is dropped, and says why.
    expect(result.dropped).toEqual([
      { item: 'relation "graph view" related_to "Wikilinks"', reason: 'its target "Wikilinks" is not among the entities' },
    ]);
    expect(fake.calls).toBe(1);
  });

  it('sends the record_knowledge tool with the schema, forces it, and carries the known entities', async () => {
    await make().extract(REQUEST);
    const [request] = fake.requestsTo('/v1/messages');
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.headers['x-api-key'] ?? request.headers.authorization).toContain(API_KEY);
    expect(request.body).toMatchObject({
      model: MODEL,
      max_tokens: 4096,
      tool_choice: { type: 'tool', name: 'record_knowledge' },
      thinking: { type: 'disabled' },
    });
    expect(request.body.stream).toBeUndefined();
    expect(request.body.tools).toHaveLength(1);
    expect(request.body.tools[0]).toMatchObject({ name: 'record_knowledge', input_schema: JSON.parse(JSON.stringify(EXTRACTION_JSON_SCHEMA)) });
    expect(request.body.system).toMatch(/verbatim quote/);
    const [message] = request.body.messages;
    expect(message.role).toBe('user');
    expect(message.content).toContain('- Foam (product)');
    expect(message.content).toContain('Page title: Graph Visualization');
    expect(message.content).toContain('- Wikilinks');
    expect(chunkTextOfAnthropicRequest(request)).toBe(CHUNK);
  });

  it('does not retry inside the SDK: one failing call is one request', async () => {
    fake.enqueue({ kind: 'error', status: 500, type: 'api_error' });
    await extractorError(make().extract(REQUEST));
    expect(fake.calls).toBe(1);
  });

  it('treats a tool input of the wrong shape as malformed and retryable', async () => {
    fake.enqueue({ kind: 'tool', input: { entities: { name: 'Foam' } } });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/malformed output: "entities" must be an array/);
  });

  it('reads a tool input handed over as a JSON string', async () => {
    fake.enqueue({ kind: 'tool', input: JSON.stringify({ entities: [{ name: 'Foam', type: 'product', confidence: 0.7, evidence: 'part of Foam' }], relations: [] }) });
    expect((await make().extract(REQUEST)).entities).toEqual([{ name: 'Foam', type: 'product', confidence: 0.7, evidence: 'part of Foam' }]);
  });

  it('treats a 200 whose JSON body is cut off as retryable, and says the body was not JSON', async () => {
    const truncated = '{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"record_knowledge","input":{"entities":[{"name":"Fo';
    fake.enqueue({ kind: 'raw', status: 200, body: truncated, headers: { 'Content-Type': 'application/json' } });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^Anthropic \(claude-haiku-5-5\) answered a body that is not valid JSON: /);
    expect(fake.calls).toBe(1);
  });

  it.each([
    ['an HTML page', '<html><body>Welcome to the captive portal</body></html>', { 'Content-Type': 'text/html; charset=utf-8' }, /<html><body>Welcome/],
    // With content-length 0 the SDK does not parse at all and hands over `undefined`.
    ['an empty JSON body', '', { 'Content-Type': 'application/json', 'Content-Length': '0' }, /an empty body$/],
    ['JSON that is not a Message', '{"ok":true}', { 'Content-Type': 'application/json' }, /\{"ok":true\}$/],
  ])('treats a 200 carrying %s instead of a Message as retryable', async (_what, body, headers, detail) => {
    fake.enqueue({ kind: 'raw', status: 200, body, headers });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^Anthropic \(claude-haiku-5-5\) answered something that is not a Message: /);
    expect(error.message).toMatch(detail);
  });

  it('treats a tool input handed over as a string of broken JSON as malformed and retryable', async () => {
    fake.enqueue({ kind: 'tool', input: '{"entities": [{"name": "Foam", "type": "product", "evidence": "part of' });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^Anthropic \(claude-haiku-5-5\) answered malformed output: the model's answer is not a JSON object: \{"entities"/);
  });

  it('treats prose without the tool call as retryable', async () => {
    fake.enqueue({ kind: 'text', text: 'I found these entities: Foam.' });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/did not call record_knowledge \(stop_reason end_turn; answered text\)/);
  });

  it('treats an answer cut at max_tokens as retryable, a refusal as not', async () => {
    fake.enqueue({ kind: 'tool', input: { entities: [] }, stopReason: 'max_tokens' });
    const cut = await extractorError(make().extract(REQUEST));
    expect(cut.retryable).toBe(true);
    expect(cut.message).toMatch(/KURATE_ANTHROPIC_MAX_TOKENS/);
    fake.enqueue({ kind: 'text', text: '', stopReason: 'refusal' });
    expect((await extractorError(make().extract(REQUEST))).retryable).toBe(false);
  });

  it('lowers the confidence of an unverifiable quote, or drops the item, and lists it in `dropped`', async () => {
    fake.enqueue({
      kind: 'tool',
      input: {
        entities: [
          { name: 'Foam', type: 'product', confidence: 0.8, evidence: 'Foam is a VS Code extension' },
          { name: 'Roam Research', type: 'product', confidence: 0.9, evidence: 'Foam is inspired by Roam Research' },
          { name: 'graph view', type: 'concept', confidence: 0.9, evidence: 'THE GRAPH VIEW SHOWS NOTES' },
        ],
        relations: [{ source: 'Foam', predicate: 'alternative_to', target: 'Roam Research', confidence: 0.9, evidence: 'Foam is inspired by Roam Research' }],
      },
    });
    const result = await make().extract(REQUEST);
    expect(result.entities).toEqual([
      {
        name: 'Foam',
        type: 'product',
        confidence: 0.4,
        evidence: 'It is part of Foam, which was created by Jani Eväkallio.',
      },
      // Found only case-insensitively: kept, with a small penalty, quoting the chunk's own spelling.
      { name: 'graph view', type: 'concept', confidence: 0.81, evidence: 'The graph view shows notes' },
    ]);
    expect(result.relations).toEqual([]);
    expect(result.dropped.map((d) => d.item)).toEqual([
      'evidence of entity "Foam"',
      'entity "Roam Research"',
      'relation "Foam" alternative_to "Roam Research"',
    ]);
  });

  it('gives up at the timeout with a retryable error, in bounded time', async () => {
    fake.enqueue({ kind: 'hang' });
    const started = Date.now();
    const error = await extractorError(make({ timeoutMs: 300 }).extract(REQUEST));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/did not answer within 300 ms/);
    expect(fake.calls).toBe(1);
  });

  it('stops when the caller aborts, with a retryable error', async () => {
    fake.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await extractorError(make().extract(REQUEST, controller.signal));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/cancelled/);
  });

  it('is retryable on 429 rate_limit_error with the wait from retry-after', async () => {
    fake.enqueue({ kind: 'error', status: 429, type: 'rate_limit_error', retryAfter: 12 });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(12_000);
    expect(error.message).toMatch(/429 rate_limit_error/);
  });

  it.each([
    [500, 'api_error' as const],
    [529, 'overloaded_error' as const],
    [503, 'api_error' as const],
  ])('is retryable on %i %s', async (status, type) => {
    fake.enqueue({ kind: 'error', status, type });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(type);
  });

  it('is retryable when a gateway answers 502 with an HTML page', async () => {
    fake.enqueue({ kind: 'raw', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    expect((await extractorError(make().extract(REQUEST))).retryable).toBe(true);
  });

  it.each([
    [400, 'invalid_request_error' as const],
    [403, 'permission_error' as const],
    [404, 'not_found_error' as const],
  ])('is not retryable on %i %s', async (status, type) => {
    fake.enqueue({ kind: 'error', status, type });
    const error = await extractorError(make().extract(REQUEST));
    expect(error.retryable).toBe(false);
  });

  it('is not retryable with a wrong key (401), and says which variable to check', async () => {
    const error = await extractorError(make({ apiKey: 'sk-ant-wrong' }).extract(REQUEST));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/401 authentication_error: invalid x-api-key .*ANTHROPIC_API_KEY/);
  });

  it('is retryable when the connection is refused or cut', async () => {
    const port = await freePort();
    const error = await extractorError(make({ baseUrl: `http://127.0.0.1:${port}` }).extract(REQUEST));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/Cannot reach Anthropic at http:\/\/127.0.0.1:\d+/);

    fake.enqueue({ kind: 'drop' });
    expect((await extractorError(make().extract(REQUEST))).retryable).toBe(true);
  });
});

describe('the fake Anthropic server speaks the wire format', () => {
  let fake: FakeAnthropic;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(async () => {
    await fake.close();
  });

  const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }) =>
    fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers a Message with a tool_use block', async () => {
    fake.enqueue({ kind: 'tool', input: { entities: [], relations: [] } });
    const response = await post({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'record_knowledge', input_schema: { type: 'object' } }] });
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const body = (await response.json()) as Record<string, any>;
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: MODEL,
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [{ type: 'tool_use', name: 'record_knowledge', input: { entities: [], relations: [] } }],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    expect(body.id).toMatch(/^msg_/);
    expect(body.content[0].id).toMatch(/^toolu_/);
  });

  it('sends errors in the API envelope, with retry-after on 429', async () => {
    fake.enqueue({ kind: 'error', status: 429, type: 'rate_limit_error', retryAfter: 3 });
    const limited = await post({ model: MODEL, max_tokens: 1, messages: [] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });

    const unauthenticated = await post({ model: MODEL, max_tokens: 1, messages: [] }, { 'anthropic-version': '2023-06-01' });
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as any).error.type).toBe('authentication_error');

    const noVersion = await post({ model: MODEL, max_tokens: 1, messages: [] }, { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as any).error).toEqual({ type: 'invalid_request_error', message: 'anthropic-version: header is required' });

    const noMaxTokens = await post({ model: MODEL, messages: [] });
    expect(((await noMaxTokens.json()) as any).error.message).toBe('max_tokens: Field required');
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
