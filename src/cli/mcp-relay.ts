// The relay behind `kurate mcp` (src/cli/mcp-command.ts), in a module of its own so that only that command loads the
// MCP SDK.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { KurateClient } from './kurate-client.js';

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
