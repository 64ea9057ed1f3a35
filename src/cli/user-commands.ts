import { Argument, Option, type Command } from 'commander';
import { withExamples } from './help.js';
import { CliError, KurateClient, ServerError } from './kurate-client.js';
import { readNewPassword } from './password-input.js';
import { formatColumns, shortTime } from './table.js';

/** The server's roles (src/auth/actor.ts), repeated here so that the CLI compiles without the server's modules. */
export const ROLES = ['reader', 'author', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A user as `/api/admin/users` answers it. */
export interface ApiUser {
  id: string;
  email: string;
  displayName: string;
  role: Role;
  /** `service`: a service account (its handle stands in `email`). */
  kind?: 'person' | 'service';
  disabled: boolean;
  disabledAt: string | null;
  createdAt: string;
  lastLoginAt: string | null;
}

interface UserList {
  items: ApiUser[];
  total: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The largest page the list endpoint serves.
const PER_PAGE = 500;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** `kurate user …`: accounts, through `/api/admin/users` with an admin's token. */
export function registerUserCommands(program: Command): void {
  const client = () => KurateClient.fromEnvironment(process.env, { needsAdmin: true });

  const user = withExamples(
    program.command('user').description("Manage accounts: create, list, change roles, disable, reset passwords (needs an admin's API token in KURATE_TOKEN)."),
    'kurate user list',
    'kurate user create ada@example.org --role author --name "Ada Lovelace"',
  );

  withExamples(
    user
      .command('create')
      .summary('create an account (password from stdin or a prompt)')
      .description(
        'Create an account. The password comes from stdin with --password-stdin; otherwise it is asked for at the terminal (twice, not shown). ' +
          'It is never taken from the command line.',
      )
      .argument('<email>', 'the login email (unique, case-insensitively)')
      .addOption(new Option('--role <role>', 'what the user may do').choices(ROLES).makeOptionMandatory())
      .option('--name <name>', 'display name, recorded as the author of revisions (default: the part of the email before the @)')
      .option('--password-stdin', 'read the password from stdin (one line; its line break is dropped)'),
    'kurate user create ada@example.org --role author --name "Ada Lovelace"',
    `printf '%s\\n' "$PASSWORD" | kurate user create bob@example.org --role reader --password-stdin`,
  ).action(async (email: string, options: { role: Role; name?: string; passwordStdin?: boolean }) => {
    const api = client();
    // Before asking for a password: is the server there, and may this token manage users?
    await api.get<UserList>('/api/admin/users', { perPage: 1 });
    const password = await readNewPassword({ fromStdin: options.passwordStdin === true, prompt: `Password for ${email}` });
    const created = await api.post<ApiUser>('/api/admin/users', { email, displayName: options.name ?? defaultName(email), password, role: options.role });
    console.log(`Created ${created.email} ("${created.displayName}", ${created.role}), id ${created.id}.`);
  });

  withExamples(
    user
      .command('list')
      .summary('list accounts')
      .description('List every account: id, email, name, role, whether it is disabled, and when it was created (UTC).')
      .option('--json', 'print JSON: { items, total }, each item as GET /api/admin/users/<id> answers it'),
    'kurate user list',
    'kurate user list --json',
  ).action(async (options: { json?: boolean }) => {
    const users = await allUsers(client());
    if (options.json) console.log(JSON.stringify({ items: users, total: users.length }, null, 2));
    else console.log(formatUsers(users));
  });

  withExamples(
    user
      .command('set-role')
      .summary("change a user's role")
      .description("Change a user's role. The last enabled admin cannot stop being one.")
      .argument('<user>', 'email or id')
      .addArgument(new Argument('<role>', 'the new role').choices(ROLES)),
    'kurate user set-role ada@example.org admin',
  ).action(async (ref: string, role: Role) => {
    const api = client();
    const before = await resolveUser(api, ref);
    if (before.role === role) {
      console.log(`${before.email} is already ${withArticle(role)}.`);
      return;
    }
    const after = await api.put<ApiUser>(`/api/admin/users/${before.id}/role`, { role });
    console.log(`${after.email} is now ${withArticle(after.role)} (was ${withArticle(before.role)}).`);
  });

  withExamples(
    user
      .command('disable')
      .summary('disable an account: sessions end, tokens stop working')
      .description('Disable an account: its sessions end and its API tokens stop working. The last enabled admin cannot be disabled.')
      .argument('<user>', 'email or id'),
    'kurate user disable bob@example.org',
  ).action(async (ref: string) => {
    const api = client();
    const before = await resolveUser(api, ref);
    if (before.disabled) {
      console.log(`${before.email} was already disabled.`);
      return;
    }
    const after = await api.post<ApiUser>(`/api/admin/users/${before.id}/disable`, {});
    console.log(`Disabled ${after.email}: their sessions have ended and their API tokens no longer work.`);
  });

  withExamples(
    user
      .command('enable')
      .summary('enable a disabled account')
      .description('Enable a disabled account again (its API tokens work again, unless revoked or expired).')
      .argument('<user>', 'email or id'),
    'kurate user enable bob@example.org',
  ).action(async (ref: string) => {
    const api = client();
    const before = await resolveUser(api, ref);
    if (!before.disabled) {
      console.log(`${before.email} is not disabled.`);
      return;
    }
    const after = await api.post<ApiUser>(`/api/admin/users/${before.id}/enable`, {});
    console.log(`Enabled ${after.email}.`);
  });

  withExamples(
    user
      .command('reset-password')
      .summary('set a new password for a user')
      .description(
        "Set a new password for a user; their open sessions end. The password comes from stdin with --password-stdin, or is asked for at the terminal. " +
          'Their API tokens keep working: revoke them with `kurate token revoke` if they may be compromised.',
      )
      .argument('<user>', 'email or id')
      .option('--password-stdin', 'read the new password from stdin (one line; its line break is dropped)'),
    'kurate user reset-password bob@example.org',
    `printf '%s\\n' "$NEW_PASSWORD" | kurate user reset-password bob@example.org --password-stdin`,
  ).action(async (ref: string, options: { passwordStdin?: boolean }) => {
    const api = client();
    const target = await resolveUser(api, ref);
    const password = await readNewPassword({ fromStdin: options.passwordStdin === true, prompt: `New password for ${target.email}` });
    const after = await api.put<ApiUser>(`/api/admin/users/${target.id}/password`, { password });
    console.log(`Set a new password for ${after.email}; their sessions have ended.`);
  });
}

/** A user by id, or by email (looked up in the list: the API has no lookup by email). */
export async function resolveUser(client: KurateClient, ref: string): Promise<ApiUser> {
  const wanted = ref.trim();
  if (isUuid(wanted)) {
    try {
      return await client.get<ApiUser>(`/api/admin/users/${wanted}`);
    } catch (error) {
      if (error instanceof ServerError && error.code === 'not_found') throw new CliError(`There is no user with the id ${wanted}.`);
      throw error;
    }
  }
  if (!wanted.includes('@')) throw new CliError(`"${ref}" is neither an email nor a user id (kurate user list shows both).`);
  const email = wanted.toLowerCase();
  for await (const user of eachUser(client)) if (user.email.toLowerCase() === email) return user;
  throw new CliError(`There is no user with the email ${wanted}.`);
}

async function allUsers(client: KurateClient): Promise<ApiUser[]> {
  const users: ApiUser[] = [];
  for await (const user of eachUser(client)) users.push(user);
  return users;
}

/** Every user, oldest first, following the list's pagination. */
async function* eachUser(client: KurateClient): AsyncGenerator<ApiUser> {
  let seen = 0;
  for (let page = 1; ; page++) {
    const list = await client.get<UserList>('/api/admin/users', { page, perPage: PER_PAGE });
    yield* list.items;
    seen += list.items.length;
    if (list.items.length < PER_PAGE || seen >= list.total) return;
  }
}

function formatUsers(users: ApiUser[]): string {
  if (users.length === 0) return 'No users.';
  return formatColumns(
    ['ID', 'EMAIL', 'NAME', 'ROLE', 'DISABLED', 'CREATED'],
    users.map((u) => [u.id, u.email, u.displayName, u.role, u.disabled ? 'yes' : 'no', shortTime(u.createdAt)]),
  );
}

function defaultName(email: string): string {
  const at = email.lastIndexOf('@');
  return (at > 0 ? email.slice(0, at) : email).trim();
}

function withArticle(role: Role): string {
  return `${role === 'reader' ? 'a' : 'an'} ${role}`;
}
