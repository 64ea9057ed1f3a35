// A local HTTP server that speaks Anthropic's Messages API (POST /v1/messages, non-streamed) closely enough for
// the real `@anthropic-ai/sdk`: authentication, `anthropic-version`, the Message object with `tool_use` content,
// and errors as Anthropic sends them (`{"type":"error","error":{"type":…,"message":…}}`, `retry-after` on 429,
// `api_error` 500, `overloaded_error` 529). Scripted per test with a queue of replies; counts calls and records
// every request.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startFakeHttpServer, type RecordedRequest } from './fake-http.js';

export type { RecordedRequest } from './fake-http.js';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export type FakeAnthropicReply =
  /** The model calls the requested tool with this input (the API hands tool input over as a parsed object). */
  | { kind: 'tool'; input: unknown; stopReason?: 'tool_use' | 'max_tokens'; model?: string }
  /** The model answers in prose instead of calling the tool. */
  | { kind: 'text'; text: string; stopReason?: 'end_turn' | 'max_tokens' | 'refusal' }
  /** An error as the API sends it; `retryAfter` (seconds) becomes the `retry-after` header. */
  | { kind: 'error'; status: number; type: AnthropicErrorType; message?: string; retryAfter?: number; headers?: Record<string, string> }
  /** Any status, body and headers (a gateway's HTML page, a body that is not JSON…). */
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  /** No answer for `ms` (default: until the client gives up or the server closes), then the next reply. */
  | { kind: 'hang'; ms?: number; then?: FakeAnthropicReply }
  /** The connection is cut without an answer. */
  | { kind: 'drop' };

export interface FakeAnthropicOptions {
  /** The key the server accepts (as `x-api-key` or `Authorization: Bearer`); default: any non-empty key. */
  apiKey?: string;
  /** The answer when the queue is empty. Default: the requested tool with no entities and no relations. */
  respond?: (request: RecordedRequest) => FakeAnthropicReply;
}

export interface FakeAnthropic {
  /** Base URL, for ANTHROPIC_BASE_URL (the SDK appends /v1/messages). */
  url: string;
  /** Extraction calls: requests to /v1/messages. */
  readonly calls: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  requestsTo(path: string): RecordedRequest[];
  /** Replies for the next requests to /v1/messages, in order (each is used once). */
  enqueue(...replies: FakeAnthropicReply[]): void;
  /** Forget the queue, the count and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_ERROR_MESSAGES: Record<AnthropicErrorType, string> = {
  invalid_request_error: 'There was an issue with the format or content of your request.',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low to access the Anthropic API.',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'The requested resource could not be found.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  timeout_error: 'Request timed out',
  overloaded_error: 'Overloaded',
};

/** The chunk text inside a request built by src/extractors/extraction-prompt.ts (between <chunk> tags). */
export function chunkTextOfAnthropicRequest(request: RecordedRequest): string {
  const message = (request.body?.messages ?? []).find((m: { role: string }) => m.role === 'user');
  const content = typeof message?.content === 'string' ? message.content : (message?.content ?? []).map((b: { text?: string }) => b.text ?? '').join('');
  return /<chunk>\n([\s\S]*)\n<\/chunk>/.exec(content)?.[1] ?? '';
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  let queue: FakeAnthropicReply[] = [];

  async function handle(recorded: RecordedRequest, res: ServerResponse, badJson: boolean): Promise<void> {
    const { method, path, headers, body } = recorded;
    if (method !== 'POST' || path !== '/v1/messages') return sendError(res, 404, 'not_found_error', `Not found: ${method} ${path}`);
    const key = headers['x-api-key'] ?? /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (!key) return sendError(res, 401, 'authentication_error', 'x-api-key header is required');
    if (options.apiKey !== undefined && key !== options.apiKey) return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
    if (!headers['anthropic-version']) return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (badJson) return sendError(res, 400, 'invalid_request_error', 'There was an issue with the format or content of your request.');
    for (const field of ['model', 'max_tokens', 'messages']) {
      if (body?.[field] === undefined) return sendError(res, 400, 'invalid_request_error', `${field}: Field required`);
    }
    if (body.stream === true) return sendError(res, 400, 'invalid_request_error', 'fake-anthropic: streaming is not implemented');
    const reply = queue.shift() ?? options.respond?.(recorded) ?? defaultReply(recorded);
    await answer(res, recorded, reply);
  }

  async function answer(res: ServerResponse, request: RecordedRequest, reply: FakeAnthropicReply): Promise<void> {
    switch (reply.kind) {
      case 'hang': {
        if (reply.ms === undefined) return;
        await server.pause(reply.ms);
        if (res.destroyed || res.writableEnded) return;
        return answer(res, request, reply.then ?? options.respond?.(request) ?? defaultReply(request));
      }
      case 'drop':
        res.socket?.destroy();
        return;
      case 'raw':
        res.writeHead(reply.status, { 'Content-Type': 'text/html; charset=utf-8', ...reply.headers });
        res.end(reply.body);
        return;
      case 'error': {
        const headers: Record<string, string> = { ...reply.headers };
        if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
        if (reply.status === 429) {
          headers['anthropic-ratelimit-requests-limit'] ??= '50';
          headers['anthropic-ratelimit-requests-remaining'] ??= '0';
        }
        return sendError(res, reply.status, reply.type, reply.message ?? DEFAULT_ERROR_MESSAGES[reply.type], headers);
      }
      case 'tool':
      case 'text': {
        const toolName = request.body?.tool_choice?.name ?? request.body?.tools?.[0]?.name ?? 'tool';
        const content =
          reply.kind === 'tool'
            ? [{ type: 'tool_use', id: `toolu_${id()}`, name: toolName, input: reply.input }]
            : [{ type: 'text', text: reply.text }];
        const stopReason = reply.stopReason ?? (reply.kind === 'tool' ? 'tool_use' : 'end_turn');
        return sendJson(res, 200, {
          id: `msg_${id()}`,
          type: 'message',
          role: 'assistant',
          model: (reply.kind === 'tool' ? reply.model : undefined) ?? request.body.model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: {
            input_tokens: Math.ceil(JSON.stringify(request.body.messages).length / 4),
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: Math.ceil(JSON.stringify(content).length / 4),
            service_tier: 'standard',
          },
        });
      }
    }
  }

  const server = await startFakeHttpServer(handle);

  return {
    url: server.url,
    get calls() {
      return server.requestsTo('/v1/messages').length;
    },
    get requests() {
      return server.requests;
    },
    requestsTo: server.requestsTo,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    reset: () => {
      queue = [];
      server.forgetRequests();
    },
    close: server.close,
  };
}

function defaultReply(_request: RecordedRequest): FakeAnthropicReply {
  return { kind: 'tool', input: { entities: [], relations: [] } };
}

function id(): string {
  return randomBytes(12).toString('base64url');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', 'request-id': `req_${id()}`, ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, type: AnthropicErrorType, message: string, headers: Record<string, string> = {}): void {
  const requestId = `req_${id()}`;
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, { 'request-id': requestId, ...headers });
}
