// @module-tag slow (compiles the server, runs it and bin/kurate backup/restore as child processes): docs/testing.md
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.setup.js';
import { ApiTokensService } from '../../src/auth/api-tokens.service.js';
import { UsersService } from '../../src/auth/users.service.js';
import { RestoreService } from '../../src/backup/backup.service.js';
import { PagesService } from '../../src/pages/pages.service.js';
import { loadConfig, type KurateConfig } from '../../src/config/kurate-config.js';
import { EMBEDDED_LOCK_FILE } from '../../src/db/embedded-postgres.js';
import { closedPort } from '../support/cli.js';
import { pgliteTemplate, realPostgresUrl } from '../support/database.js';
import { ensureServerBuilt, startServer, stopServer, type ServerProcess } from '../support/server-process.js';
import { freshTestConfig } from '../support/test-app.js';

const ON_POSTGRES = realPostgresUrl() !== null;
const TEST_ENV = { KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1', KURATE_BUILTIN_EXTRACTOR_THREADS: '0', KURATE_LOG_LEVEL: 'error' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kurate <args>` from the built server's dist/ (backup and restore load the server's modules), with only this database in its environment. */
function kurate(cli: string, database: Record<string, string>, ...args: string[]): Promise<Run> {
  const { DATABASE_URL: _d, KURATE_DATA_DIR: _k, KURATE_TOKEN: _t, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: { ...inherited, ...TEST_ENV, ...database } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** An author and one page, written through the services on this database. */
async function seed(config: KurateConfig): Promise<void> {
  const app = await createApp(config);
  await app.init();
  try {
    const origin = { actor: { userId: null, name: 'test', role: null }, ip: null };
    const user = await app.get(UsersService).create({ email: 'cli-author@example.test', displayName: 'Cli Author', password: 'cli-author-password', role: 'author' }, origin);
    const { token } = await app.get(ApiTokensService).create({ name: 'cli', scopes: ['write'] }, { actor: { userId: user.id, name: 'Cli Author', role: 'author' }, ip: null });
    await supertest(app.getHttpServer()).post('/api/pages').set('Authorization', `Bearer ${token}`).send({ title: 'Kept Page', body: 'Links to [[Nowhere]].' }).expect(201);
  } finally {
    await app.close();
  }
}

describe(`kurate backup and kurate restore from the shell (${ON_POSTGRES ? 'PostgreSQL' : 'embedded'})`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kurate-backup-cli-'));
  const archive = path.join(dir, 'wiki.kbk');
  let cli: string;
  let server: string;
  let source: Record<string, string>;
  let target: Record<string, string>;
  const drops: (() => Promise<void>)[] = [];
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    const built = ensureServerBuilt();
    if (ON_POSTGRES) {
      const [a, b] = [await freshTestConfig(), await freshTestConfig()];
      drops.push(a.drop, b.drop);
      await seed(a.config);
      source = { DATABASE_URL: (a.config.database as { url: string }).url };
      target = { DATABASE_URL: (b.config.database as { url: string }).url };
    } else {
      source = { KURATE_DATA_DIR: path.join(dir, 'source-data') };
      target = { KURATE_DATA_DIR: path.join(dir, 'target-data') };
      // From the migrated template (a data folder made from scratch runs initdb first).
      const config = loadConfig({ ...TEST_ENV, ...source });
      (config.database as { snapshot?: Blob }).snapshot = pgliteTemplate();
      await seed(config);
    }
    server = await built;
    cli = path.join(path.dirname(server), 'cli/main.js');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(running.map((s) => stopServer(s)));
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(ON_POSTGRES ? 'backs up while a server runs on the database' : 'refuses to back up an embedded database a running server holds, naming the process', async () => {
    const up = await startServer(server, { ...TEST_ENV, ...source, PORT: String(await closedPort()) });
    running.push(up);
    let result: Run;
    try {
      result = await kurate(cli, source, 'backup', archive);
    } finally {
      await stopServer(up);
    }
    if (ON_POSTGRES) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      rmSync(archive);
    } else {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^kurate: The embedded database in .* is in use by process ${up.child.pid} \\(a running Kurate server\\?\\)\\. Stop it first`));
      expect(existsSync(archive)).toBe(false);
    }
    if (!ON_POSTGRES) expect(existsSync(path.join(source.KURATE_DATA_DIR, EMBEDDED_LOCK_FILE))).toBe(false);
  });

  it('writes the archive with mode 0600 and prints its checksum; refuses to overwrite it without --force', async () => {
    const result = await kurate(cli, source, 'backup', archive);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Wrote .*wiki\.kbk: \d+ rows of \d+ tables, schema \d{4}_\w+, .* before compression\.\nsha256 [0-9a-f]{64}\n/);
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    const again = await kurate(cli, source, 'backup', archive);
    expect([again.code, again.stderr]).toEqual([1, `kurate: ${archive} exists already: choose another name, or add --force to overwrite it.\n`]);
    expect((await kurate(cli, source, 'backup', archive, '--force', '--json')).stdout).toContain('"checksum"');
  });

  // Each restore starts the server's modules in the CLI's process (the first one also creates the embedded database).
  it('restores into an empty instance', async () => {
    const first = await kurate(cli, target, 'restore', archive);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(/^Restored .*wiki\.kbk \(taken .*\): \d+ rows of \d+ tables\.\nRebuilt: links and search of 1 pages \(1 links\)/);
  });

  it('refuses a non-empty instance without --force, and replaces it with --force', async () => {
    const refused = await kurate(cli, target, 'restore', archive);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^kurate: This instance is not empty: users \(1 rows\), api_tokens \(1 rows\), audit_log \(\d+ rows\), pages \(1 rows\).*add --force to replace everything in this one\.\n$/);
    expect((await kurate(cli, target, 'restore', archive, '--force')).code).toBe(0);
  });

  it('finishes a restore killed after its load committed when run again, instead of refusing', async () => {
    // The kill: through the services on the target database, the first rebuild step fails once the load committed.
    const config = loadConfig({ ...TEST_ENV, ...target });
    const app = await createApp(config);
    await app.init();
    try {
      vi.spyOn(app.get(PagesService), 'rebuildIndex').mockRejectedValueOnce(new Error('killed after the load committed'));
      await expect(app.get(RestoreService).restore(archive, { force: true })).rejects.toThrow(/killed/);
      expect(await app.get(DataSource).query('SELECT count(*)::int AS n FROM page_links')).toEqual([{ n: 0 }]);
    } finally {
      await app.close();
    }
    const again = await kurate(cli, target, 'restore', archive);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Finished the restore of .*wiki\.kbk \(taken .*\) interrupted after its load committed at .*\nRebuilt: links and search of 1 pages \(1 links\)/);
    const refused = await kurate(cli, target, 'restore', archive);
    expect(refused.stderr).toMatch(/not empty/);
  });

  it('leaves a wiki a server starts on and serves', async () => {
    const port = await closedPort();
    const up = await startServer(server, { ...TEST_ENV, ...target, PORT: String(port) });
    running.push(up);
    const page = await supertest(`http://127.0.0.1:${port}`).get('/api/pages/kept-page').expect(200);
    expect(page.body.body).toBe('Links to [[Nowhere]].');
    await stopServer(up);
  });

  it('says what is wrong with a file that is not a backup, in one line', async () => {
    const missing = await kurate(cli, target, 'restore', path.join(dir, 'nothing.kbk'));
    expect([missing.code, missing.stderr]).toEqual([1, `kurate: There is no file ${path.join(dir, 'nothing.kbk')}.\n`]);
    const notGzip = await kurate(cli, target, 'restore', cli);
    expect(notGzip.code).toBe(1);
    expect(notGzip.stderr).toMatch(/^kurate: .* cannot be read as a gzipped Kurate backup/);
  });
});
