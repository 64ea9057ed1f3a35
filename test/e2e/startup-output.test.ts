// @module-tag slow (starts the compiled server as a process): `npm run test:fast` leaves it out; docs/testing.md
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/cli.js';
import { ensureServerBuilt } from '../support/server-process.js';
import { freshTestConfig } from '../support/test-app.js';

/** Starts the built server with the default log level and returns everything it printed until it was ready. */
async function startAndCollect(entry: string, env: Record<string, string>): Promise<{ output: string; port: number }> {
  // Nothing of the test run's own settings: the defaults are what a user gets.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(KURATE_|DATABASE_URL$|PORT$)/.test(key)));
  const port = await closedPort();
  const child = spawn(process.execPath, [entry], {
    env: { ...inherited, PORT: String(port), KURATE_BUILTIN_EXTRACTOR_THREADS: '0', KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    const deadline = Date.now() + 90_000;
    while (!/Kurate is running/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    return { output, port };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('what npm start prints', () => {
  let entry: string;
  let database: { env: Record<string, string>; shown: RegExp; drop: () => Promise<void> };

  beforeAll(async () => {
    entry = await ensureServerBuilt();
    const { config, drop } = await freshTestConfig();
    database =
      config.database.kind === 'postgres'
        ? { env: { DATABASE_URL: config.database.url }, shown: /^Database: {2}PostgreSQL postgres:\/\/[^\s]+\/kurate_test_[0-9a-f]+ \(pool of 10\)$/m, drop }
        : { env: { KURATE_DATA_DIR: 'memory://' }, shown: /^Database: {2}embedded PostgreSQL \(PGlite\) in memory:\/\/$/m, drop };
  }, 180_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('is at most 15 lines at the default log level, naming the database, the extractor, the embedder and the URL', async () => {
    const { output, port } = await startAndCollect(entry, database.env);
    const lines = output.trimEnd().split('\n');
    expect(lines.length, output).toBeLessThanOrEqual(15);
    expect(output).toMatch(database.shown);
    expect(output).toMatch(/^Kurate \d+\.\d+\.\d+ on Node v\d+\.\d+\.\d+: web and worker; log level log/m);
    expect(output).toMatch(/^Extractor: builtin \(kurate-builtin-v\d+\); embedder: builtin \(kurate-hash-\d+-v\d+\)$/m);
    expect(output).toContain(`Kurate is running: open http://localhost:${port}/ in your browser.`);
    // Nest's own start-up lines (a line per module and per route) are debug information.
    expect(output).not.toMatch(/InstanceLoader|RouterExplorer|Mapped \{/);
    // No Node warning (deprecations, experimental features, engines).
    expect(output).not.toMatch(/Warning:|EBADENGINE/);
  });

  it('shows the framework’s start-up at KURATE_LOG_LEVEL=debug', async () => {
    const { output } = await startAndCollect(entry, { ...database.env, KURATE_LOG_LEVEL: 'debug' });
    expect(output).toMatch(/Mapped \{\/health, GET\} route/);
    expect(output.split('\n').length).toBeGreaterThan(100);
  });
});
