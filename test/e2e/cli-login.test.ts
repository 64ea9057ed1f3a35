// @module-tag slow (runs bin/kurate processes): `npm run test:fast` leaves it out; docs/testing.md
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, HAS_SCRIPT, kurate, kurateAtTerminal, type CliTarget } from '../support/cli.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

interface Credentials {
  servers: Record<string, { token: string; tokenId: string; email: string; scopes: string[]; expiresAt: string | null }>;
}

describe('kurate login, logout, service-account and token create --for', () => {
  let t: TestApp;
  let author: TestUser;
  let admin: TestUser;
  const homes: string[] = [];
  /** A fresh XDG_CONFIG_HOME: each test logs in from a clean machine. */
  const freshHome = () => {
    const home = mkdtempSync(path.join(tmpdir(), 'kurate-cli-config-'));
    homes.push(home);
    return home;
  };
  const credentialsFile = (home: string) => path.join(home, 'kurate', 'credentials.json');
  const readCredentials = (home: string) => JSON.parse(readFileSync(credentialsFile(home), 'utf8')) as Credentials;
  const tokenStatus = async (id: string) => ((await t.dataSource.query(`SELECT revoked_at FROM api_tokens WHERE id = $1`, [id])) as { revoked_at: Date | null }[])[0];

  beforeAll(async () => {
    await ensureCliBuilt();
    t = await startTestApp({ listen: true, env: { KURATE_LOGIN_MAX_ATTEMPTS: '3' } });
    [author, admin] = await Promise.all([t.user('author'), t.user('admin')]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  it('logs in with --password-stdin, saves the token with mode 0600, and later commands use it without KURATE_TOKEN', async () => {
    const configHome = freshHome();
    const target: CliTarget = { baseUrl: t.baseUrl!, configHome };
    const login = await kurate({ ...target, input: `${author.password}\n` }, 'login', author.email, '--password-stdin');
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(new RegExp(`^Logged in to ${t.baseUrl!.replace(/\./g, '\\.')} as ${author.email.replace('.', '\\.')} \\(scope write, until \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\)\\. Token saved in ${credentialsFile(configHome).replace(/\./g, '\\.')}\\.\\n$`));
    expect(statSync(credentialsFile(configHome)).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(credentialsFile(configHome))).mode & 0o777).toBe(0o700);
    const saved = readCredentials(configHome).servers[t.baseUrl!];
    expect(saved).toMatchObject({ email: author.email, scopes: ['write'], token: expect.stringMatching(/^kur_/) });
    // 90 days by default.
    expect(Math.round((new Date(saved.expiresAt!).getTime() - Date.now()) / 86_400_000)).toBe(90);

    const list = await kurate(target, 'token', 'list', '--json');
    expect(list.code).toBe(0);
    const items = (JSON.parse(list.stdout) as { items: { id: string; name: string; status: string }[] }).items;
    expect(items.find((i) => i.id === saved.tokenId)).toMatchObject({ name: expect.stringMatching(/^kurate login on /), status: 'active' });
    // KURATE_TOKEN wins over the saved login.
    const asAdmin = await kurate({ ...target, token: admin.token }, 'user', 'list');
    expect(asAdmin.code).toBe(0);
    const asSaved = await kurate(target, 'user', 'list');
    expect(asSaved.code).toBe(1);

    // Logging in again replaces the saved token and revokes the old one.
    const again = await kurate({ ...target, input: `${author.password}\n` }, 'login', author.email, '--password-stdin', '--scope', 'read', '--expires-in-days', '7');
    expect(again.code).toBe(0);
    const replaced = readCredentials(configHome).servers[t.baseUrl!];
    expect(replaced.tokenId).not.toBe(saved.tokenId);
    expect(replaced.scopes).toEqual(['read']);
    expect((await tokenStatus(saved.tokenId)).revoked_at).not.toBeNull();

    // Logout revokes the token and removes the file; a second logout has nothing to do.
    const logout = await kurate(target, 'logout');
    expect(logout).toMatchObject({ code: 0, stderr: '' });
    expect(logout.stdout).toBe(`Logged out of ${t.baseUrl} (${author.email}): revoked its token, and removed it from ${credentialsFile(configHome)}.\n`);
    expect((await tokenStatus(replaced.tokenId)).revoked_at).not.toBeNull();
    await t.http.get('/api/tokens').set('Authorization', `Bearer ${replaced.token}`).expect(401);
    expect(() => statSync(credentialsFile(configHome))).toThrow();
    expect((await kurate(target, 'logout')).stdout).toBe(`Not logged in to ${t.baseUrl} (nothing saved in ${credentialsFile(configHome)}).\n`);
    const anonymous = await kurate(target, 'token', 'list');
    expect(anonymous.stderr).toBe('kurate: Log in to continue. Run kurate login, or set KURATE_TOKEN to an API token.\n');
  });

  it('refuses a wrong password (nothing saved), counts it towards the lockout, and needs a password source', async () => {
    const configHome = freshHome();
    const target: CliTarget = { baseUrl: t.baseUrl!, configHome };
    const victim = await t.user('reader', { name: 'cli victim' });
    const wrong = await kurate({ ...target, input: 'not-the-password\n' }, 'login', victim.email, '--password-stdin');
    expect(wrong).toMatchObject({ code: 1, stdout: '', stderr: 'kurate: Email or password is wrong.\n' });
    expect(() => statSync(credentialsFile(configHome))).toThrow();
    await kurate({ ...target, input: 'wrong-again\n' }, 'login', victim.email, '--password-stdin');
    const locked = await kurate({ ...target, input: 'wrong-thrice\n' }, 'login', victim.email, '--password-stdin');
    expect(locked.stderr).toMatch(/^kurate: Too many failed logins for this account\. Try again after /);

    const noPassword = await kurate(target, 'login', victim.email);
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/^kurate: No password: stdin is not a terminal to prompt at\./);
    const noEmail = await kurate({ ...target, input: 'x\n' }, 'login', '--password-stdin');
    expect(noEmail).toMatchObject({ code: 1, stderr: 'kurate: Give your email: kurate login <email>.\n' });
  });

  it('tells the user to log in again when the saved token has expired, and logout still forgets it', async () => {
    const configHome = freshHome();
    const target: CliTarget = { baseUrl: t.baseUrl!, configHome };
    expect((await kurate({ ...target, input: `${author.password}\n` }, 'login', author.email, '--password-stdin')).code).toBe(0);
    const saved = readCredentials(configHome).servers[t.baseUrl!];
    await t.dataSource.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [saved.tokenId]);
    const refused = await kurate(target, 'token', 'list');
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toMatch(/The login saved by kurate login was refused \(expired or revoked\): run kurate login again\.\n$/);
    const logout = await kurate(target, 'logout');
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain('its token was already expired or revoked');
    expect(() => statSync(credentialsFile(configHome))).toThrow();
  });

  it.skipIf(!HAS_SCRIPT)('prompts for the email and the password at a terminal, without echoing the password', async () => {
    const configHome = freshHome();
    const run = await kurateAtTerminal({ baseUrl: t.baseUrl!, configHome }, ['login'], [
      // readline moves the cursor after its prompt (an escape sequence), so the prompt is not the last thing shown.
      { prompt: /Email for \S+: /, answer: author.email },
      { prompt: /Password for .* at .*: $/, answer: author.password },
    ]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(`Logged in to ${t.baseUrl} as ${author.email}`);
    expect(run.stdout).not.toContain(author.password);
    expect(statSync(credentialsFile(configHome)).mode & 0o777).toBe(0o600);
  });

  it('creates service accounts and their scoped, expiring tokens from the shell (admins only)', async () => {
    const asAdmin: CliTarget = { baseUrl: t.baseUrl!, token: admin.token };
    const created = await kurate(asAdmin, 'service-account', 'create', 'prometheus', '--role', 'reader', '--description', 'scrapes /metrics');
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^Created service account prometheus \(reader\), id [0-9a-f-]{36}\. Make it a token: kurate token create --for prometheus --name <name>\.\n$/);
    const list = await kurate(asAdmin, 'service-account', 'list');
    expect(list.stdout).toMatch(/^ID +NAME +ROLE +DISABLED +DESCRIPTION +CREATED\n[0-9a-f-]{36} +prometheus +reader +no +scrapes \/metrics +\d{4}-/);

    const token = await kurate(asAdmin, 'token', 'create', '--for', 'prometheus', '--name', 'scraper', '--scope', 'metrics', '--expires-in-days', '30');
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^kur_[A-Za-z0-9_-]{43}\n$/);
    expect(token.stderr).toMatch(/^Created token "scraper" for prometheus \(id [0-9a-f-]{36}, scope metrics, expires \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\):\n/);
    const tokens = await kurate(asAdmin, 'token', 'list', '--for', 'prometheus', '--json');
    const items = (JSON.parse(tokens.stdout) as { items: { name: string; scopes: string[]; status: string; expiresAt: string }[] }).items;
    expect(items).toEqual([expect.objectContaining({ name: 'scraper', scopes: ['metrics'], status: 'active' })]);

    const above = await kurate(asAdmin, 'token', 'create', '--for', 'prometheus', '--name', 'x', '--scope', 'write');
    expect(above).toMatchObject({ code: 1, stderr: 'kurate: prometheus is a reader: its tokens cannot have the write scope.\n' });
    const byAuthor = await kurate({ baseUrl: t.baseUrl!, token: author.token }, 'service-account', 'create', 'sneaky', '--role', 'reader');
    expect(byAuthor.code).toBe(1);
    expect(byAuthor.stderr).toMatch(/Set KURATE_TOKEN to an admin's API token/);
    const unknown = await kurate(asAdmin, 'token', 'create', '--for', 'nobody', '--name', 'x');
    expect(unknown).toMatchObject({ code: 1, stderr: 'kurate: There is no service account nobody.\n' });
  });

  it('gives the new commands --help with an example', async () => {
    for (const command of [['login'], ['logout'], ['service-account'], ['service-account', 'create'], ['service-account', 'list']]) {
      const help = await kurate({ baseUrl: 'http://127.0.0.1:1' }, ...command, '--help');
      expect(help.code, command.join(' ')).toBe(0);
      expect(help.stdout, command.join(' ')).toMatch(new RegExp(`\\nExamples?:\\n {2}\\$ kurate ${command.join(' ')}`));
    }
  });
});
