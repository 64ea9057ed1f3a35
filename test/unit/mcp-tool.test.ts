import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DomainErrorCode, DomainException } from '../../src/common/domain.exception.js';
import { defineTool, type ToolCallListener } from '../../src/mcp/mcp-tool.js';

/** A server with one tool whose `run` is given, and a client connected to it in memory (the SDK's own transport). */
async function serverWith(run: (args: { n: number }) => Promise<{ doubled: number }>, listener?: ToolCallListener) {
  const server = new McpServer({ name: 'test', version: '0.0.0' });
  defineTool(
    server,
    { name: 'double', title: 'Double', description: 'Doubles n.', input: { n: z.number().int() }, output: { doubled: z.number() }, effect: 'read' },
    run,
    listener,
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, close: () => Promise.all([client.close(), server.close()]) };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[])[0].text;

describe('defineTool: how a tool answers', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers structured content and the same JSON as text', async () => {
    const { client, close } = await serverWith(async ({ n }) => ({ doubled: n * 2 }));
    const result = await client.callTool({ name: 'double', arguments: { n: 21 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ doubled: 42 });
    expect(JSON.parse(textOf(result))).toEqual({ doubled: 42 });
    await close();
  });

  it('answers a call that succeeded as a success when its listener fails (the failure is logged, never shown), and tells the listener once', async () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let told = 0;
    const { client, close } = await serverWith(
      async ({ n }) => ({ doubled: n * 2 }),
      async () => {
        told++;
        throw new Error('invalid input syntax for type json');
      },
    );
    const result = await client.callTool({ name: 'double', arguments: { n: 4 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ doubled: 8 });
    expect(textOf(result)).not.toContain('invalid input syntax');
    expect(told).toBe(1);
    expect(String(logged.mock.calls[0]?.[0])).toContain('invalid input syntax for type json');
    await close();
  });

  it('turns an unexpected failure into an error with a correlation id, logged with the details, and tells the listener', async () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const calls: Parameters<ToolCallListener>[] = [];
    const { client, close } = await serverWith(
      async () => {
        throw new Error('connection to 10.0.0.7:5432 refused (password for kurate_admin)');
      },
      async (...call) => void calls.push(call),
    );
    const result = await client.callTool({ name: 'double', arguments: { n: 1 } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    const id = /internal error ([0-9a-f-]{36})/.exec(text)?.[1];
    expect(id, text).toBeDefined();
    expect(text).not.toMatch(/10\.0\.0\.7|kurate_admin|password|refused/);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0][0])).toContain(id!);
    expect(String(logged.mock.calls[0][0])).toContain('connection to 10.0.0.7:5432 refused');
    expect(calls).toEqual([['double', { n: 1 }, { ok: false, error: text }]]);
    await close();
  });

  it('says what was wrong when the failure is the caller’s (a DomainException), with its code and facts, and logs nothing', async () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { client, close } = await serverWith(async () => {
      throw new DomainException(DomainErrorCode.VersionConflict, 'The page changed since version 3.', { currentVersion: 4 });
    });
    const result = await client.callTool({ name: 'double', arguments: { n: 1 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('The page changed since version 3. {"code":"version_conflict","currentVersion":4}');
    expect(logged).not.toHaveBeenCalled();
    await close();
  });

  it('refuses arguments that do not fit the input schema before running the tool', async () => {
    const run = vi.fn(async ({ n }: { n: number }) => ({ doubled: n * 2 }));
    const { client, close } = await serverWith(run);
    const result = await client.callTool({ name: 'double', arguments: { n: 'two' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/n/);
    expect(run).not.toHaveBeenCalled();
    await close();
  });
});
