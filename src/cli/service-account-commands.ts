import { Option, type Command } from 'commander';
import { withExamples } from './help.js';
import { KurateClient } from './kurate-client.js';
import { formatColumns, shortTime } from './table.js';
import { ROLES, type ApiUser, type Role } from './user-commands.js';

/** `kurate service-account …`: accounts for programs, through `/api/admin/service-accounts` with an admin's token. */
export function registerServiceAccountCommands(program: Command): void {
  const client = () => KurateClient.fromEnvironment(process.env, { needsAdmin: true });

  const serviceAccount = withExamples(
    program
      .command('service-account')
      .description("Accounts for programs (CI, importers, scrapers, agents): no password, only the tokens an admin makes with kurate token create --for (needs an admin's token)."),
    'kurate service-account create ci-bot --role author',
    'kurate service-account list',
  );

  withExamples(
    serviceAccount
      .command('create')
      .summary('create a service account')
      .description('Create a service account: it cannot log in, and acts only through its tokens, never above its role. Then: kurate token create --for <name>.')
      .argument('<name>', "its handle: lower-case letters, digits, '.', '_' and '-'")
      .addOption(new Option('--role <role>', 'the most its tokens may do').choices(ROLES).makeOptionMandatory())
      .option('--description <text>', 'what it is for'),
    'kurate service-account create prometheus --role reader --description "scrapes /metrics"',
  ).action(async (name: string, options: { role: Role; description?: string }) => {
    const created = await client().post<ApiUser>('/api/admin/service-accounts', { name, role: options.role, description: options.description });
    console.log(`Created service account ${created.email} (${created.role}), id ${created.id}. Make it a token: kurate token create --for ${created.email} --name <name>.`);
  });

  withExamples(
    serviceAccount
      .command('list')
      .summary('list service accounts')
      .description('List the service accounts: id, name, role, whether disabled, what for, created (UTC).')
      .option('--json', 'print JSON: { items }'),
    'kurate service-account list --json',
  ).action(async (options: { json?: boolean }) => {
    const { items } = await client().get<{ items: ApiUser[] }>('/api/admin/service-accounts');
    if (options.json) console.log(JSON.stringify({ items }, null, 2));
    else if (items.length === 0) console.log('No service accounts.');
    else {
      console.log(
        formatColumns(
          ['ID', 'NAME', 'ROLE', 'DISABLED', 'DESCRIPTION', 'CREATED'],
          items.map((a) => [a.id, a.email, a.role, a.disabled ? 'yes' : 'no', a.displayName === a.email ? '' : a.displayName, shortTime(a.createdAt)]),
        ),
      );
    }
  });
}
