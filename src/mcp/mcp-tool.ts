import { Logger } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';

/** One tool: its name, what a model needs to know to use it, its input and output shapes, and whether it writes. */
export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Read-only tools never change anything; the others say whether they may destroy (delete, reject, purge). */
  effect: 'read' | 'write' | 'destructive';
}

export type ToolOutput<O extends z.ZodRawShape> = z.input<z.ZodObject<O>>;

/** Told after every call (the admin server audits them). */
export type ToolCallListener = (tool: string, args: Record<string, unknown>, outcome: { ok: boolean; error?: string }) => Promise<void>;

const logger = new Logger('MCP');

/**
 * Registers a tool whose answer is both structured content (checked against `output` by the SDK, and by clients
 * against the published JSON schema) and the same JSON as text, for clients that read only text. A DomainException
 * (a user's mistake: not found, invalid, conflict) becomes a tool error that says what was wrong; anything else is
 * logged with a correlation id and answered without internals. Bad arguments never reach `run`: the SDK refuses
 * them with the schema's message.
 */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  spec: ToolSpec<I, O>,
  run: (args: z.output<z.ZodObject<I>>) => Promise<ToolOutput<O>>,
  listener?: ToolCallListener,
): void {
  // The listener is told once, after the call's outcome is known; its own failure (an audit row that cannot be written)
  // is logged and never turns a call that changed the wiki into an error, nor leaks into the answer.
  const tell = async (args: Record<string, unknown>, outcome: { ok: boolean; error?: string }) => {
    try {
      await listener?.(spec.name, args, outcome);
    } catch (error) {
      logger.error(`MCP tool ${spec.name}: its call could not be recorded: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  };
  const callback = async (args: z.output<z.ZodObject<I>>): Promise<CallToolResult> => {
    let structured: Record<string, unknown>;
    try {
      // Through JSON once, so that dates become ISO strings and undefined fields disappear, as a client sees them.
      structured = JSON.parse(JSON.stringify(await run(args))) as Record<string, unknown>;
    } catch (error) {
      const message = toolErrorMessage(error);
      await tell(args, { ok: false, error: message });
      return { content: [{ type: 'text', text: message }], isError: true };
    }
    await tell(args, { ok: true });
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  };
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: {
        title: spec.title,
        readOnlyHint: spec.effect === 'read',
        destructiveHint: spec.effect === 'destructive',
        idempotentHint: spec.effect === 'read',
        openWorldHint: false,
      },
    },
    callback as never,
  );
}

/** What a tool error says: the domain message (with the facts a client needs, such as the current version), or an id to find the log line. */
export function toolErrorMessage(error: unknown): string {
  if (error instanceof DomainException) {
    const facts = Object.keys(error.details).length > 0 ? ` ${JSON.stringify({ code: error.code, ...error.details })}` : ` (${error.code})`;
    return `${error.message}${facts}`;
  }
  const correlationId = randomUUID();
  logger.error(`MCP tool failed (${correlationId}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return `Kurate could not complete this call (internal error ${correlationId}); the details are in the server log.`;
}

/** A user's mistake inside a tool, in the words the tool error will show. */
export function invalidArgument(message: string): DomainException {
  return new DomainException(DomainErrorCode.InvalidInput, message);
}
