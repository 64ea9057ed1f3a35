import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from 'commander';
import { withExamples } from './help.js';
import { KurateClient } from './kurate-client.js';

/**
 * `kurate mcp`: the knowledge MCP server over stdio, for desktop clients that start a command. Like every other
 * command it is a client of the running server: it relays JSON-RPC messages between stdin/stdout and the server's
 * /knowledge-mcp (or /admin-mcp) with KURATE_TOKEN, so the tools, the policy and the reading rules are exactly the
 * server's, and the embedded database stays with the one server process.
 */
export function registerMcpCommand(program: Command): void {
  withExamples(program.command('mcp'), 'kurate mcp', 'kurate mcp --admin')
    .description('Serve the knowledge MCP tools over stdio (for desktop MCP clients), relayed to the server’s /knowledge-mcp.\nKURATE_URL says which server; KURATE_TOKEN (a read token, or an admin token with --admin) is sent with every call.')
    .option('--admin', 'serve the admin curation tools (/admin-mcp) instead; needs an admin token')
    .action(async (options: { admin?: boolean }) => {
      await relayStdio(KurateClient.fromEnvironment(), process.env.KURATE_TOKEN?.trim() || undefined, options.admin ? '/admin-mcp' : '/knowledge-mcp');
    });
}

/** Relays until stdin closes. A message the server cannot take gets a JSON-RPC error back, so the client never waits forever. */
export async function relayStdio(client: KurateClient, token: string | undefined, path: string): Promise<void> {
  const remote = new StreamableHTTPClientTransport(new URL(path, `${client.baseUrl}/`), {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
  });
  const local = new StdioServerTransport();
  const initializing = new Set<string | number>();

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializing.add(message.id);
    remote.send(message).catch((error: unknown) => {
      const text = `kurate mcp: ${client.baseUrl}${path} refused or could not be reached: ${error instanceof Error ? error.message : String(error)}`;
      if (isJSONRPCRequest(message)) void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: text } });
      else process.stderr.write(`${text}\n`);
    });
  };
  remote.onmessage = (message: JSONRPCMessage) => {
    // The protocol version the server chose goes on every later request, as the SDK's own client does.
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id) && typeof message.result.protocolVersion === 'string') {
      remote.setProtocolVersion(message.result.protocolVersion);
    }
    void local.send(message);
  };
  remote.onerror = (error: Error) => process.stderr.write(`kurate mcp: ${error.message}\n`);

  await remote.start();
  await local.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await remote.close();
  await local.close();
}
