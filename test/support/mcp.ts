import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { KURATE } from './cli.js';

/** An MCP client of the official SDK over Streamable HTTP, as a desktop client or an agent framework connects. */
export async function httpMcpClient(baseUrl: string, path: '/knowledge-mcp' | '/admin-mcp', token?: string): Promise<Client> {
  const client = new Client({ name: 'kurate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, baseUrl), {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
  });
  await client.connect(transport);
  return client;
}

/** The same client over stdio, through `bin/kurate mcp` (a child process relaying to the server). */
export async function stdioMcpClient(baseUrl: string, token: string | undefined, args: string[] = []): Promise<{ client: Client; stderr: () => string }> {
  const { KURATE_TOKEN: _ignored, ...env } = process.env as Record<string, string>;
  const transport = new StdioClientTransport({
    command: KURATE,
    args: ['mcp', ...args],
    env: { ...env, KURATE_URL: baseUrl, ...(token ? { KURATE_TOKEN: token } : {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'kurate-test-stdio', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const validator = new AjvJsonSchemaValidator();

/**
 * Calls a tool and checks its structured result against the output schema the server declared, with ajv (the SDK
 * client checks it too; this does not rely on that). Returns the structured content; throws on a tool error.
 */
export async function callValidated<T = Record<string, unknown>>(client: Client, tools: Tool[], name: string, args: Record<string, unknown> = {}): Promise<T> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`No tool ${name}`);
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  if (!tool.outputSchema) throw new Error(`${name} declares no output schema`);
  const check = validator.getValidator(tool.outputSchema)(result.structuredContent);
  if (!check.valid) throw new Error(`${name} answered outside its output schema: ${check.errorMessage}`);
  const text = result.content.find((c) => c.type === 'text');
  if (!text || JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(result.structuredContent)) throw new Error(`${name}: the text content is not the structured content`);
  return result.structuredContent as T;
}

/** A tool call expected to fail: its error text. */
export async function callFailing(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} was expected to fail but answered ${JSON.stringify(result.structuredContent)}`);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
