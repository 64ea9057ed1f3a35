import { hostname } from 'node:os';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { credentialsPath, savedLogin, storeLogin } from './credentials.js';
import { withExamples } from './help.js';
import { CliError, KurateClient, ServerError } from './kurate-client.js';
import { promptLine, readPassword } from './password-input.js';
import { shortTime } from './table.js';
import { TOKEN_SCOPES, type ApiToken, type TokenScope } from './token-commands.js';

interface CreatedToken extends ApiToken {
  token: string;
}

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 90;
const MAX_DAYS = 3660;

/** `kurate login` and `kurate logout`: a personal token from an email and a password, kept in the user's config folder. */
export function registerLoginCommands(program: Command): void {
  withExamples(
    program
      .command('login')
      .summary('log in with your email and password: a personal token, saved for this server')
      .description(
        'Log in to the server in KURATE_URL with your email and password: the server makes a personal API token, which is saved ' +
          `in ${credentialsPath().replace(process.env.HOME ?? '\0', '~')} (mode 0600) and used by every later command while KURATE_TOKEN is unset. ` +
          'The password is asked for at the terminal (not shown), or read from stdin with --password-stdin; it is never taken from the command line. ' +
          'Failed attempts count towards the account’s lockout, as on the login form.',
      )
      .argument('[email]', 'your login email (asked for when omitted)')
      .option('--password-stdin', 'read the password from stdin (one line; its line break is dropped)')
      .addOption(new Option('--scope <scope>', 'what the token may do (default: all your role may)').choices(TOKEN_SCOPES))
      .option('--expires-in-days <n>', `the token stops working after n days (1 to ${MAX_DAYS})`, parseDays, DEFAULT_DAYS),
    'kurate login ada@example.org',
    `printf '%s\\n' "$PASSWORD" | KURATE_URL=https://wiki.example.org kurate login ada@example.org --password-stdin`,
  ).action(async (emailArgument: string | undefined, options: { passwordStdin?: boolean; scope?: TokenScope; expiresInDays: number }) => {
    const anonymous = KurateClient.fromEnvironment({ ...process.env, KURATE_TOKEN: '' }, { login: true }).withToken(undefined);
    let email = emailArgument?.trim() ?? '';
    if (!email) {
      if (process.stdin.isTTY !== true || options.passwordStdin) throw new CliError('Give your email: kurate login <email>.');
      email = await promptLine(`Email for ${anonymous.baseUrl}: `);
      if (!email) throw new CliError('No email entered.');
    }
    const password = await readPassword({ fromStdin: options.passwordStdin === true, prompt: `Password for ${email} at ${anonymous.baseUrl}` });
    const created = await anonymous.post<CreatedToken>('/api/auth/login-token', {
      email,
      password,
      name: `kurate login on ${hostname()}`.slice(0, 100),
      scopes: options.scope ? [options.scope] : undefined,
      expiresAt: new Date(Date.now() + options.expiresInDays * DAY_MS).toISOString(),
    });
    const previous = savedLogin(anonymous.baseUrl);
    const file = storeLogin(anonymous.baseUrl, {
      token: created.token,
      tokenId: created.id,
      email: created.userEmail,
      scopes: created.scopes,
      expiresAt: created.expiresAt,
      createdAt: created.createdAt,
    });
    // Logging in again replaces the saved token: the old one should not live on unused. It revokes itself, which any
    // token may (a token scoped below its owner's role may revoke no other, and the old login may be another user's).
    if (previous && previous.tokenId !== created.id) await anonymous.withToken(previous.token).delete(`/api/tokens/${previous.tokenId}`).catch(() => undefined);
    const expiry = created.expiresAt ? `until ${shortTime(created.expiresAt)} UTC` : 'with no expiry';
    console.log(`Logged in to ${anonymous.baseUrl} as ${created.userEmail} (scope ${created.scopes.join(',')}, ${expiry}). Token saved in ${file}.`);
    if (process.env.KURATE_TOKEN?.trim()) console.error('Note: KURATE_TOKEN is set, and wins over the saved login until you unset it.');
  });

  withExamples(
    program
      .command('logout')
      .summary('revoke the token kurate login saved for this server, and forget it')
      .description('Revoke the token that kurate login saved for the server in KURATE_URL, and remove it from the credentials file.'),
    'kurate logout',
  ).action(async () => {
    const base = KurateClient.fromEnvironment({ ...process.env, KURATE_TOKEN: '' });
    const saved = savedLogin(base.baseUrl);
    if (!saved) {
      console.log(`Not logged in to ${base.baseUrl} (nothing saved in ${credentialsPath()}).`);
      return;
    }
    let note = 'revoked its token';
    try {
      await base.withToken(saved.token).delete(`/api/tokens/${saved.tokenId}`);
    } catch (error) {
      // Already expired or revoked (401), or gone: forgetting it is all that is left to do.
      if (!(error instanceof ServerError) || ![401, 404].includes(error.status)) throw error;
      note = 'its token was already expired or revoked';
    }
    storeLogin(base.baseUrl, null);
    console.log(`Logged out of ${base.baseUrl} (${saved.email}): ${note}, and removed it from ${credentialsPath()}.`);
  });
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new InvalidArgumentError(`Give a whole number of days from 1 to ${MAX_DAYS}.`);
  }
  return days;
}
