// @module-tag slow (runs bin/kurate processes): `npm run test:fast` leaves it out; docs/testing.md
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, ensureCliBuilt, HAS_SCRIPT, kurate, kurateAtTerminal, type CliRun, type CliTarget } from '../support/cli.js';
import { csrfTokenIn, someIp, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

interface ApiUser {
  id: string;
  email: string;
  displayName: string;
  role: string;
  disabled: boolean;
}

interface ApiToken {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: string;
  expiresAt: string | null;
  userEmail: string;
}

describe('bin/kurate user and token commands against a running server', () => {
  let t: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  let asAdmin: CliTarget;

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const adminApi = () => ({
    get: (path: string) => t.http.get(path).set(bearer(admin.token)),
  });
  const usersByEmail = async (): Promise<Map<string, ApiUser>> => {
    const { body } = await adminApi().get('/api/admin/users?perPage=500').expect(200);
    return new Map((body.items as ApiUser[]).map((u) => [u.email, u]));
  };
  const userNamed = async (email: string) => (await usersByEmail()).get(email);
  /** Logs in through the real /login form; the status of the POST (303 on success, 401 on a wrong password). */
  const loginStatus = async (email: string, password: string): Promise<number> => {
    const agent = supertest.agent(t.app.getHttpServer());
    const form = await agent.get('/login').expect(200);
    const res = await agent.post('/login').set('X-Forwarded-For', someIp()).type('form').send({ _csrf: csrfTokenIn(form.text), email, password });
    return res.status;
  };
  const createUser = async (email: string, role: string, password: string) => {
    const result = await kurate({ ...asAdmin, input: `${password}\n` }, 'user', 'create', email, '--role', role, '--password-stdin');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return (await userNamed(email))!;
  };

  beforeAll(async () => {
    await ensureCliBuilt();
    t = await startTestApp({ listen: true });
    [admin, reader] = await Promise.all([t.user('admin', { name: 'Root Admin' }), t.user('reader')]);
    asAdmin = { baseUrl: t.baseUrl!, token: admin.token };
  }, 120_000);
  afterAll(() => t?.close());

  it('gives every command --help with an example', async () => {
    const commands = [
      [], ['user'], ['user', 'create'], ['user', 'list'], ['user', 'set-role'], ['user', 'disable'], ['user', 'enable'], ['user', 'reset-password'],
      ['token'], ['token', 'create'], ['token', 'list'], ['token', 'revoke'],
      ['import'], ['export'], ['pages'], ['pages', 'list'], ['page'], ['page', 'get'], ['summary'],
    ];
    for (const command of commands) {
      const help = await kurate({ baseUrl: 'http://127.0.0.1:1' }, ...command, '--help');
      expect(help.code, command.join(' ')).toBe(0);
      expect(help.stdout, command.join(' ')).toContain(`Usage: kurate ${command.join(' ')}`.trimEnd());
      expect(help.stdout, command.join(' ')).toMatch(new RegExp(`\\nExamples?:\\n {2}\\$ kurate ${command.join(' ')}`));
    }
  });

  it('user create: takes the password from stdin, sets the role and name, and the user can log in with it', async () => {
    const created = await kurate(
      { ...asAdmin, input: 'carol-password-1234\n' },
      'user', 'create', 'Carol@Example.test', '--role', 'author', '--name', 'Carol Create', '--password-stdin',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const carol = await userNamed('carol@example.test');
    expect(carol).toMatchObject({ displayName: 'Carol Create', role: 'author', disabled: false });
    expect(created.stdout).toBe(`Created carol@example.test ("Carol Create", author), id ${carol!.id}.\n`);
    expect(await loginStatus('carol@example.test', 'carol-password-1234')).toBe(303);

    // Without --name, the display name is the part of the email before the @; a \r\n line ending is dropped too.
    const dave = await kurate({ ...asAdmin, input: 'dave-password-1234\r\n' }, 'user', 'create', 'dave@example.test', '--role', 'reader', '--password-stdin');
    expect(dave.code).toBe(0);
    expect(await userNamed('dave@example.test')).toMatchObject({ displayName: 'dave', role: 'reader' });
    expect(await loginStatus('dave@example.test', 'dave-password-1234')).toBe(303);

    // The same email again (in any case): the server's 409, in one line.
    const taken = await kurate({ ...asAdmin, input: 'another-password-1234\n' }, 'user', 'create', 'CAROL@example.test', '--role', 'reader', '--password-stdin');
    expect(taken).toMatchObject({ code: 1, stdout: '', stderr: 'kurate: A user with the email carol@example.test already exists.\n' });
    // A password the server refuses.
    const short = await kurate({ ...asAdmin, input: 'short\n' }, 'user', 'create', 'erin@example.test', '--role', 'reader', '--password-stdin');
    expect(short).toMatchObject({ code: 1, stderr: 'kurate: password must be at least 12 characters long\n' });
    expect(await userNamed('erin@example.test')).toBeUndefined();
  });

  it('user create refuses without a password: no --password-stdin and no terminal, an empty stdin, or several lines', async () => {
    const noPassword = await kurate(asAdmin, 'user', 'create', 'frank@example.test', '--role', 'reader');
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/^kurate: No password: stdin is not a terminal to prompt at\. Pipe the password in with --password-stdin .*\n$/);
    expect(noPassword.stderr.split('\n')).toHaveLength(2);

    const empty = await kurate({ ...asAdmin, input: '' }, 'user', 'create', 'frank@example.test', '--role', 'reader', '--password-stdin');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^kurate: --password-stdin: stdin was empty\./);

    const twoLines = await kurate({ ...asAdmin, input: 'frank-password-1234\nsecond line\n' }, 'user', 'create', 'frank@example.test', '--role', 'reader', '--password-stdin');
    expect(twoLines).toMatchObject({ code: 1, stderr: 'kurate: --password-stdin: stdin holds more than one line; send the password alone.\n' });

    const noRole = await kurate({ ...asAdmin, input: 'frank-password-1234\n' }, 'user', 'create', 'frank@example.test', '--password-stdin');
    expect(noRole).toMatchObject({ code: 1, stderr: "kurate: required option '--role <role>' not specified (run with --help for usage)\n" });
    expect(await userNamed('frank@example.test')).toBeUndefined();
  });

  it.skipIf(!HAS_SCRIPT)('user create and reset-password prompt at a terminal, twice, without echoing the password', async () => {
    const password = 'typed-at-a-terminal-123';
    const run = await kurateAtTerminal(asAdmin, ['user', 'create', 'gina@example.test', '--role', 'author'], [
      { prompt: /Password for gina@example\.test: $/, answer: password },
      { prompt: /Type it again: $/, answer: password },
    ]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/Created gina@example\.test \("gina", author\)/);
    expect(run.stdout).not.toContain(password);
    expect(await userNamed('gina@example.test')).toMatchObject({ role: 'author' });
    expect(await loginStatus('gina@example.test', password)).toBe(303);

    // A typo in the second entry changes nothing.
    const differ = await kurateAtTerminal(asAdmin, ['user', 'reset-password', 'gina@example.test'], [
      { prompt: /New password for gina@example\.test: $/, answer: 'a-new-password-1234' },
      { prompt: /Type it again: $/, answer: 'a-new-passwrod-1234' },
    ]);
    expect(differ.code).toBe(1);
    expect(differ.stdout).toMatch(/kurate: The two passwords differ; nothing was changed\./);
    expect(await loginStatus('gina@example.test', password)).toBe(303);
  });

  it('user list prints a table (id, email, name, role, disabled, created) and JSON', async () => {
    const hank = await createUser('hank@example.test', 'reader', 'hank-password-1234');
    const table = await kurate(asAdmin, 'user', 'list');
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +EMAIL +NAME +ROLE +DISABLED +CREATED$/);
    const total = (await adminApi().get('/api/admin/users').expect(200)).body.total;
    expect(lines).toHaveLength(total + 1);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${hank.id} +hank@example\\.test +hank +reader +no +\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${admin.id} +${admin.email.replace('.', '\\.')} +Root Admin +admin +no `)));

    const json = await kurate(asAdmin, 'user', 'list', '--json');
    const parsed = JSON.parse(json.stdout) as { items: ApiUser[]; total: number };
    expect(parsed.total).toBe(total);
    expect(parsed.items.find((u) => u.email === 'hank@example.test')).toMatchObject({ id: hank.id, displayName: 'hank', role: 'reader', disabled: false });
  });

  it('user set-role changes the role, by email or by id; refuses an unknown role and the last admin', async () => {
    const ivy = await createUser('ivy@example.test', 'reader', 'ivy-password-12345');
    const byEmail = await kurate(asAdmin, 'user', 'set-role', 'IVY@example.test', 'author');
    expect(byEmail).toMatchObject({ code: 0, stderr: '', stdout: 'ivy@example.test is now an author (was a reader).\n' });
    expect((await adminApi().get(`/api/admin/users/${ivy.id}`).expect(200)).body.role).toBe('author');

    const byId = await kurate(asAdmin, 'user', 'set-role', ivy.id, 'admin');
    expect(byId).toMatchObject({ code: 0, stdout: 'ivy@example.test is now an admin (was an author).\n' });
    expect((await adminApi().get(`/api/admin/users/${ivy.id}`).expect(200)).body.role).toBe('admin');
    expect((await kurate(asAdmin, 'user', 'set-role', ivy.id, 'admin')).stdout).toBe('ivy@example.test is already an admin.\n');
    // The change is audited as the admin behind the token.
    const audit = await t.dataSource.query(`SELECT actor_name, details FROM audit_log WHERE action = 'user.role' AND details->>'userId' = $1 ORDER BY id`, [ivy.id]);
    expect(audit.map((a: { actor_name: string; details: { to: string } }) => [a.actor_name, a.details.to])).toEqual([['Root Admin', 'author'], ['Root Admin', 'admin']]);

    const badRole = await kurate(asAdmin, 'user', 'set-role', ivy.id, 'superuser');
    expect(badRole).toMatchObject({
      code: 1,
      stdout: '',
      stderr: "kurate: command-argument value 'superuser' is invalid for argument 'role'. Allowed choices are reader, author, admin. (run with --help for usage)\n",
    });
    const badCreateRole = await kurate({ ...asAdmin, input: 'jack-password-1234\n' }, 'user', 'create', 'jack@example.test', '--role', 'owner', '--password-stdin');
    expect(badCreateRole.code).toBe(1);
    expect(badCreateRole.stderr).toMatch(/^kurate: option '--role <role>' argument 'owner' is invalid\. Allowed choices are reader, author, admin\./);
    expect(await userNamed('jack@example.test')).toBeUndefined();

    // With ivy back to reader, the token's owner is the only enabled admin: the server's 409, in one line.
    await kurate(asAdmin, 'user', 'set-role', ivy.id, 'reader');
    const lastAdmin = await kurate(asAdmin, 'user', 'set-role', admin.email, 'author');
    expect(lastAdmin).toMatchObject({
      code: 1,
      stderr: `kurate: Cannot change the role of ${admin.email}: the wiki needs at least one enabled admin. Make someone else an admin first.\n`,
    });
    const disableLast = await kurate(asAdmin, 'user', 'disable', admin.email);
    expect(disableLast.code).toBe(1);
    expect(disableLast.stderr).toMatch(/^kurate: Cannot disable .*: the wiki needs at least one enabled admin\./);
    expect((await adminApi().get(`/api/admin/users/${admin.id}`).expect(200)).body).toMatchObject({ role: 'admin', disabled: false });
  });

  it('user disable ends the account’s access (its token is refused) and user enable restores it', async () => {
    const author = await t.user('author', { name: 'Kim Disabled' });
    await t.http.get('/api/tokens').set(bearer(author.token)).expect(200);

    const disabled = await kurate(asAdmin, 'user', 'disable', author.email);
    expect(disabled).toMatchObject({ code: 0, stderr: '', stdout: `Disabled ${author.email}: their sessions have ended and their API tokens no longer work.\n` });
    expect((await adminApi().get(`/api/admin/users/${author.id}`).expect(200)).body.disabled).toBe(true);
    await t.http.get('/api/tokens').set(bearer(author.token)).expect(401);
    expect(await loginStatus(author.email, author.password)).not.toBe(303);
    expect((await kurate(asAdmin, 'user', 'disable', author.id)).stdout).toBe(`${author.email} was already disabled.\n`);
    expect((await kurate(asAdmin, 'user', 'list')).stdout).toMatch(new RegExp(`^${author.id} .* author +yes `, 'm'));

    const enabled = await kurate(asAdmin, 'user', 'enable', author.id);
    expect(enabled).toMatchObject({ code: 0, stdout: `Enabled ${author.email}.\n` });
    expect((await adminApi().get(`/api/admin/users/${author.id}`).expect(200)).body.disabled).toBe(false);
    await t.http.get('/api/tokens').set(bearer(author.token)).expect(200);
    expect((await kurate(asAdmin, 'user', 'enable', author.email)).stdout).toBe(`${author.email} is not disabled.\n`);
  });

  it('user reset-password sets a new password: the new one logs in, the old one no longer does', async () => {
    const lou = await createUser('lou@example.test', 'author', 'lou-old-password-1');
    expect(await loginStatus('lou@example.test', 'lou-old-password-1')).toBe(303);

    const reset = await kurate({ ...asAdmin, input: 'lou-new-password-2\n' }, 'user', 'reset-password', 'lou@example.test', '--password-stdin');
    expect(reset).toMatchObject({ code: 0, stderr: '', stdout: 'Set a new password for lou@example.test; their sessions have ended.\n' });
    expect(await loginStatus('lou@example.test', 'lou-new-password-2')).toBe(303);
    expect(await loginStatus('lou@example.test', 'lou-old-password-1')).toBe(401);

    const byId = await kurate({ ...asAdmin, input: 'lou-third-password-3\n' }, 'user', 'reset-password', lou.id, '--password-stdin');
    expect(byId.code).toBe(0);
    expect(await loginStatus('lou@example.test', 'lou-third-password-3')).toBe(303);

    const noPassword = await kurate(asAdmin, 'user', 'reset-password', 'lou@example.test');
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/^kurate: No password: stdin is not a terminal/);
    expect(await loginStatus('lou@example.test', 'lou-third-password-3')).toBe(303);
  });

  it('token create prints the token once (stdout) with a warning (stderr); it works as a Bearer until token revoke', async () => {
    const created = await kurate(asAdmin, 'token', 'create', '--name', 'laptop CLI', '--scope', 'write');
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(created.stdout).toMatch(/^kur_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toMatch(new RegExp(`^Created token "laptop CLI" for ${admin.email.replace('.', '\\.')} \\(id ${UUID.source}, scope write, never expires\\):\n`));
    expect(created.stderr).toMatch(/\nThis is the only time the token is shown: copy it now, it cannot be shown again\.\n$/);
    const id = UUID.exec(created.stderr)![0];

    // The token works as a Bearer, acting as its owner with the write scope: it may write, not administer.
    const list = await t.http.get('/api/tokens').set(bearer(token)).expect(200);
    expect(list.body.items.find((i: ApiToken) => i.id === id)).toMatchObject({ name: 'laptop CLI', scopes: ['write'], status: 'active', expiresAt: null });
    await t.http.post('/api/pages').set(bearer(token)).send({ title: 'Written By A CLI Token', body: 'text' }).expect(201);
    await t.http.get('/api/admin/users').set(bearer(token)).expect(403);
    expect(JSON.stringify(list.body)).not.toContain(token);

    // And the CLI itself runs with it.
    const own = await kurate({ baseUrl: t.baseUrl!, token }, 'token', 'list');
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(new RegExp(`^${id} +laptop CLI +${token.slice(0, 12)} +write +active +\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} +never +\\d{4}`, 'm'));

    const revoked = await kurate(asAdmin, 'token', 'revoke', id);
    expect(revoked).toMatchObject({ code: 0, stderr: '', stdout: `Revoked token ${id}: it no longer works.\n` });
    await t.http.get('/api/tokens').set(bearer(token)).expect(401);
    const after = await kurate({ baseUrl: t.baseUrl!, token }, 'token', 'list');
    expect(after).toMatchObject({ code: 1, stderr: 'kurate: The API token is invalid, expired or revoked, or its user is disabled.\n' });
    expect((await t.http.get('/api/tokens').set(bearer(admin.token)).expect(200)).body.items.find((i: ApiToken) => i.id === id).status).toBe('revoked');
  });

  it('token create: read scope by default, --expires-in-days, --json; a user cannot go above their role', async () => {
    const json = await kurate(asAdmin, 'token', 'create', '--name', 'ci', '--expires-in-days', '30', '--json');
    expect(json.code).toBe(0);
    expect(json.stderr).toMatch(/cannot be shown again/);
    const created = JSON.parse(json.stdout) as ApiToken & { token: string };
    expect(created).toMatchObject({ name: 'ci', scopes: ['read'], status: 'active', userEmail: admin.email });
    const days = (new Date(created.expiresAt!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    await t.http.get('/api/pages').set(bearer(created.token)).expect(200);
    await t.http.post('/api/pages').set(bearer(created.token)).send({ title: 'Not With A Read Token', body: 'x' }).expect(403);

    const zero = await kurate(asAdmin, 'token', 'create', '--name', 'x', '--expires-in-days', '0');
    expect(zero).toMatchObject({ code: 1, stdout: '' });
    expect(zero.stderr).toBe("kurate: option '--expires-in-days <n>' argument '0' is invalid. Give a whole number of days from 1 to 3660. (run with --help for usage)\n");
    const badScope = await kurate(asAdmin, 'token', 'create', '--name', 'x', '--scope', 'root');
    expect(badScope.stderr).toMatch(/^kurate: option '--scope <scope>' argument 'root' is invalid\. Allowed choices are read, write, admin, metrics\./);
    const noName = await kurate(asAdmin, 'token', 'create');
    expect(noName.stderr).toBe("kurate: required option '--name <name>' not specified (run with --help for usage)\n");

    // A reader's token cannot mint a write token: the server's 403, in one line.
    const up = await kurate({ baseUrl: t.baseUrl!, token: reader.token }, 'token', 'create', '--name', 'up', '--scope', 'write');
    expect(up).toMatchObject({ code: 1, stdout: '', stderr: 'kurate: This token acts as a reader: it cannot create a token with the write scope.\n' });
    // …but a reader may create and revoke tokens of their own.
    const mine = await kurate({ baseUrl: t.baseUrl!, token: reader.token }, 'token', 'create', '--name', 'reader laptop', '--json');
    expect(mine.code).toBe(0);
    const mineId = (JSON.parse(mine.stdout) as ApiToken).id;
    expect((await kurate({ baseUrl: t.baseUrl!, token: reader.token }, 'token', 'revoke', mineId)).code).toBe(0);
  });

  it("token list shows your tokens; --all (admins) everyone's, with the owner; an admin revokes anyone's", async () => {
    const other = await t.user('reader', { name: 'Other Reader' });
    const own = await kurate(asAdmin, 'token', 'list', '--json');
    const ownItems = (JSON.parse(own.stdout) as { items: ApiToken[] }).items;
    expect(ownItems.length).toBeGreaterThan(0);
    expect(ownItems.every((i) => i.userEmail === admin.email)).toBe(true);
    expect(own.stdout).not.toMatch(/kur_[A-Za-z0-9_-]{43}/);

    const all = await kurate(asAdmin, 'token', 'list', '--all');
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +PREFIX +SCOPES +STATUS +CREATED +EXPIRES +LAST USED +USER$/);
    for (const email of [admin.email, reader.email, other.email]) expect(lines.some((l) => l.endsWith(` ${email}`)), email).toBe(true);
    const allJson = JSON.parse((await kurate(asAdmin, 'token', 'list', '--all', '--json')).stdout) as { items: ApiToken[] };
    expect(allJson.items.length).toBe(lines.length - 1);

    // An admin revokes another user's token; its owner's next request is refused.
    const othersToken = allJson.items.find((i) => i.userEmail === other.email)!;
    expect((await kurate(asAdmin, 'token', 'revoke', othersToken.id)).code).toBe(0);
    await t.http.get('/api/tokens').set(bearer(other.token)).expect(401);
    const revoked = await kurate({ baseUrl: t.baseUrl!, token: other.token }, 'token', 'list');
    expect(revoked).toMatchObject({ code: 1, stderr: 'kurate: The API token is invalid, expired or revoked, or its user is disabled.\n' });
  });

  it('reports every error in one line with exit code 1: no token, a reader’s token, unknown users and tokens, a server that is down', async () => {
    const oneLine = (run: CliRun) => {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n') && run.stderr.split('\n').length === 2, run.stderr).toBe(true);
      return run.stderr;
    };
    const anonymous = { baseUrl: t.baseUrl! };
    const asReader = { baseUrl: t.baseUrl!, token: reader.token };

    expect(oneLine(await kurate(anonymous, 'user', 'list'))).toBe("kurate: Log in to continue. Set KURATE_TOKEN to an admin's API token.\n");
    expect(oneLine(await kurate({ ...anonymous, input: 'mary-password-1234\n' }, 'user', 'create', 'mary@example.test', '--role', 'reader', '--password-stdin'))).toBe(
      "kurate: Log in to continue. Set KURATE_TOKEN to an admin's API token.\n",
    );
    expect(oneLine(await kurate({ ...anonymous, token: 'kur_revoked-or-made-up' }, 'user', 'disable', 'x@example.test'))).toBe(
      "kurate: The API token is invalid, expired or revoked, or its user is disabled. Set KURATE_TOKEN to an admin's API token.\n",
    );
    expect(oneLine(await kurate(anonymous, 'token', 'list'))).toBe('kurate: Log in to continue. Run kurate login, or set KURATE_TOKEN to an API token.\n');

    const forbidden = "kurate: This needs the admin role, and this token (or its scopes) does not grant it. Set KURATE_TOKEN to an admin's API token (admin scope).\n";
    expect(oneLine(await kurate(asReader, 'user', 'list'))).toBe(forbidden);
    expect(oneLine(await kurate(asReader, 'user', 'set-role', reader.email, 'admin'))).toBe(forbidden);
    expect(oneLine(await kurate({ ...asReader, input: 'mary-password-1234\n' }, 'user', 'create', 'mary@example.test', '--role', 'admin', '--password-stdin'))).toBe(forbidden);
    expect(oneLine(await kurate(asReader, 'token', 'list', '--all'))).toBe(
      "kurate: Only an admin may list other users' tokens. Set KURATE_TOKEN to an admin's API token (admin scope).\n",
    );
    expect((await userNamed('mary@example.test'))).toBeUndefined();
    expect((await adminApi().get(`/api/admin/users/${reader.id}`).expect(200)).body.role).toBe('reader');

    expect(oneLine(await kurate(asAdmin, 'user', 'disable', 'nobody@example.test'))).toBe('kurate: There is no user with the email nobody@example.test.\n');
    expect(oneLine(await kurate(asAdmin, 'user', 'set-role', '00000000-0000-4000-8000-000000000000', 'author'))).toBe(
      'kurate: There is no user with the id 00000000-0000-4000-8000-000000000000.\n',
    );
    expect(oneLine(await kurate({ ...asAdmin, input: 'nobody-password-1\n' }, 'user', 'reset-password', 'nobody@example.test', '--password-stdin'))).toBe(
      'kurate: There is no user with the email nobody@example.test.\n',
    );
    expect(oneLine(await kurate(asAdmin, 'user', 'enable', 'nobody'))).toBe('kurate: "nobody" is neither an email nor a user id (kurate user list shows both).\n');
    expect(oneLine(await kurate(asAdmin, 'token', 'revoke', 'kur_AbCd1234'))).toBe('kurate: "kur_AbCd1234" is not a token id: use the ID column of kurate token list.\n');
    expect(oneLine(await kurate(asAdmin, 'token', 'revoke', '00000000-0000-4000-8000-000000000000'))).toBe('kurate: There is no API token with this id.\n');
    expect(oneLine(await kurate(asAdmin, 'user', 'frobnicate'))).toBe("kurate: unknown command 'frobnicate' (run with --help for usage)\n");

    const port = await closedPort();
    const down = { baseUrl: `http://127.0.0.1:${port}`, token: admin.token };
    expect(oneLine(await kurate(down, 'user', 'list'))).toBe(`kurate: Cannot reach Kurate at http://127.0.0.1:${port}: is it running?\n`);
    expect(oneLine(await kurate(down, 'token', 'create', '--name', 'x'))).toBe(`kurate: Cannot reach Kurate at http://127.0.0.1:${port}: is it running?\n`);
    expect(oneLine(await kurate({ ...down, input: 'down-password-1234\n' }, 'user', 'create', 'x@example.test', '--role', 'reader', '--password-stdin'))).toBe(
      `kurate: Cannot reach Kurate at http://127.0.0.1:${port}: is it running?\n`,
    );
  });
});
