import { InvalidArgumentError, Option, type Command } from 'commander';
import { withExamples } from './help.js';
import { CliError, KurateClient } from './kurate-client.js';
import { formatColumns, shortTime } from './table.js';
import { isUuid } from './user-commands.js';

/** The server's token scopes (src/auth/api-token.entity.ts). */
export const TOKEN_SCOPES = ['read', 'write', 'admin', 'metrics'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A token as `/api/tokens` answers it (never the token itself). */
export interface ApiToken {
  id: string;
  name: string;
  prefix: string;
  scopes: TokenScope[];
  status: 'active' | 'expired' | 'revoked';
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  userId: string;
  userEmail: string;
}

interface CreatedToken extends ApiToken {
  token: string;
}

// The server refuses an expiry more than ten years (of 366 days) away.
const MAX_DAYS = 3660;
const DAY_MS = 86_400_000;

/** `kurate token …`: personal API tokens, through `/api/tokens`, for whoever KURATE_TOKEN belongs to. */
export function registerTokenCommands(program: Command): void {
  const client = (needsAdmin = false) => KurateClient.fromEnvironment(process.env, { needsAdmin });

  const token = withExamples(
    program.command('token').description("Personal API tokens: create, list, revoke. They act as KURATE_TOKEN's owner; --all and other users' tokens need an admin."),
    'kurate token create --name "laptop" --scope write --expires-in-days 90',
    'kurate token list',
  );

  withExamples(
    token
      .command('create')
      .summary('create an API token, shown once')
      .description(
        'Create an API token for the owner of KURATE_TOKEN and print it, this once: only its hash is stored. ' +
          'The token alone goes to stdout, the notes around it to stderr, so that $(kurate token create …) captures just the token.',
      )
      .requiredOption('--name <name>', 'tells your tokens apart, e.g. "laptop CLI"')
      .addOption(
        new Option(
          '--scope <scope>',
          'read: what a reader may do; write: also what an author may; admin: also what an admin may (never more than the role); metrics: may also scrape /metrics (admins grant it). Default: read; with --for, all the account’s role may',
        ).choices(TOKEN_SCOPES),
      )
      .option('--for <service-account>', "make it for this service account (its name or id; needs an admin's token)")
      .option('--expires-in-days <n>', `the token stops working after n days (1 to ${MAX_DAYS}); default: it never expires`, parseDays)
      .option('--json', 'print the token and its details as JSON'),
    'kurate token create --name "laptop" --scope write --expires-in-days 90',
    'export KURATE_TOKEN="$(kurate token create --name ci --scope read --expires-in-days 30)"',
    'kurate token create --for prometheus --name scraper --scope metrics --expires-in-days 365',
  ).action(async (options: { name: string; scope?: TokenScope; for?: string; expiresInDays?: number; json?: boolean }) => {
    const expiresAt = options.expiresInDays === undefined ? undefined : new Date(Date.now() + options.expiresInDays * DAY_MS).toISOString();
    const created = options.for
      ? await client(true).post<CreatedToken>(`/api/admin/service-accounts/${encodeURIComponent(options.for.trim())}/tokens`, {
          name: options.name,
          scopes: options.scope ? [options.scope] : undefined,
          expiresAt,
        })
      : await client().post<CreatedToken>('/api/tokens', { name: options.name, scopes: [options.scope ?? 'read'], expiresAt });
    const expiry = created.expiresAt ? `expires ${shortTime(created.expiresAt)} UTC` : 'never expires';
    if (options.json) {
      console.log(JSON.stringify(created, null, 2));
    } else {
      console.error(`Created token "${created.name}" for ${created.userEmail} (id ${created.id}, scope ${created.scopes.join(',')}, ${expiry}):`);
      console.log(created.token);
    }
    console.error('This is the only time the token is shown: copy it now, it cannot be shown again.');
  });

  withExamples(
    token
      .command('list')
      .summary("list your tokens (--all: everyone's)")
      .description('List your API tokens (never the tokens themselves, only their first characters); with --all, everyone\u2019s (admins only).')
      .option('--all', "every user's tokens (needs an admin's token)")
      .option('--for <service-account>', "this service account's tokens (needs an admin's token)")
      .option('--json', 'print JSON: { items }, as GET /api/tokens answers it'),
    'kurate token list',
    'kurate token list --all --json',
    'kurate token list --for prometheus',
  ).action(async (options: { all?: boolean; for?: string; json?: boolean }) => {
    const { items } = options.for
      ? await client(true).get<{ items: ApiToken[] }>(`/api/admin/service-accounts/${encodeURIComponent(options.for.trim())}/tokens`)
      : await client(options.all === true).get<{ items: ApiToken[] }>('/api/tokens', { all: options.all ? 'true' : undefined });
    console.log(options.json ? JSON.stringify({ items }, null, 2) : formatTokens(items, options.all === true));
  });

  withExamples(
    token
      .command('revoke')
      .summary('revoke a token at once')
      .description("Revoke an API token at once: yours, or (with an admin's token) anyone's.")
      .argument('<id>', 'the token id, as kurate token list shows it'),
    'kurate token revoke 0b7c9a4e-5d1f-4c3a-9e2b-7f6d5c4b3a21',
  ).action(async (id: string) => {
    if (!isUuid(id.trim())) throw new CliError(`"${id}" is not a token id: use the ID column of kurate token list.`);
    await client().delete(`/api/tokens/${id.trim()}`);
    console.log(`Revoked token ${id.trim()}: it no longer works.`);
  });
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new InvalidArgumentError(`Give a whole number of days from 1 to ${MAX_DAYS}.`);
  }
  return days;
}

function formatTokens(tokens: ApiToken[], withOwner: boolean): string {
  if (tokens.length === 0) return 'No tokens.';
  const header = ['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'];
  const rows = tokens.map((t) => [t.id, t.name, t.prefix, t.scopes.join(','), t.status, shortTime(t.createdAt), shortTime(t.expiresAt, 'never'), shortTime(t.lastUsedAt, 'never')]);
  if (!withOwner) return formatColumns(header, rows);
  return formatColumns([...header, 'USER'], rows.map((row, i) => [...row, tokens[i].userEmail]));
}
