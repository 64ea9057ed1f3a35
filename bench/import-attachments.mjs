#!/usr/bin/env node
// Import speed of a vault with attachments (issue 19): the Foam docs replicated to N pages, plus M files (PNG, PDF,
// WAV; mixed sizes) that the pages embed, imported by `bin/kurate import` into a fresh server per store. Reports
// pages/s and MB/s as the CLI measures them (files are uploaded first, then the pages), checks that no embedded file
// is a wanted page afterwards, and appends a Markdown report to bench/RESULTS.md.
//
//   npm run build && node bench/import-attachments.mjs
//   node bench/import-attachments.mjs --pages 500 --files 300 --setups embedded-local,postgres-local,postgres-database
//
// Every loop is bounded; every child process is killed at the end, by its own pid.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BENCH_ADMIN_EMAIL, benchAdminPassword, logIn } from './lib/auth.mjs';
import { FOAM_DOCS, replicateCorpus } from './lib/corpus.mjs';
import { backendPids, cpuWindow, machineInfo } from './lib/machine.mjs';
import { freePort, killAllNow, startChild, stopAll, stopChild, waitForHttp } from './lib/procs.mjs';

const run = promisify(execFile);
const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/attachments');
const DB_NAME = 'kurate_bench_attachments';
const SETUPS = ['embedded-local', 'embedded-database', 'postgres-local', 'postgres-database'];

const { values: opt } = parseArgs({
  options: {
    pages: { type: 'string', default: '500' },
    files: { type: 'string', default: '300' },
    'max-kb': { type: 'string', default: '256' },
    setups: { type: 'string', default: 'embedded-local,postgres-local,postgres-database' },
    'pg-admin-url': { type: 'string', default: process.env.KURATE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-write': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opt.help) {
  console.log(`node bench/import-attachments.mjs [options]   (after npm run build)
  --pages N        pages (the Foam docs replicated; default 500)
  --files N        attachments, embedded by the pages (default 300; 0: the pages alone, as a baseline)
  --max-kb N       the largest file in KB; sizes spread from 1 KB to it (default 256)
  --setups LIST    of ${SETUPS.join(', ')} (default embedded-local,postgres-local,postgres-database)
  --no-write       print the report without appending it to bench/RESULTS.md`);
  process.exit(0);
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const PAGES = Number(opt.pages);
const FILES = Number(opt.files);
const MAX_KB = Number(opt['max-kb']);
const setups = opt.setups.split(',').map((s) => s.trim()).filter(Boolean);
for (const setup of setups) if (!SETUPS.includes(setup)) throw new Error(`--setups: unknown setup "${setup}" (one of ${SETUPS.join(', ')})`);
if (!existsSync(path.join(ROOT, 'dist/main.js')) || !existsSync(path.join(ROOT, 'dist/cli/main.js'))) {
  throw new Error('dist/main.js or dist/cli/main.js is missing: run `npm run build` first.');
}

/**
 * Writes the vault: the replicated pages, and FILES attachments in a few folders, each a real file of its kind
 * (a PNG, PDF or WAV fixture padded with bytes its format ignores after the end) of a size between 1 KB and MAX_KB.
 * Page i embeds file i mod FILES (by name, as Obsidian writes it), so every file is referenced.
 */
async function writeVault(dir) {
  const corpus = await replicateCorpus(FOAM_DOCS, dir, PAGES);
  const kinds = [
    { ext: 'png', bytes: await readFile(path.join(FIXTURES, 'pixel.png')) },
    { ext: 'pdf', bytes: await readFile(path.join(FIXTURES, 'doc.pdf')) },
    { ext: 'wav', bytes: await readFile(path.join(FIXTURES, 'tone.wav')) },
  ];
  const names = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const kind = kinds[i % kinds.length];
    const size = Math.max(kind.bytes.length, Math.round(1024 + ((MAX_KB - 1) * 1024 * ((i * 7919) % FILES)) / Math.max(FILES - 1, 1)));
    const padding = Buffer.alloc(size - kind.bytes.length, i % 251);
    const folder = ['assets', 'assets/images', 'media', 'attachments/2024'][i % 4];
    const name = `file-${String(i).padStart(4, '0')}.${kind.ext}`;
    await mkdir(path.join(dir, folder), { recursive: true });
    await writeFile(path.join(dir, folder, name), Buffer.concat([kind.bytes, padding]));
    names.push(name);
    bytes += size;
  }
  const pages = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.md')).sort();
  // --files 0: the same pages without embeds, a baseline measured the same way.
  for (let i = 0; i < pages.length && names.length > 0; i++) {
    const file = path.join(dir, pages[i]);
    await writeFile(file, `${await readFile(file, 'utf8')}\n\n![[${names[i % names.length]}]]\n`);
  }
  return { pages: corpus.files, files: FILES, bytes };
}

async function startServer(setup, tmp) {
  const [database, store] = setup.split('-');
  const port = await freePort();
  const password = benchAdminPassword();
  const env = {
    ...process.env, PORT: String(port), KURATE_HOST: '127.0.0.1', KURATE_LOG_LEVEL: 'error',
    KURATE_ADMIN_EMAIL: BENCH_ADMIN_EMAIL, KURATE_ADMIN_PASSWORD: password, KURATE_ATTACHMENTS_STORE: store,
    KURATE_DATA_DIR: path.join(tmp, `data-${setup}`),
  };
  delete env.DATABASE_URL;
  let admin = null;
  if (database === 'postgres') {
    admin = new pg.Client({ connectionString: opt['pg-admin-url'] });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
    const url = new URL(opt['pg-admin-url']);
    url.pathname = `/${DB_NAME}`;
    env.DATABASE_URL = url.toString();
  }
  const record = startChild(`kurate-${setup}`, process.execPath, [path.join(ROOT, 'dist/main.js')], { cwd: ROOT, env });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(record, `${base}/health`, 180_000);
  const { token } = await logIn(base, BENCH_ADMIN_EMAIL, password);
  return {
    base, token, record, database,
    async stop() {
      await stopChild(record);
      if (admin) {
        await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).catch(() => undefined);
        await admin.end();
      }
    },
  };
}

async function importInto(server, vault) {
  // CPU time is the figure that survives a shared machine: the server's, and its PostgreSQL backends'.
  const window = cpuWindow({ server: () => [server.record.child.pid], database: () => (server.database === 'postgres' ? backendPids(DB_NAME) : []) });
  const started = performance.now();
  const { stdout } = await runOrExplain(server, path.join(ROOT, 'bin/kurate'), ['import', vault, '--json'], {
    cwd: ROOT, env: { ...process.env, KURATE_URL: server.base, KURATE_TOKEN: server.token }, timeout: 900_000, maxBuffer: 256 * 1024 * 1024,
  });
  const wall = (performance.now() - started) / 1000;
  const cpu = window.end();
  return { report: JSON.parse(stdout), wall, serverCpu: (cpu.server / 100) * wall, databaseCpu: (cpu.database / 100) * wall };
}

/** The CLI's run; when it fails, the server's last output says why. */
async function runOrExplain(server, ...args) {
  try {
    return await run(...args);
  } catch (error) {
    error.message += `\nserver output:\n${server.record.output.slice(-4000)}`;
    throw error;
  }
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'kurate-bench-files-'));
const rows = [];
try {
  const vault = path.join(tmp, 'vault');
  const written = await writeVault(vault);
  console.error(`vault: ${written.pages} pages, ${written.files} files, ${(written.bytes / 1024 / 1024).toFixed(1)} MB`);
  for (const setup of setups) {
    const server = await startServer(setup, tmp);
    try {
      const { report, wall, serverCpu, databaseCpu } = await importInto(server, vault);
      const a = report.attachments;
      if (report.counts.failed > 0 || a.counts.failed > 0) throw new Error(`${setup}: ${report.counts.failed} pages and ${a.counts.failed} files failed`);
      const wanted = await (await fetch(`${server.base}/api/reports/wanted?perPage=500`, { headers: { authorization: `Bearer ${server.token}` } })).json();
      const fileWanted = wanted.items.filter((w) => /^file-\d{4}\./.test(w.target)).length;
      rows.push({
        setup, pages: report.files, pagesPerSecond: report.pagesPerSecond, pagesSeconds: report.elapsedMs / 1000,
        files: a.files, megabytes: a.bytes / 1024 / 1024, megabytesPerSecond: a.megabytesPerSecond, filesPerSecond: a.files / (a.elapsedMs / 1000),
        filesSeconds: a.elapsedMs / 1000, wall, wantedFiles: fileWanted, serverCpu, databaseCpu,
      });
      console.error(`${setup}: ${report.pagesPerSecond} pages/s, ${a.megabytesPerSecond} MB/s (${(a.files / (a.elapsedMs / 1000)).toFixed(1)} files/s), ${fileWanted} files among wanted pages`);
    } finally {
      await server.stop();
    }
  }
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
}

const machine = machineInfo();
const load = os.loadavg().map((l) => l.toFixed(1)).join(', ');
const report = [
  `## ${new Date().toISOString().slice(0, 10)} — import of a vault with attachments (issue 19; bench/import-attachments.mjs)`,
  '',
  `Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memory}, Node ${machine.node}; load average at the end ${load} (the machine is shared with other sessions).`,
  `Vault: the Foam docs replicated to ${PAGES} pages, ${FILES > 0 ? `each embedding one of ${FILES} files (PNG, PDF and WAV, 1–${MAX_KB} KB, in four folders)` : 'without attachments or embeds (a baseline; the corpus LICENSE is the one file)'}. \`bin/kurate import\` uploads the files first (four requests in flight), then the pages in batches.`,
  '',
  '| setup (database, store) | pages | pages/s | files | MB | MB/s | files/s | whole CLI run | server CPU | PostgreSQL CPU | files among wanted pages |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.setup} | ${r.pages} | ${r.pagesPerSecond} | ${r.files} | ${r.megabytes.toFixed(1)} | ${r.megabytesPerSecond} | ${r.filesPerSecond.toFixed(1)} | ${r.wall.toFixed(1)} s | ${r.serverCpu.toFixed(1)} s | ${r.databaseCpu ? `${r.databaseCpu.toFixed(1)} s` : '–'} | ${r.wantedFiles} |`),
  '',
].join('\n');
console.log(report);
if (!opt['no-write']) await appendFile(path.join(BENCH_DIR, 'RESULTS.md'), `\n${report}`);
