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
      // The MCP SDK is loaded by this command only: every other command starts without it (about 0.1 s).
      const { relayStdio } = await import('./mcp-relay.js');
      await relayStdio(KurateClient.fromEnvironment(), process.env.KURATE_TOKEN?.trim() || undefined, options.admin ? '/admin-mcp' : '/knowledge-mcp');
    });
}

