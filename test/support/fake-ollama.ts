// A local HTTP server that speaks Ollama's REST API (docs: github.com/ollama/ollama/blob/main/docs/api.md) closely
// enough for the real `ollama` npm client: /api/chat (non-streamed and NDJSON-streamed), /api/embed, /api/tags,
// /api/version, errors as `{"error": "..."}` with Ollama's status codes. Scripted per test with a queue of replies;
// counts calls and records every request.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startFakeHttpServer, type RecordedRequest } from './fake-http.js';

export type { RecordedRequest } from './fake-http.js';

export type FakeOllamaReply =
  /** A chat answer; an object `content` is sent as its JSON text (what `format` makes a model write). */
  | { kind: 'chat'; content: string | object; doneReason?: 'stop' | 'length' | 'load'; model?: string }
  /** An /api/embed answer with these vectors. */
  | { kind: 'embed'; embeddings: number[][] }
  /** An error, as Ollama sends one: `{"error": message}` with the status (and extra headers, e.g. Retry-After). */
  | { kind: 'error'; status: number; message: string; headers?: Record<string, string> }
  /** Any status, body and headers (a body that is not JSON, a proxy's HTML page…). */
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  /** No answer for `ms` (default: until the client gives up or the server closes), then the next reply. */
  | { kind: 'hang'; ms?: number; then?: FakeOllamaReply }
  /** The connection is cut without an answer. */
  | { kind: 'drop' };

export interface FakeOllamaOptions {
  /** Models /api/tags lists and the server knows; others get Ollama's 404 "model … not found". */
  models?: string[];
  /** Dimension of the default (deterministic) embeddings. */
  embedDimensions?: number;
  /** The answer when the queue is empty, per chat request. Default: no entities, no relations. */
  respond?: (request: RecordedRequest) => FakeOllamaReply;
}

export interface FakeOllama {
  /** Base URL, for OLLAMA_HOST. */
  url: string;
  /** Extraction calls: requests to /api/chat. */
  readonly calls: number;
  /** Requests to /api/embed. */
  readonly embedCalls: number;
  /** Every request received, in order (all paths). */
  requests: RecordedRequest[];
  /** Requests to one path, e.g. `/api/chat`. */
  requestsTo(path: string): RecordedRequest[];
  /** Replies for the next /api/chat requests, in order, each used once (an `embed` reply goes to /api/embed's queue). */
  enqueue(...replies: FakeOllamaReply[]): void;
  /** Replies for the next /api/embed requests (errors, hangs… as well as `embed`). */
  enqueueEmbed(...replies: FakeOllamaReply[]): void;
  /** Forget the queue, the counts and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_OLLAMA_CHAT_MODEL = 'qwen2.5:7b-instruct';
export const FAKE_OLLAMA_EMBED_MODEL = 'nomic-embed-text';

/** The chunk text inside a chat request built by src/extractors/extraction-prompt.ts (between <chunk> tags). */
export function chunkTextOfOllamaRequest(request: RecordedRequest): string {
  const user = (request.body?.messages ?? []).find((m: { role: string }) => m.role === 'user')?.content ?? '';
  return /<chunk>\n([\s\S]*)\n<\/chunk>/.exec(user)?.[1] ?? '';
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = options.models ?? [FAKE_OLLAMA_CHAT_MODEL, FAKE_OLLAMA_EMBED_MODEL];
  const dimensions = options.embedDimensions ?? 768;
  let chatQueue: FakeOllamaReply[] = [];
  let embedQueue: FakeOllamaReply[] = [];

  async function handle(recorded: RecordedRequest, res: ServerResponse, badJson: boolean): Promise<void> {
    const { method, path, body } = recorded;
    if (method === 'GET' && path === '/') return sendText(res, 200, 'Ollama is running');
    if (method === 'GET' && path === '/api/version') return sendJson(res, 200, { version: '0.12.6' });
    if (method === 'GET' && path === '/api/tags') return sendJson(res, 200, { models: models.map(describeModel) });
    if (method !== 'POST' || (path !== '/api/chat' && path !== '/api/embed')) return sendText(res, 404, '404 page not found');
    if (badJson) return sendJson(res, 400, { error: 'invalid character looking for beginning of value' });
    if (typeof body?.model !== 'string' || body.model === '') return sendJson(res, 400, { error: 'model is required' });
    if (!models.includes(body.model) && !models.includes(`${body.model}:latest`)) {
      return sendJson(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
    }
    const reply = (path === '/api/embed' ? embedQueue : chatQueue).shift() ?? defaultReply(path, recorded);
    await answer(res, path, recorded, reply);
  }

  function defaultReply(path: string, request: RecordedRequest): FakeOllamaReply {
    if (path === '/api/embed') {
      const input: string[] = Array.isArray(request.body.input) ? request.body.input : [request.body.input ?? ''];
      return { kind: 'embed', embeddings: input.map((t) => deterministicVector(String(t), dimensions)) };
    }
    return options.respond?.(request) ?? { kind: 'chat', content: { entities: [], relations: [] } };
  }

  async function answer(res: ServerResponse, path: string, request: RecordedRequest, reply: FakeOllamaReply): Promise<void> {
    switch (reply.kind) {
      case 'hang': {
        if (reply.ms === undefined) return; // never answers; close() cuts the connection
        await server.pause(reply.ms);
        if (res.destroyed || res.writableEnded) return;
        return answer(res, path, request, reply.then ?? defaultReply(path, request));
      }
      case 'drop':
        res.socket?.destroy();
        return;
      case 'error':
        return sendJson(res, reply.status, { error: reply.message }, reply.headers);
      case 'raw':
        res.writeHead(reply.status, { 'Content-Type': 'text/plain; charset=utf-8', ...reply.headers });
        res.end(reply.body);
        return;
      case 'embed': {
        if (path !== '/api/embed') return sendJson(res, 500, { error: `fake-ollama: an embed reply was queued for ${path}` });
        return sendJson(res, 200, {
          model: request.body.model,
          embeddings: reply.embeddings,
          total_duration: 14143917,
          load_duration: 1019500,
          prompt_eval_count: 8,
        });
      }
      case 'chat': {
        if (path !== '/api/chat') return sendJson(res, 500, { error: `fake-ollama: a chat reply was queued for ${path}` });
        const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
        const model = reply.model ?? request.body.model;
        const final = {
          model,
          created_at: new Date().toISOString(),
          message: { role: 'assistant', content },
          done_reason: reply.doneReason ?? 'stop',
          done: true,
          total_duration: 5191566416,
          load_duration: 2154458,
          prompt_eval_count: 26,
          prompt_eval_duration: 383809000,
          eval_count: 298,
          eval_duration: 4799921000,
        };
        // Ollama streams unless told `"stream": false`.
        if (request.body.stream === false) return sendJson(res, 200, final);
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
        const half = Math.ceil(content.length / 2);
        for (const piece of [content.slice(0, half), content.slice(half)]) {
          res.write(`${JSON.stringify({ model, created_at: final.created_at, message: { role: 'assistant', content: piece }, done: false })}\n`);
        }
        res.end(`${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`);
        return;
      }
    }
  }

  const server = await startFakeHttpServer(handle);

  return {
    url: server.url,
    get calls() {
      return server.requestsTo('/api/chat').length;
    },
    get embedCalls() {
      return server.requestsTo('/api/embed').length;
    },
    get requests() {
      return server.requests;
    },
    requestsTo: server.requestsTo,
    enqueue: (...replies) => {
      for (const reply of replies) (reply.kind === 'embed' ? embedQueue : chatQueue).push(reply);
    },
    enqueueEmbed: (...replies) => {
      embedQueue.push(...replies);
    },
    reset: () => {
      chatQueue = [];
      embedQueue = [];
      server.forgetRequests();
    },
    close: server.close,
  };
}

function describeModel(name: string) {
  const family = name.split(/[:.\d]/)[0] || 'llama';
  return {
    name: name.includes(':') ? name : `${name}:latest`,
    model: name.includes(':') ? name : `${name}:latest`,
    modified_at: '2026-11-01T10:00:00.000000000Z',
    size: 4683087332,
    digest: createHash('sha256').update(name).digest('hex'),
    details: { parent_model: '', format: 'gguf', family, families: [family], parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
  };
}

/** Stable, unit-length vectors: the same text always gets the same one. */
export function deterministicVector(text: string, dimensions: number): number[] {
  const out: number[] = [];
  let block = Buffer.alloc(0);
  for (let i = 0; out.length < dimensions; i++) {
    if (block.length === 0) block = createHash('sha256').update(`${i}:${text}`).digest();
    out.push(block.readInt8(0) / 128);
    block = block.subarray(1);
  }
  const norm = Math.sqrt(out.reduce((s, x) => s + x * x, 0)) || 1;
  return out.map((x) => x / norm);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
