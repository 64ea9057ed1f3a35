import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withLock } from './cli.js';
import { ARTIFACTS_DIR, REPO_ROOT } from './database.js';

const run = promisify(execFile);
const BUILD = path.join(ARTIFACTS_DIR, `kg-server-${process.env.KURATE_TEST_RUN_ID ?? 'local'}`);

/**
 * The server compiled as `npm run build` does, into .test-artifacts (with the migrations, templates and package.json
 * beside it), once per test run: files that run server processes share it (one compiles while the others wait; a
 * compile is about 15 s of CPU).
 */
export async function ensureServerBuilt(): Promise<string> {
  const entry = path.join(BUILD, 'dist/main.js');
  if (existsSync(entry)) return entry;
  await withLock(async () => {
    if (existsSync(entry)) return;
    mkdirSync(BUILD, { recursive: true });
    await run('npx', ['tsc', '-p', 'tsconfig.json', '--outDir', path.join(BUILD, 'dist')], { cwd: REPO_ROOT });
    // package.json: the server reads its version there (the start-up report).
    for (const name of ['migrations', 'views', 'public', 'package.json']) {
      if (!existsSync(path.join(BUILD, name))) symlinkSync(path.join(REPO_ROOT, name), path.join(BUILD, name));
    }
  });
  return entry;
}

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node dist/main.js` with this environment (nothing of DATABASE_URL or KURATE_TOKEN inherited) and waits until it says it runs. */
export async function startServer(entry: string, env: Record<string, string>): Promise<ServerProcess> {
  const { KURATE_TOKEN: _t, DATABASE_URL: _d, ...inherited } = process.env;
  const child = spawn(process.execPath, [entry], { env: { ...inherited, KURATE_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!/Kurate (worker )?is running/.test(text)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The server did not start:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => text, exited };
}

/** kill -9: no shutdown hook runs. */
export async function killHard(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

export async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exited;
}
