import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ClientRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';

/** The request schema of each method a client may call (`tools/call`, `initialize`, …), from the SDK. */
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/**
 * A request to a method the protocol knows whose `params` its schema rejects (a `tools/call` without `params`, or
 * whose `name` is not a string): what is wrong, for an Invalid params error. The SDK answers these with -32603
 * "Internal error", which says the server failed when the client's message did. Null when the request is fine (or
 * not one: a batch, a notification, an unknown method, which the SDK answers itself).
 */
export function invalidParams(body: unknown): { id: string | number; message: string } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id, method, params } = body as { id?: unknown; method?: unknown; params?: unknown };
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof method !== 'string') return null;
  const schema = REQUEST_SCHEMAS.get(method);
  if (!schema) return null;
  const parsed = schema.safeParse({ method, params });
  if (parsed.success) return null;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`);
  return { id, message: `Invalid params for ${method}: ${problems.join('; ')}` };
}

/**
 * Answers one MCP request the SDK's stateless way: a new server and transport per request (no session id, nothing
 * kept between calls), so that any app process can answer any call and a revoked token fails on its next call.
 * Replies are plain JSON, not an event stream: no tool here streams.
 */
export async function answerMcpRequest(request: Request, response: Response, server: McpServer): Promise<void> {
  // An empty batch is one Invalid Request error (JSON-RPC 2.0, "Batch"); the SDK answered it 202 with no body.
  if (Array.isArray(request.body) && request.body.length === 0) {
    response.status(400).json({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: the batch is empty.' } });
    return;
  }
  const invalid = invalidParams(request.body);
  if (invalid) {
    // A JSON-RPC error answers a request, as the SDK's own errors do (HTTP 200, the error in the body).
    response.status(200).json({ jsonrpc: '2.0', id: invalid.id, error: { code: ErrorCode.InvalidParams, message: invalid.message } });
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, request.body);
}

/** The address the client used (behind a trusted proxy, what it forwarded), for links back into the wiki. */
export function baseUrlOf(request: Request): string {
  return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}
