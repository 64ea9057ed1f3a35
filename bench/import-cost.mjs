#!/usr/bin/env node
// The import alone, and what it costs per page (issue 18 part 5; the bench's import aim): for each round and each
// build named, a fresh `kurate_bench` database, the built server on it, and `bin/kurate import` of the bench's corpus
// (1,000 pages by default), its wall time and the CPU per page of the web process, its worker and every PostgreSQL
// backend read from /proc (and the CLI's own, from `time`). Builds alternate round by round, so that a machine whose
// speed drifts treats them alike.
//
//   node bench/import-cost.mjs [--app-roots <built copy>,<built copy>…] [--rounds 3] [--pages 1000]
//                              [--cli-args "--batch-size 50"] [--statements]
//
// --statements: the statements the database spent its time on, nested ones included (pg_stat_statements with
// `track = all`, and `track_functions = pl` for the triggers), when the server has loaded pg_stat_statements
// (`shared_preload_libraries`); the bench database is made afresh each round, so nothing of it stays.
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { FOAM_DOCS, replicateCorpus } from './lib/corpus.mjs';
import { backendPids, childPids, cpuWindow } from './lib/machine.mjs';
import { freePort, startChild, stopAll, stopChild, waitForHttp } from './lib/procs.mjs';
import { BENCH_ADMIN_EMAIL, benchAdminPassword, logIn } from './lib/auth.mjs';
import { serverNodeFlags } from './lib/server-flags.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    'app-roots': { type: 'string', default: path.resolve(BENCH_DIR, '..') },
    rounds: { type: 'string', default: '3' },
    pages: { type: 'string', default: '1000' },
    'cli-args': { type: 'string', default: '' },
    statements: { type: 'boolean', default: false },
    'pg-admin-url': { type: 'string', default: process.env.KURATE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const roots = opt['app-roots'].split(',').map((r) => path.resolve(r));
const [ROUNDS, PAGES] = [Number(opt.rounds), Number(opt.pages)];
const DB_NAME = 'kurate_bench';
const databaseUrl = (() => {
  const url = new URL(opt['pg-admin-url']);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
})();

async function query(connectionString, sql) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'kurate-import-cost-'));
try {
  const corpus = path.join(tmp, 'corpus');
  await replicateCorpus(FOAM_DOCS, corpus, PAGES);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const root of roots) await measure(root, round, corpus);
  }
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
}

async function measure(root, round, corpus) {
  await query(opt['pg-admin-url'], `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await query(opt['pg-admin-url'], `CREATE DATABASE ${DB_NAME}`);
  if (opt.statements) {
    await query(opt['pg-admin-url'], `ALTER DATABASE ${DB_NAME} SET track_functions = 'pl'`);
    await query(opt['pg-admin-url'], `ALTER DATABASE ${DB_NAME} SET pg_stat_statements.track = 'all'`);
  }
  const port = await freePort();
  const password = benchAdminPassword();
  const env = {
    ...process.env, PORT: String(port), KURATE_HOST: '127.0.0.1', KURATE_LOG_LEVEL: 'error', DATABASE_URL: databaseUrl,
    KURATE_ADMIN_EMAIL: BENCH_ADMIN_EMAIL, KURATE_ADMIN_PASSWORD: password, KURATE_PUBLIC_READ: 'true',
  };
  delete env.KURATE_DATA_DIR;
  const server = startChild('kurate', process.execPath, [...serverNodeFlags(root), path.join(root, 'dist/main.js')], { cwd: root, env });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(server, `${base}/health`, 120_000);
    const { token } = await logIn(base, BENCH_ADMIN_EMAIL, password);
    // The start-up's own work (migrations, the first reconciliation) settles before the window opens.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    let statements = opt.statements;
    if (statements) {
      try {
        await query(databaseUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
        await query(databaseUrl, 'SELECT pg_stat_statements_reset()');
        await query(databaseUrl, 'SELECT pg_stat_reset()');
      } catch (error) {
        console.log(`--statements: ${error.message} (add pg_stat_statements to shared_preload_libraries and restart PostgreSQL)`);
        statements = false;
      }
    }
    const pid = server.child.pid;
    const window = cpuWindow({ server: () => [pid], worker: () => childPids(pid), db: () => backendPids(DB_NAME) });
    const started = performance.now();
    // `time` reports the CLI's own CPU (it has exited when the window closes, so /proc no longer has it).
    const cli = startChild('kurate-import', 'bash', ['-c', `time ${JSON.stringify(path.join(root, 'bin/kurate'))} import ${opt['cli-args']} ${JSON.stringify(corpus)}`], {
      cwd: root, env: { ...process.env, KURATE_URL: base, KURATE_TOKEN: token },
    });
    const exited = await cli.done;
    const seconds = (performance.now() - started) / 1000;
    const cpu = window.end();
    if (exited.code !== 0) throw new Error(`bin/kurate import exited ${JSON.stringify(exited)}:\n${cli.output.slice(-3000)}`);
    const cliCpu = [...cli.output.matchAll(/^(user|sys)\s+(\d+)m([\d.]+)s/gm)].reduce((sum, m) => sum + Number(m[2]) * 60 + Number(m[3]), 0);
    const perPage = (share) => ((share / 100) * seconds * 1000 / PAGES).toFixed(2);
    console.log(
      `${root} round ${round}: ${(PAGES / seconds).toFixed(0)} pages/s (${seconds.toFixed(2)} s); CPU ms per page: web ${perPage(cpu.server)}, ` +
        `worker ${perPage(cpu.worker)}, database ${perPage(cpu.db)}, CLI ${((cliCpu * 1000) / PAGES).toFixed(2)}; machine ${cpu.machineBusy.toFixed(0)}% busy`,
    );
    if (statements) await printStatements();
  } finally {
    await stopChild(server);
  }
}

async function printStatements() {
  const rows = await query(
    databaseUrl,
    `SELECT calls, round((total_exec_time / ${PAGES})::numeric, 3) AS per_page, round((total_exec_time / calls)::numeric, 3) AS per_call,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS statement
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20`,
  );
  for (const r of rows) console.log(`  ${r.per_page} ms a page, ${r.calls} calls, ${r.per_call} ms a call: ${r.statement}`);
  const functions = await query(databaseUrl, 'SELECT funcname, calls, round(self_time::numeric, 1) AS self_ms FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 8');
  for (const f of functions) console.log(`  function ${f.funcname}: ${f.calls} calls, ${f.self_ms} ms`);
}
