import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';

/**
 * Answers one MCP request the SDK's stateless way: a new server and transport per request (no session id, nothing
 * kept between calls), so that any app process can answer any call and a revoked token fails on its next call.
 * Replies are plain JSON, not an event stream: no tool here streams.
 */
export async function answerMcpRequest(request: Request, response: Response, server: McpServer): Promise<void> {
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
