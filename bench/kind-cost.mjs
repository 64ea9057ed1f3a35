#!/usr/bin/env node
// CPU per request of one kind of request alone (issue 18 part 5): a Kurate server on the bench database that
// `npm run bench -- --only mixed --keep-db` left (1,000 pages), loaded with saves, searches or logged-in page views,
// while the CPU of the web process, its worker and every PostgreSQL backend is read from /proc. Compares builds when
// run against each (--app-root), alternating.
//
//   node bench/kind-cost.mjs --kind save [--requests 300] [--clients 4] [--rounds 2] [--cluster excluded|included]
//                            [--app-root <built copy>] [--profile <dir>] [--wal] [--plans]
//   node bench/kind-cost.mjs --kind get --path '/search?q=getting%20started'   (one anonymous GET, the same each time:
//                            `/health` is what every request costs before its route does anything)
//
// Prints one line per round (after one warm-up round): wall time, milliseconds of CPU per request for the web
// process, the worker and PostgreSQL, WAL bytes per request and the page-link rows written per request. The bench
// admin's password is set on the bench database (it is the bench's own), so that the driver can log in.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import argon2 from 'argon2';
import { BENCH_ADMIN_EMAIL, logIn } from './lib/auth.mjs';
import { freePort, waitForHttp, startChild, stopChild } from './lib/procs.mjs';
import { serverNodeFlags } from './lib/server-flags.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    kind: { type: 'string', default: 'save' },
    path: { type: 'string' },
    requests: { type: 'string', default: '300' },
    clients: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    cluster: { type: 'string', default: 'excluded' },
    'app-root': { type: 'string', default: path.resolve(BENCH_DIR, '..') },
    'database-url': { type: 'string', default: process.env.KURATE_BENCH_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/kurate_bench' },
    profile: { type: 'string' },
    wal: { type: 'boolean', default: false },
    plans: { type: 'boolean', default: false },
  },
});
if (!['save', 'search', 'view', 'get'].includes(opt.kind)) throw new Error(`--kind must be save, search, view or get (got ${opt.kind})`);
if ((opt.kind === 'get') !== (opt.path !== undefined)) throw new Error('--path goes with --kind get, and --kind get needs a --path');
if (!['excluded', 'included'].includes(opt.cluster)) throw new Error(`--cluster must be excluded or included (got ${opt.cluster})`);
const [REQUESTS, CLIENTS, ROUNDS] = [Number(opt.requests), Number(opt.clients), Number(opt.rounds)];
/** The cluster the mixed load includes in the knowledge graph (bench/run.mjs). */
const INCLUDED = 'user/features';
const PASSWORD = 'kind-cost-bench-password';

const db = new pg.Client({ connectionString: opt['database-url'] });
await db.connect();
await db.query('UPDATE users SET password_hash = $1 WHERE email = $2', [await argon2.hash(PASSWORD, { type: argon2.argon2id }), BENCH_ADMIN_EMAIL]);

const root = path.resolve(opt['app-root']);
const port = await freePort();
const env = { ...process.env, PORT: String(port), KURATE_HOST: '127.0.0.1', KURATE_LOG_LEVEL: 'error', DATABASE_URL: opt['database-url'], KURATE_PUBLIC_READ: 'true' };
delete env.KURATE_DATA_DIR;
// --plans: the bench's server hook (bench/server-hook.mjs) lists, after the rounds, the prepared statements that
// PostgreSQL keeps planning again (custom plans) rather than running on one generic plan.
const hookPort = opt.plans ? await freePort() : null;
if (hookPort) env.KURATE_BENCH_HOOK_PORT = String(hookPort);
const hookArgs = hookPort ? ['--import', path.join(BENCH_DIR, 'server-hook.mjs')] : [];
const server = startChild('kurate', process.execPath, [...serverNodeFlags(root), ...hookArgs, ...(opt.profile ? ['--cpu-prof', `--cpu-prof-dir=${opt.profile}`] : []), path.join(root, 'dist/main.js')], { cwd: root, env });
const base = `http://127.0.0.1:${port}`;
await waitForHttp(server, `${base}/health`, 120_000);
const auth = await logIn(base, BENCH_ADMIN_EMAIL, PASSWORD);
const apiHeaders = { authorization: `Bearer ${auth.token}`, 'content-type': 'application/json' };

/** CPU ticks (user + system) of a process, 0 once it is gone. */
function ticks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
const pids = (args) => {
  try {
    return execFileSync('pgrep', args).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const cpu = () => ({
  web: ticks(server.child.pid),
  worker: pids(['-P', String(server.child.pid)]).reduce((n, pid) => n + ticks(pid), 0),
  db: pids(['-x', 'postgres']).reduce((n, pid) => n + ticks(pid), 0),
});
const walAndLinks = async () =>
  (await db.query(`SELECT pg_current_wal_lsn()::text AS lsn, (SELECT n_tup_ins + n_tup_del + n_tup_upd FROM pg_stat_user_tables WHERE relname = 'page_links')::float8 AS links`)).rows[0];

const pages = (
  await db.query(`SELECT slug, version, body FROM pages WHERE deleted_at IS NULL AND ($1 = ANY (clusters)) = $2 ORDER BY slug LIMIT 400`, [INCLUDED, opt.cluster === 'included'])
).rows;
// The mixed load's queries: the first two words of each slug (bench/run.mjs).
const slugs = (await db.query('SELECT slug FROM pages WHERE deleted_at IS NULL ORDER BY slug')).rows.map((r) => r.slug);
const queries = [
  ...new Set(slugs.map((s) => s.replace(/-\d+$/, '').split('-').filter((w) => w.length > 2 && !/^\d+$/.test(w))).filter((w) => w.length >= 2).map((w) => `${w[0]} ${w[1]}`)),
];
let edits = 0;

async function one(client, i) {
  let response;
  if (opt.kind === 'save') {
    const page = pages[(client * 50 + (i % 50)) % pages.length];
    const body = `${page.body.replace(/\n*Kind-cost edit \d+\.$/, '')}\n\nKind-cost edit ${edits++}.`;
    response = await fetch(`${base}/api/pages/${encodeURIComponent(page.slug)}`, {
      method: 'PUT',
      headers: apiHeaders,
      body: JSON.stringify({ body, baseVersion: page.version, message: 'kind-cost' }),
    });
    const saved = await response.json();
    if (response.status === 200) Object.assign(page, { version: saved.version, body });
  } else if (opt.kind === 'get') {
    response = await fetch(`${base}${opt.path}`);
    await response.arrayBuffer();
  } else if (opt.kind === 'search') {
    response = await fetch(`${base}/search?q=${encodeURIComponent(queries[(client * 37 + i) % queries.length])}`);
    await response.arrayBuffer();
  } else {
    response = await fetch(`${base}/page/${encodeURIComponent(pages[(client * 37 + i) % pages.length].slug)}`, { headers: { cookie: auth.cookie } });
    await response.arrayBuffer();
  }
  if (response.status !== 200) throw new Error(`${opt.kind}: answered ${response.status}`);
}

async function round() {
  const perClient = Math.ceil(REQUESTS / CLIENTS);
  const n = perClient * CLIENTS;
  const [before, walBefore, started] = [cpu(), await walAndLinks(), Date.now()];
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = 0; i < perClient; i++) await one(client, i);
  }));
  const [after, ms] = [cpu(), Date.now() - started];
  // The statistics collector reports a backend's counts within half a second of its transaction's end.
  await new Promise((resolve) => setTimeout(resolve, 700));
  const walAfter = await walAndLinks();
  const walBytes = (await db.query('SELECT pg_wal_lsn_diff($1, $2)::float8 AS d', [walAfter.lsn, walBefore.lsn])).rows[0].d;
  const perRequest = (key) => (((after[key] - before[key]) * 10) / n).toFixed(2); // a tick is 10 ms
  const line = { ms, web: perRequest('web'), worker: perRequest('worker'), db: perRequest('db') };
  if (opt.wal) Object.assign(line, { walBytes: Math.round(walBytes / n), linkRows: ((walAfter.links - walBefore.links) / n).toFixed(1) });
  return line;
}

try {
  await round(); // warm-up: prepared statements, caches
  for (let r = 1; r <= ROUNDS; r++) console.log(`${opt.kind} round ${r}/${ROUNDS} (${REQUESTS} requests, ${CLIENTS} clients, ${root}): ${JSON.stringify(await round())}`);
  if (hookPort) {
    const plans = await (await fetch(`http://127.0.0.1:${hookPort}/plans`)).json();
    for (const p of plans.filter((x) => x.custom > 5 * x.connections)) console.log(`planned again: ${p.custom} custom, ${p.generic} generic plans on ${p.connections} connection(s): ${p.statement}`);
  }
} finally {
  await stopChild(server);
  await db.end();
}
