import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ARTIFACTS_DIR, REPO_ROOT } from './database.js';

const run = promisify(execFile);

/** The shell shim a user runs; it starts dist/cli/main.js. */
export const KURATE = path.join(REPO_ROOT, 'bin/kurate');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where bin/kurate should go, and as whom. */
export interface CliTarget {
  baseUrl: string;
  /** Sent as KURATE_TOKEN; without one, the CLI is anonymous. */
  token?: string;
  /** Written to the CLI's stdin (which is then closed); stdin is empty (and not a terminal) otherwise. */
  input?: string;
  /**
   * XDG_CONFIG_HOME for the CLI, where `kurate login` keeps its credentials. Default: a folder of this test process
   * that nothing writes to, so that no test reads the credentials of the user running the tests.
   */
  configHome?: string;
}

const EMPTY_CONFIG_HOME = path.join(ARTIFACTS_DIR, `cli-config-${process.pid}`);

/**
 * Runs bin/kurate as a user would: a child process, the server's address in KURATE_URL and a token in KURATE_TOKEN
 * (never one inherited from the environment of the test run).
 */
export function kurate(target: CliTarget, ...args: string[]): Promise<CliRun> {
  const { KURATE_TOKEN: _ignored, ...env } = process.env;
  if (target.token) env.KURATE_TOKEN = target.token;
  return new Promise((resolve, reject) => {
    const child = spawn(KURATE, args, {
      env: { ...env, KURATE_URL: target.baseUrl, XDG_CONFIG_HOME: target.configHome ?? EMPTY_CONFIG_HOME },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? -1 : 0), stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
    // A CLI that does not read stdin may have exited already.
    child.stdin.on('error', () => {});
    child.stdin.end(target.input ?? '');
  });
}

/** util-linux `script` makes the pseudo-terminals of kurateAtTerminal; without it those tests are skipped. */
export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/**
 * Runs bin/kurate on a terminal (a pseudo-terminal made by util-linux `script`), answering each prompt as it appears.
 * Returns everything the terminal showed.
 */
export function kurateAtTerminal(target: CliTarget, args: string[], answers: { prompt: RegExp; answer: string }[]): Promise<CliRun> {
  const { KURATE_TOKEN: _ignored, ...env } = process.env;
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const child = spawn('script', ['-qfec', [KURATE, ...args].map(quote).join(' '), '/dev/null'], {
    env: { ...env, KURATE_URL: target.baseUrl, KURATE_TOKEN: target.token ?? '', XDG_CONFIG_HOME: target.configHome ?? EMPTY_CONFIG_HOME },
  });
  let screen = '';
  let answered = 0;
  let sinceAnswer = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      sinceAnswer += chunk.toString('utf8');
      const next = answers[answered];
      if (next && next.prompt.test(sinceAnswer)) {
        answered++;
        sinceAnswer = '';
        // Enter on a terminal in raw mode is a carriage return.
        child.stdin.write(`${next.answer}\r`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code: code ?? -1, stdout: screen, stderr: '' });
    });
  });
}

const LOCK = path.join(ARTIFACTS_DIR, 'cli-build.lock');
// Longer than any compile takes: a lock this old was left by a killed run.
const STALE_LOCK_MS = 120_000;

/** A module compiled on its own into dist/, as `nest build` would write it there. */
interface CompiledModule {
  /** The TypeScript entry, relative to the repository. */
  entry: string;
  /** The folders whose files it is built from (a newer one means compiling again). */
  sources: string[];
}

const CLI: CompiledModule = { entry: 'src/cli/main.ts', sources: ['src/cli', 'src/pages/markdown', 'src/attachments', 'src/common'] };
/** The module the built-in extractor's worker threads load. */
export const BUILTIN_EXTRACTION_WORKER: CompiledModule = { entry: 'src/extractors/builtin/builtin-extraction.worker.ts', sources: ['src/extractors', 'src/llm-client'] };

/**
 * bin/kurate runs dist/cli/main.js. When that is missing or older than its sources, only the CLI and the Markdown
 * modules it uses are compiled into dist/ (what `nest build` would write there, in a second instead of a full build).
 * Test files run in parallel, so one compiles while the others wait for it (a lock directory in .test-artifacts).
 */
export function ensureCliBuilt(): Promise<string> {
  return ensureCompiled(CLI);
}

/** Compiles one module (and what it imports) into dist/ unless it is there and newer than its sources; its path. */
export async function ensureCompiled(module: CompiledModule): Promise<string> {
  const output = path.join(REPO_ROOT, module.entry.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
  if (isFresh(module, output)) return output;
  await withLock(async () => {
    if (isFresh(module, output)) return;
    await run(
      'npx',
      ['tsc', '--ignoreConfig', module.entry, '--outDir', 'dist', '--rootDir', 'src', '--module', 'nodenext', '--moduleResolution', 'nodenext',
        '--target', 'es2023', '--lib', 'es2023', '--types', 'node', '--strict', '--skipLibCheck', '--esModuleInterop', '--sourceMap',
        '--removeComments', '--resolveJsonModule', '--isolatedModules'],
      { cwd: REPO_ROOT },
    );
  });
  return output;
}

function isFresh(module: CompiledModule, output: string): boolean {
  if (!existsSync(output)) return false;
  const sources = module.sources.flatMap((dir) => filesUnder(path.join(REPO_ROOT, dir)));
  const newestSource = Math.max(...sources.map((file) => statSync(file).mtimeMs));
  return statSync(output).mtimeMs >= newestSource;
}

/** One process at a time does `work` (a lock directory in .test-artifacts; test files run in parallel). */
export async function withLock(work: () => Promise<void>): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Every file under a folder, recursively. */
/** Every file under a folder, by `/`-separated relative path, with its SHA-256: two trees compare byte for byte. */
export function treeOf(dir: string): Record<string, string> {
  return Object.fromEntries(
    filesUnder(dir)
      .map((file) => [path.relative(dir, file).split(path.sep).join('/'), createHash('sha256').update(readFileSync(file)).digest('hex')] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A local port nothing listens on: a server that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
