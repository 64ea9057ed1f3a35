#!/usr/bin/env node
// Kurate benchmark (issue 2): 1,000 pages (foam-docs replicated) on real PostgreSQL, then on the embedded database.
// Measures the import rate, page-view throughput under load (against a bare Express server answering the same bytes,
// in the same run), and save latency. Prints a Markdown report and appends it to bench/RESULTS.md.
//
//   npm run bench                      build, then both databases, results appended to bench/RESULTS.md
//   node bench/run.mjs --help          options
//
// Everything is bounded: each loop has a count and a deadline, and every child process is killed at the end.
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { FOAM_DOCS, replicateCorpus } from './lib/corpus.mjs';
import { mixedLoad } from './lib/mixed-load.mjs';
import { backendPids, busyShare, childPids, cpuWindow, machineInfo, reniceAutogroup, reniceProcess } from './lib/machine.mjs';
import { freePort, killAllNow, startChild, stopAll, stopChild, waitForHttp } from './lib/procs.mjs';
import { summarise } from './profile-summary.mjs';
import { BENCH_ADMIN_EMAIL, benchAdminPassword, logIn } from './lib/auth.mjs';
import { serverNodeFlags } from './lib/server-flags.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH_DIR, '..');
const DB_NAME = 'kurate_bench';
const PRIORITY = -10;
const AIMS = { viewRps: 1500, ratio: 0.5, saveP95: 30, importRate: 200 };

const { values: opt } = parseArgs({
  options: {
    pages: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    saves: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string', default: '' },
    'mixed-clients': { type: 'string', default: '16' },
    'quiet-wait': { type: 'string', default: '45' },
    'mixed-rounds': { type: 'string' },
    'skip-postgres': { type: 'boolean', default: false },
    'skip-embedded': { type: 'boolean', default: false },
    embedded: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    'keep-tmp': { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    'normal-priority': { type: 'boolean', default: false },
    'import-via': { type: 'string', default: 'auto' },
    corpus: { type: 'string', default: process.env.KURATE_BENCH_CORPUS ?? FOAM_DOCS },
    'pg-admin-url': { type: 'string', default: process.env.KURATE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'app-root': { type: 'string', default: REPO },
    help: { type: 'boolean', default: false },
  },
});
// The built app (dist/, bin/, node_modules/) the bench runs: this repo unless --app-root names a copy of it.
const ROOT = path.resolve(opt['app-root']);

if (opt.help) {
  console.log(`node bench/run.mjs [options]   (npm run bench -- [options])
  --pages N            pages in the replicated corpus (default 1000)
  --connections N      autocannon connections for the page-view load (default 32)
  --duration S         measured seconds of each load run (default 10); --warmup S before it (default 3)
  --saves N            sequential timed saves per round (default 500)
  --rounds N           rounds of each load and of the saves (default 3; the best is reported, all are listed)
  --only mixed         only the import and the mixed load (with its logged-in page views against bare Express)
  --quiet-wait S       wait at most S seconds for the machine to be idle before each measured run (default 45)
  --mixed-clients N    concurrent clients of the mixed load (default 16)
  --mixed-rounds N     rounds of the mixed load (default: --rounds); each round runs it with and without extraction
  --skip-postgres      only the embedded database (also: --embedded)
  --skip-embedded      only real PostgreSQL
  --profile            CPU-profile the server during the import, the first measured page-view round (anonymous and
                       logged in) and the first round of saves, and print a summary (nothing is appended to RESULTS.md: the profiler slows
                       the server)
  --no-write           do not append to bench/RESULTS.md
  --import-via WAY     auto (default: bin/kurate when it and dist/cli/main.js exist, else the batch route),
                       cli, or batch (POST /api/import directly)
  --normal-priority    do not raise the priority (nice ${PRIORITY}) of the bench, its servers and the ${DB_NAME}
                       backends; by default they are raised so that other work on the machine disturbs less
  --keep-db            leave the ${DB_NAME} database in place afterwards (for EXPLAIN and friends)
  --keep-tmp           keep the temp folder (corpus, embedded data, profiles)
  --corpus DIR         source corpus (default test/fixtures/foam-docs)
  --app-root DIR       run the build in another checkout (default: this repo)
  --pg-admin-url URL   maintenance connection used to drop/create the ${DB_NAME} database`);
  process.exit(0);
}

const PAGES = int(opt.pages, 'pages', 1, 20000);
const CONNECTIONS = int(opt.connections, 'connections', 1, 1000);
const DURATION = int(opt.duration, 'duration', 1, 300);
const WARMUP = int(opt.warmup, 'warmup', 0, 60);
const SAVES = int(opt.saves, 'saves', 1, 5000);
const ROUNDS = int(opt.rounds, 'rounds', 1, 10);
const WRITE = !opt['no-write'] && !opt.profile;
if (!['', 'mixed'].includes(opt.only)) throw new Error(`--only must be mixed (got ${opt.only})`);
const ONLY_MIXED = opt.only === 'mixed';
const QUIET_WAIT_S = int(opt['quiet-wait'], 'quiet-wait', 0, 300);
const MIXED_CLIENTS = int(opt['mixed-clients'], 'mixed-clients', 1, 256);
const MIXED_ROUNDS = int(opt['mixed-rounds'] ?? opt.rounds, 'mixed-rounds', 1, 10);
/** The mixed load saves into the first cluster (included in the knowledge graph) or the second (excluded). */
const MIXED_CLUSTERS = ['user/features', 'user/recipes'];
const MIXED_AIMS = { rps: 500, p95: 100, sessionRatio: 0.3, extractionCost: 0.2 };
let BOOST = false;

function int(raw, name, min, max) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in [${min}, ${max}] (got ${raw})`);
  return n;
}

function log(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers (bounded by timeouts)

/** Headers that authenticate the bench's API calls (an API token), set once the bench has logged in. */
let apiAuth = {};

async function http(base, method, pathname, body, { timeoutMs = 30_000, anonymous = false } = {}) {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...(anonymous ? {} : apiAuth), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, contentType: response.headers.get('content-type') ?? '' };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1);
  return { n: sorted.length, mean, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

// ---------------------------------------------------------------------------------------------------------------
// Database

async function withAdmin(fn) {
  const client = new pg.Client({ connectionString: opt['pg-admin-url'], connectionTimeoutMillis: 10_000, statement_timeout: 60_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function freshDatabase() {
  return withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${DB_NAME}`);
    return (await client.query('SELECT version() AS v')).rows[0].v;
  });
}

async function dropDatabase() {
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`)).catch((error) => log(`could not drop ${DB_NAME}: ${error.message}`));
}

function databaseUrl() {
  const url = new URL(opt['pg-admin-url']);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------------------
// Kurate server

async function startKurate(kind, tmp) {
  const port = await freePort();
  const password = benchAdminPassword();
  const env = {
    ...process.env, PORT: String(port), KURATE_HOST: '127.0.0.1', KURATE_LOG_LEVEL: 'error',
    // The first admin (a fresh database has none), whom the bench logs in as; pages stay readable anonymously.
    KURATE_ADMIN_EMAIL: BENCH_ADMIN_EMAIL, KURATE_ADMIN_PASSWORD: password, KURATE_PUBLIC_READ: 'true',
  };
  delete env.DATABASE_URL;
  delete env.KURATE_DATA_DIR;
  if (kind === 'postgres') env.DATABASE_URL = databaseUrl();
  else env.KURATE_DATA_DIR = path.join(tmp, 'embedded-data');
  const profileDir = path.join(tmp, `profiles-${kind}`);
  await mkdir(profileDir, { recursive: true });
  const hookPort = await freePort();
  env.KURATE_BENCH_HOOK_PORT = String(hookPort);
  env.KURATE_BENCH_PROFILE_DIR = profileDir;
  const args = [...serverNodeFlags(ROOT), '--import', pathToImport(path.join(BENCH_DIR, 'server-hook.mjs')), path.join(ROOT, 'dist/main.js')];
  const record = startChild(`kurate-${kind}`, process.execPath, args, { cwd: ROOT, env });
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  await waitForHttp(record, `${base}/health`, 120_000);
  log(`Kurate (${kind}) answers /health after ${Date.now() - started} ms, pid ${record.child.pid}`);
  const auth = await logIn(base, BENCH_ADMIN_EMAIL, password);
  apiAuth = auth.token ? { authorization: `Bearer ${auth.token}` } : {};
  log(auth.auth ? 'logged in as the first admin; API calls carry a write-scope API token' : 'this build has no accounts: no login needed');
  /** The server hook (bench/server-hook.mjs): SQL statement counts and the CPU profiler. */
  const hook = async (route) => {
    const r = await http(`http://127.0.0.1:${hookPort}`, 'GET', route, undefined, { anonymous: true });
    if (r.status !== 200) throw new Error(`server hook ${route}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.json;
  };
  /** Starts the server's CPU profiler; the function it returns stops it and summarises the profile. */
  const profile = async () => {
    await hook('/profile/start');
    return async () => {
      const { file } = await hook('/profile/stop');
      return `${file}\n${summarise(JSON.parse(await readFile(file, 'utf8')), 30)}`;
    };
  };
  return { record, base, port, profile, auth, hook };
}

function pathToImport(p) {
  return new URL(`file://${p}`).href;
}

// ---------------------------------------------------------------------------------------------------------------
// Import

async function runImport(base, corpusDir) {
  const cli = path.join(ROOT, 'bin/kurate');
  const via = opt['import-via'];
  if (!['auto', 'cli', 'batch'].includes(via)) throw new Error(`--import-via must be auto, cli or batch (got ${via})`);
  const cliReady = existsSync(cli) && existsSync(path.join(ROOT, 'dist/cli/main.js'));
  if (via === 'cli' && !cliReady) throw new Error('--import-via cli: bin/kurate or dist/cli/main.js is missing');
  if (via === 'cli' || (via === 'auto' && cliReady)) {
    const head = (await readFile(cli, 'utf8')).slice(0, 200);
    const [command, args] = head.startsWith('#!') && /node/.test(head.split('\n')[0]) ? [process.execPath, [cli, 'import', corpusDir]] : [cli, ['import', corpusDir]];
    const started = performance.now();
    const cliEnv = { ...process.env, KURATE_URL: base };
    if (apiAuth.authorization) cliEnv.KURATE_TOKEN = apiAuth.authorization.slice('Bearer '.length);
    const record = startChild('kurate-import-cli', command, args, { cwd: ROOT, env: cliEnv });
    const exited = await Promise.race([record.done, sleep(300_000).then(() => null)]);
    const seconds = (performance.now() - started) / 1000;
    if (!exited) {
      await stopChild(record);
      throw new Error('bin/kurate import did not finish within 300 s');
    }
    if (exited.code !== 0) throw new Error(`bin/kurate import exited ${JSON.stringify(exited)}:\n${record.output.slice(-3000)}`);
    return { method: '`bin/kurate import <folder>` (CLI, wall time of the whole process)', seconds, output: record.output.trim().split('\n').slice(-6).join('\n') };
  }

  const probe = await http(base, 'POST', '/api/import', { pages: [] });
  if (probe.status === 404) {
    // Neither the CLI nor the batch route yet: one POST /api/pages per page, sequential.
    const pages = await simplePages(corpusDir);
    const started = performance.now();
    for (const page of pages) {
      const r = await http(base, 'POST', '/api/pages', { title: page.title, body: page.body });
      if (r.status !== 201) throw new Error(`POST /api/pages ${page.path}: ${r.status} ${r.text.slice(0, 300)}`);
    }
    return { method: 'POST /api/pages one page at a time (neither bin/kurate nor /api/import existed)', seconds: (performance.now() - started) / 1000 };
  }

  // The batch route, fed exactly what the CLI would send (the CLI's own vault code from dist/, when built).
  const pages = await cliPages(corpusDir);
  const started = performance.now();
  const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  const failures = [];
  for (let i = 0; i < pages.length; i += 200) {
    const r = await http(base, 'POST', '/api/import', { pages: pages.slice(i, i + 200) }, { timeoutMs: 300_000 });
    if (r.status !== 200) throw new Error(`POST /api/import: ${r.status} ${r.text.slice(0, 500)}`);
    for (const key of Object.keys(counts)) counts[key] += r.json.counts[key];
    failures.push(...r.json.results.filter((x) => x.status === 'failed'));
  }
  const seconds = (performance.now() - started) / 1000;
  if (failures.length) log(`import failures: ${JSON.stringify(failures.slice(0, 5))}`);
  return {
    method: `\`POST /api/import\` batches of 200, sequential (${via === 'batch' ? '--import-via batch' : 'bin/kurate is not built'}; the pages built with the CLI's own vault code from dist/cli)`,
    seconds,
    output: JSON.stringify(counts),
  };
}

async function simplePages(corpusDir) {
  const out = [];
  const walk = async (dir, rel) => {
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) await walk(path.join(dir, e.name), [...rel, e.name]);
      else if (/\.md$/.test(e.name)) out.push({ path: [...rel, e.name].join('/'), title: e.name.replace(/\.md$/, ''), body: await readFile(path.join(dir, e.name), 'utf8') });
    }
  };
  await walk(corpusDir, []);
  return out;
}

async function cliPages(corpusDir) {
  const files = path.join(ROOT, 'dist/cli/vault-files.js');
  const vault = path.join(ROOT, 'dist/cli/vault-pages.js');
  if (!existsSync(files) || !existsSync(vault)) return simplePages(corpusDir);
  const { scanVault, readVaultFile } = await import(pathToImport(files));
  const { pagesOfVault } = await import(pathToImport(vault));
  const scan = await scanVault(corpusDir);
  const sources = [];
  for (const file of scan.files) sources.push({ relativePath: file.relativePath, source: await readVaultFile(scan.root, file) });
  const { pages, rejected } = pagesOfVault(sources);
  if (rejected.length) log(`vault rejected ${rejected.length} files: ${JSON.stringify(rejected.slice(0, 3))}`);
  return pages;
}

async function allSlugs(base, expected) {
  const slugs = [];
  for (let page = 1; page <= 100 && slugs.length < expected + 500; page++) {
    const r = await http(base, 'GET', `/api/pages?perPage=500&page=${page}&sort=title`);
    if (r.status !== 200) throw new Error(`GET /api/pages: ${r.status} ${r.text.slice(0, 300)}`);
    slugs.push(...r.json.items.map((p) => p.slug));
    if (r.json.items.length < 500) break;
  }
  return slugs;
}

// ---------------------------------------------------------------------------------------------------------------
// Load

/** autocannon against `paths` in a shared round robin; a warm-up first (counted apart, not reported). */
async function load(base, paths, { label, cpuGroups, profile, headers }) {
  let next = 0;
  const requests = [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }];
  const common = { url: base, connections: CONNECTIONS, pipelining: 1, timeout: 10, requests, ...(headers ? { headers } : {}) };
  let warmupTotal = 0;
  if (WARMUP > 0) {
    const w = await autocannon({ ...common, duration: WARMUP });
    warmupTotal = w.requests.total;
    if (w.non2xx || w.errors) log(`${label}: warm-up saw ${w.non2xx} non-2xx, ${w.errors} errors`);
  }
  const before = await waitForQuiet(label);
  boostBackends();
  const stopProfile = profile ? await profile() : null;
  const load1 = os.loadavg()[0];
  const cpu = cpuWindow(cpuGroups);
  const r = await autocannon({ ...common, duration: DURATION });
  const usage = withOthers(cpu.end());
  const profileText = stopProfile ? await stopProfile() : null;
  const out = {
    rps: r.requests.total / r.duration,
    total: r.requests.total,
    p50: r.latency.p50,
    p975: r.latency.p97_5,
    p99: r.latency.p99,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    warmupTotal,
    busyBefore: before,
    load1,
    cpu: usage,
    profileText,
  };
  log(`${label}: ${out.rps.toFixed(0)} req/s, p50 ${out.p50} ms, p99 ${out.p99} ms, non-2xx ${out.non2xx}; CPU (100 = 1 core) server ${f0(usage.server)}, db ${f0(usage.db)}, bench ${f0(usage.bench)}, others ${f0(usage.others)}`);
  return out;
}

/**
 * Waits (bounded) until the machine has been nearly idle for a second: other work on these 2 cores skews every number.
 * Returns the busy share seen last.
 */
async function waitForQuiet(label, limitMs = QUIET_WAIT_S * 1000) {
  let busy = await busyShare(1000);
  const deadline = Date.now() + limitMs;
  let said = false;
  while (busy > 12 && Date.now() < deadline) {
    if (!said) log(`${label}: machine ${busy.toFixed(0)}% busy (other work); waiting up to ${limitMs / 1000} s for it to calm down`);
    said = true;
    await sleep(500);
    busy = await busyShare(1000);
  }
  return busy;
}

/** The ${DB_NAME} backends get the bench's priority too (they serve only the bench's own database). */
function boostBackends() {
  if (!BOOST) return;
  for (const pid of backendPids(DB_NAME)) reniceProcess(pid, PRIORITY);
}

/** CPU groups for cpuWindow: the server, its PostgreSQL backends, this process, and everything else (100 = 1 core). */
function cpuGroupsOf(serverPid, withDb) {
  return {
    server: () => [serverPid],
    // A worker process the server started for the job queue (KURATE_ROLE=all on PostgreSQL), if any.
    worker: () => childPids(serverPid),
    db: () => (withDb ? backendPids(DB_NAME) : []),
    bench: () => [process.pid],
  };
}

function withOthers(usage) {
  const cores = os.cpus().length;
  return { ...usage, others: Math.max(0, (usage.machineBusy * cores) - usage.server - (usage.worker ?? 0) - usage.db - usage.bench) };
}

// ---------------------------------------------------------------------------------------------------------------
// Mixed load (issue 18 part 5)

/** Two-word queries from the corpus's page titles (the first two words of each title of two words or more). */
function twoWordQueries(slugs) {
  const seen = new Set();
  for (const slug of slugs) {
    const words = slug.replace(/-\d+$/, '').split('-').filter((w) => w.length > 2 && !/^\d+$/.test(w));
    if (words.length >= 2) seen.add(`${words[0]} ${words[1]}`);
  }
  return [...seen];
}

async function pagesOfCluster(base, cluster) {
  const r = await http(base, 'GET', `/api/pages?perPage=500&cluster=${encodeURIComponent(cluster)}`);
  if (r.status !== 200) throw new Error(`GET /api/pages?cluster=${cluster}: ${r.status} ${r.text.slice(0, 200)}`);
  return r.json.items.filter((p) => p.cluster === cluster).map((p) => p.slug);
}

/** As the admin's session (cookie + CSRF token): the policy and status routes are for admins. */
async function asAdmin(kurate, method, pathname, body) {
  const response = await fetch(`${kurate.base}${pathname}`, {
    method,
    headers: { cookie: kurate.auth.cookie, 'x-csrf-token': kurate.auth.csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Extraction jobs: open (queued, retrying, running) and completed so far, from GET /api/admin/kg/status. */
async function extractionJobs(kurate) {
  const status = await asAdmin(kurate, 'GET', '/api/admin/kg/status');
  const q = status.queues.find((x) => x.queue === 'kg-extract-page') ?? { queued: 0, retrying: 0, running: 0, completed: 0, failed: 0 };
  return { open: q.queued + q.retrying + q.running, completed: q.completed, failed: q.failed };
}

async function drainExtraction(kurate, limitMs) {
  const started = Date.now();
  let jobs = await extractionJobs(kurate);
  while (jobs.open > 0 && Date.now() - started < limitMs) {
    await sleep(250);
    jobs = await extractionJobs(kurate);
  }
  return { ...jobs, ms: Date.now() - started };
}

/**
 * The mixed load: MIXED_CLIENTS clients, 60% page reads (half anonymous, half logged in), 30% two-word searches
 * (the HTML results page), 10% saves (API token). Each round runs it twice: saves into the included cluster (each
 * save queues an extraction job: extraction running) and saves into an excluded one (no extraction), so that what
 * extraction costs the readers is measured in the same window. The extraction backlog is drained between runs.
 */
async function benchMixed(kurate, slugs, groups) {
  const { base } = kurate;
  const [included, excluded] = MIXED_CLUSTERS;
  const savePages = { included: await pagesOfCluster(base, included), excluded: await pagesOfCluster(base, excluded) };
  if (savePages.included.length < MIXED_CLIENTS || savePages.excluded.length < MIXED_CLIENTS) {
    throw new Error(`the mixed load needs ≥ ${MIXED_CLIENTS} pages in each of ${included} (${savePages.included.length}) and ${excluded} (${savePages.excluded.length})`);
  }
  // Include one cluster: its pages are queued for extraction at once; the first extraction is not measured.
  await asAdmin(kurate, 'PUT', `/admin/kg-policy/clusters/${encodeURIComponent(included)}`, { action: 'include', reason: 'benchmark: mixed load' });
  const first = await drainExtraction(kurate, 300_000);
  log(`mixed: included ${included} (${savePages.included.length} pages): first extraction done in ${first.ms} ms (${first.completed} jobs, ${first.failed} failed, ${first.open} open)`);

  // Every save page's current body and version, each client with pages of its own (no two clients save one page).
  const pageState = {};
  for (const slug of [...savePages.included, ...savePages.excluded]) {
    const r = await http(base, 'GET', `/api/pages/${encodeURIComponent(slug)}`);
    if (r.status !== 200) throw new Error(`GET /api/pages/${slug}: ${r.status}`);
    pageState[slug] = { body: r.json.body.replace(/\s*$/, ''), version: r.json.version };
  }
  const queries = twoWordQueries(slugs);
  const pagePaths = slugs.map((s) => `/page/${encodeURIComponent(s)}`);
  const session = { cookie: kurate.auth.cookie };
  let edits = 0;
  const kindsFor = (target) => {
    const mine = (list, client) => list.filter((_, i) => i % MIXED_CLIENTS === client.index);
    return {
      'page, anonymous': { weight: 30, next: (_c, rng) => ({ method: 'GET', path: pagePaths[Math.floor(rng() * pagePaths.length)], headers: {} }) },
      'page, logged in': { weight: 30, next: (_c, rng) => ({ method: 'GET', path: pagePaths[Math.floor(rng() * pagePaths.length)], headers: session }) },
      search: { weight: 30, next: (_c, rng) => ({ method: 'GET', path: `/search?q=${encodeURIComponent(queries[Math.floor(rng() * queries.length)])}`, headers: {} }) },
      save: {
        weight: 10,
        keepBody: true,
        next: (client, rng) => {
          const list = mine(savePages[target], client);
          const slug = list[Math.floor(rng() * list.length)];
          const n = ++edits;
          const p = pageState[slug];
          // A changed last paragraph: one chunk to extract again, and the page does not grow round after round.
          const body = `${p.body}\n\nMixed-load edit ${n}: ${queries[n % queries.length]} and ${queries[(n * 7) % queries.length]}.\n`;
          return { method: 'PUT', path: `/api/pages/${encodeURIComponent(slug)}`, slug, headers: apiAuth, body: JSON.stringify({ body, baseVersion: p.version, message: `mixed load ${n}` }) };
        },
        done: (_c, req, res) => {
          pageState[req.slug].version = JSON.parse(res.body).version;
        },
      },
    };
  };
  const runs = [];
  for (let round = 1; round <= MIXED_ROUNDS; round++) {
    for (const target of ['included', 'excluded']) {
      const label = `mixed load, round ${round}/${MIXED_ROUNDS}, saves into ${target === 'included' ? `${included} (extraction running)` : `${excluded} (no extraction)`}`;
      const busyBefore = await waitForQuiet(label);
      boostBackends();
      const load1 = os.loadavg()[0];
      let cpu = null;
      let jobsBefore = null;
      let stopProfile = null;
      const profiling = opt.profile && round === 1;
      const r = await mixedLoad({
        base, clients: MIXED_CLIENTS, durationS: DURATION, warmupS: WARMUP, kinds: kindsFor(target), seed: round,
        onMeasureStart: async () => {
          jobsBefore = await extractionJobs(kurate);
          if (profiling) stopProfile = await kurate.profile();
          cpu = cpuWindow(groups);
        },
      });
      const usage = withOthers(cpu.end());
      const profileText = stopProfile ? await stopProfile() : null;
      const jobsAfter = await extractionJobs(kurate);
      const drained = await drainExtraction(kurate, 180_000);
      const reads = ['page, anonymous', 'page, logged in', 'search'].reduce((a, k) => a + r.byKind[k].n, 0) / r.seconds;
      const run = { round, target, ...r, reads, busyBefore, load1, profileText, cpu: usage, jobsDone: jobsAfter.completed - jobsBefore.completed, backlogAfter: jobsAfter.open, drainMs: drained.ms };
      runs.push(run);
      log(`${label}: ${f0(r.overall.rps)} req/s, p95 ${f1(r.overall.p95)} ms, errors ${r.errors}; reads ${f0(reads)}/s; extraction jobs done in the window ${run.jobsDone}, left ${run.backlogAfter} (drained in ${drained.ms} ms); load ${f2(load1)}; CPU server ${f0(usage.server)}, db ${f0(usage.db)}, worker ${f0(usage.worker ?? 0)}, bench ${f0(usage.bench)}, others ${f0(usage.others)}`);
      for (const [k, v] of Object.entries(r.byKind)) if (v.firstErrors.length) log(`  ${k}: ${v.errors} errors, ${v.non2xx} non-2xx, e.g. ${v.firstErrors.join('; ')}`);
    }
  }
  return { runs, included, excluded, pagesIncluded: savePages.included.length, first, queries: queries.length };
}

// ---------------------------------------------------------------------------------------------------------------
// One database kind

async function benchKind(kind, tmp, corpusDir) {
  const result = { kind };
  if (kind === 'postgres') {
    result.dbVersion = await freshDatabase();
    log(`fresh database ${DB_NAME} on ${result.dbVersion.split(' on ')[0]}`);
  } else {
    result.dbVersion = 'PGlite 0.5.14 (PostgreSQL 18 in WebAssembly, in the server process)';
  }
  const isPg = kind === 'postgres';
  const kurate = await startKurate(kind, tmp);
  const { base } = kurate;
  const groups = cpuGroupsOf(kurate.record.child.pid, isPg);
  let bare = null;
  try {
    // 1. Import into the empty database.
    result.import = { busyBefore: await waitForQuiet('import') };
    boostBackends();
    log('importing…');
    await kurate.hook('/reset');
    const stopImportProfile = opt.profile ? await kurate.profile() : null;
    const cpuImport = cpuWindow(groups);
    const imp = await runImport(base, corpusDir);
    result.import.cpu = withOthers(cpuImport.end());
    if (stopImportProfile) result.import.profileText = await stopImportProfile();
    const importCounts = await kurate.hook('/counts');
    const summary = await http(base, 'GET', '/api/reports/summary');
    const slugs = await allSlugs(base, PAGES);
    Object.assign(result.import, imp, { pages: slugs.length, rate: slugs.length / imp.seconds, summary: summary.status === 200 ? summary.json : null });
    log(`import: ${slugs.length} pages in ${imp.seconds.toFixed(2)} s = ${result.import.rate.toFixed(0)} pages/s (${imp.method})`);
    if (slugs.length !== PAGES) throw new Error(`${slugs.length} pages in the wiki after the import, expected ${PAGES}`);
    result.sqlImport = summariseCounts(importCounts, slugs.length);

    // 2. Which page view to load: the server-rendered page, else the rendered JSON.
    const probe = await http(base, 'GET', `/page/${encodeURIComponent(slugs[0])}`, undefined, { anonymous: true });
    const view = probe.status === 200 && probe.contentType.includes('text/html')
      ? { route: 'GET /page/:slug (server-rendered HTML)', prefix: '/page/', suffix: '', contentType: probe.contentType }
      : { route: 'GET /api/pages/:slug?render=true (JSON; /page/:slug did not answer 200)', prefix: '/api/pages/', suffix: '?render=true', contentType: 'application/json; charset=utf-8' };
    result.viewRoute = view.route;
    const paths = slugs.map((s) => `${view.prefix}${encodeURIComponent(s)}${view.suffix}`);

    // The exact bytes Kurate answers, fetched once (one request per page, 8 at a time).
    const bodies = {};
    let bad = 0;
    for (let i = 0; i < slugs.length; i += 8) {
      await Promise.all(slugs.slice(i, i + 8).map(async (slug) => {
        const r = await http(base, 'GET', `${view.prefix}${encodeURIComponent(slug)}${view.suffix}`, undefined, { anonymous: true });
        if (r.status !== 200) bad++;
        bodies[slug] = r.text;
      }));
    }
    if (bad) throw new Error(`${bad} page views did not answer 200 before the load`);
    result.viewBytes = stats(Object.values(bodies).map((b) => Buffer.byteLength(b)));

    // 3 + 4. Page views under load, Kurate and a bare Express answering the same bytes, rounds interleaved.
    const specPath = path.join(tmp, `${kind}-bare-pages.json`);
    await writeFile(specPath, JSON.stringify({ routePrefix: view.prefix, contentType: view.contentType, pages: bodies }));
    const barePort = await freePort();
    const bareBase = `http://127.0.0.1:${barePort}`;
    bare = startChild('bare-express', process.execPath, [path.join(BENCH_DIR, 'bare-express.mjs'), specPath], { cwd: ROOT, env: { ...process.env, PORT: String(barePort) } });
    await waitForHttp(bare, `${bareBase}/health`, 30_000);
    const check = await http(bareBase, 'GET', paths[0], undefined, { anonymous: true });
    if (check.text !== bodies[slugs[0]]) throw new Error('bare Express does not answer the same bytes');
    const bareGroups = cpuGroupsOf(bare.child.pid, false);

    if (!ONLY_MIXED) {
      result.views = [];
      result.bare = [];
      for (let round = 1; round <= ROUNDS; round++) {
        result.views.push(await load(base, paths, { label: `Kurate page views, round ${round}/${ROUNDS}`, cpuGroups: groups, profile: opt.profile && round === 1 ? kurate.profile : null }));
        if (kurate.record.exited) throw new Error(`Kurate exited during the page-view load: ${JSON.stringify(kurate.record.exited)}`);
        result.bare.push(await load(bareBase, paths, { label: `bare Express, round ${round}/${ROUNDS}`, cpuGroups: bareGroups }));
      }
      result.bestView = result.views.reduce((a, b) => (b.rps > a.rps ? b : a));
      result.bestBare = result.bare.reduce((a, b) => (b.rps > a.rps ? b : a));
      result.ratio = result.bestView.rps / result.bestBare.rps;
      result.ratios = result.views.map((v, i) => v.rps / result.bare[i].rps);

      // The floor of any Kurate route: GET /health (Nest, the global middleware, one `SELECT 1`) under the same load, one round.
      result.health_load = await load(base, ['/health'], { label: 'Kurate GET /health (the framework floor)', cpuGroups: groups });

      // SQL statements per page view, counted in the server (bench/server-hook.mjs), one request at a time.
      const sample = spread(paths, Math.min(200, paths.length));
      result.sql = { background: await statementsPerSecondIdle(kurate.hook) };
      result.sql.view = await statementsPer(kurate.hook, sample.length, async () => {
        for (const p of sample) await http(base, 'GET', p, undefined, { anonymous: true });
      });
      if (kurate.auth.cookie) {
        result.sql.viewSession = await statementsPer(kurate.hook, sample.length, async () => {
          for (const p of sample) {
            const r = await fetch(`${base}${p}`, { headers: { cookie: kurate.auth.cookie }, signal: AbortSignal.timeout(30_000) });
            await r.arrayBuffer();
          }
        });
      }

      // 5. Saves: sequential PUTs of a small edit, a different page each time, the right baseVersion, nothing else running.
      const prepared = [];
      for (const slug of spread(slugs, Math.min(SAVES + 20, slugs.length))) {
        const r = await http(base, 'GET', `/api/pages/${encodeURIComponent(slug)}`);
        if (r.status !== 200) throw new Error(`GET /api/pages/${slug}: ${r.status}`);
        prepared.push({ slug, body: r.json.body, version: r.json.version });
      }
      let edits = 0;
      const save = async (p) => {
        const n = ++edits;
        const body = `${p.body.replace(/\s*$/, '')}\n\nBench edit ${n}: a small change.\n`;
        const t0 = performance.now();
        const r = await http(base, 'PUT', `/api/pages/${encodeURIComponent(p.slug)}`, { body, baseVersion: p.version, message: `bench save ${n}` });
        const ms = performance.now() - t0;
        if (r.status !== 200) throw new Error(`PUT /api/pages/${p.slug}: ${r.status} ${r.text.slice(0, 300)}`);
        p.version = r.json.version;
        return ms;
      };
      for (const p of prepared.slice(SAVES)) await save(p); // warm-up
      const health = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await http(base, 'GET', '/health', undefined, { anonymous: true });
        health.push(performance.now() - t0);
      }
      result.health = stats(health);
      const timed = prepared.slice(0, SAVES);
      result.saves = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const busyBefore = await waitForQuiet(`saves, round ${round}/${ROUNDS}`);
        boostBackends();
        const stopProfile = opt.profile && round === 1 ? await kurate.profile() : null;
        if (round === 1) await kurate.hook('/reset');
        const cpu = cpuWindow(groups);
        const samples = [];
        const deadline = Date.now() + 120_000;
        for (let i = 0; i < timed.length && Date.now() < deadline; i++) samples.push(await save(timed[i]));
        const s = { ...stats(samples), busyBefore, cpu: withOthers(cpu.end()), profileText: stopProfile ? await stopProfile() : null };
        if (round === 1) result.sql.save = summariseCounts(await kurate.hook('/counts'), samples.length);
        result.saves.push(s);
        log(`saves, round ${round}/${ROUNDS}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms (${s.n}); CPU server ${f0(s.cpu.server)}, db ${f0(s.cpu.db)}, others ${f0(s.cpu.others)}`);
      }
      result.bestSave = result.saves.reduce((a, b) => (b.p95 < a.p95 ? b : a));
    }

    // 6. Logged-in page views (the session cookie) against bare Express, rounds interleaved; then the mixed load.
    if (kurate.auth.cookie) {
      const check = await fetch(`${base}${paths[0]}`, { headers: { cookie: kurate.auth.cookie }, signal: AbortSignal.timeout(30_000) });
      const html = await check.text();
      if (check.status !== 200 || !html.includes('csrf-token')) throw new Error(`a logged-in page view answered ${check.status} without the session's CSRF meta tag`);
      result.sessionViews = [];
      result.sessionBare = [];
      for (let round = 1; round <= ROUNDS; round++) {
        result.sessionViews.push(await load(base, paths, {
          label: `Kurate page views, logged in, round ${round}/${ROUNDS}`, cpuGroups: groups, headers: { cookie: kurate.auth.cookie },
          profile: opt.profile && round === 1 ? kurate.profile : null,
        }));
        result.sessionBare.push(await load(bareBase, paths, { label: `bare Express, round ${round}/${ROUNDS}`, cpuGroups: bareGroups }));
      }
      result.sessionRatios = result.sessionViews.map((v, i) => v.rps / result.sessionBare[i].rps);
      result.viewsSession = result.sessionViews.reduce((a, b) => (b.rps > a.rps ? b : a));
    }
    await stopChild(bare);
    if (kurate.auth.cookie) result.mixed = await benchMixed(kurate, slugs, groups);
  } catch (error) {
    const output = kurate.record.output.trim();
    if (output) log(`Kurate (${kind}) output, last lines:\n${output.slice(-3000)}`);
    if (kurate.record.exited) log(`Kurate (${kind}) had exited: ${JSON.stringify(kurate.record.exited)}`);
    throw error;
  } finally {
    await stopChild(bare);
    await stopChild(kurate.record);
  }
  return result;
}

/** A statement, short: TypeORM's long column lists become `SELECT … FROM …`. */
function shortSql(text) {
  const from = / FROM /i.exec(text);
  const short = /^SELECT /i.test(text) && from && from.index > 60 ? `SELECT … ${text.slice(from.index + 1)}` : text;
  return short.length > 110 ? `${short.slice(0, 109)}…` : short;
}

/** Statement counts divided by `n` requests: the total and the most frequent statements. */
function summariseCounts(counts, n) {
  // The job queue's own polling (pg-boss, schema "pgboss") runs on timers, not for the request: counted apart.
  const background = (text) => /\bpgboss\./i.test(text);
  const own = counts.statements.filter(([text]) => !background(text));
  const queue = counts.statements.filter(([text]) => background(text)).reduce((a, [, c]) => a + c, 0);
  const ms = own.reduce((a, [, , t]) => a + t, 0);
  return {
    perRequest: own.reduce((a, [, c]) => a + c, 0) / n,
    msPerRequest: ms / n,
    queueStatements: queue,
    top: [...own].sort((a, b) => b[2] - a[2]).slice(0, 12).map(([text, c, t]) => [shortSql(text), c / n, t / n]),
  };
}

async function statementsPer(hook, n, work) {
  await hook('/reset');
  await work();
  return summariseCounts(await hook('/counts'), n);
}

/** Statements the server sends on its own (timers, workers) while no request comes in: per second over 3 s. */
async function statementsPerSecondIdle(hook) {
  await hook('/reset');
  await sleep(3000);
  return (await hook('/counts')).total / 3; // everything, the job queue's polling included
}

/** `n` items spread evenly over the list (every page of a copy, not only the first copy). */
function spread(list, n) {
  const out = [];
  const step = list.length / n;
  for (let i = 0; i < n; i++) out.push(list[Math.floor(i * step)]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const f0 = (n) => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const verdict = (ok) => (ok ? '**pass**' : '**FAIL**');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The mixed-load section of a database's report: medians over the rounds against the aims, then every run. */
function reportMixed(r) {
  const lines = [];
  const m = r.mixed;
  if (!m && !r.sessionViews) return lines;
  const isPg = r.kind === 'postgres';
  const ok = (cond) => (isPg ? verdict(cond) : (cond ? 'would pass' : 'would fail'));
  lines.push(`#### Mixed load (issue 18), ${isPg ? 'real PostgreSQL' : 'embedded PGlite'}`, '');
  if (m) {
    lines.push(`${MIXED_CLIENTS} clients, each one request at a time on its own keep-alive connection (bench/lib/mixed-load.mjs, in the bench process): 30% anonymous page views, 30% logged-in page views (the admin's session cookie), 30% two-word searches (\`GET /search?q=\`, ${m.queries} queries from the titles), 10% saves (\`PUT /api/pages/:slug\`, API token, each client its own pages). Pages drawn at random from all ${r.import.pages}. Each round runs twice, ${WARMUP} s warm-up + ${DURATION} s measured: saves into \`${m.included}\` (included in the knowledge graph, ${m.pagesIncluded} pages: every save queues an extraction job for the built-in extractor), then into \`${m.excluded}\` (excluded: no extraction); the backlog is drained between the runs. Medians over ${MIXED_ROUNDS} rounds; the 1-minute load average of the machine (\`/proc/loadavg\`) before each run is listed with it.`, '');
  }
  lines.push('| measure | result (median of the rounds) | aim | verdict |', '|---|---|---|---|');
  if (m) {
    const withX = m.runs.filter((x) => x.target === 'included');
    const without = m.runs.filter((x) => x.target === 'excluded');
    const rps = median(withX.map((x) => x.overall.rps));
    const p95 = median(withX.map((x) => x.overall.p95));
    const errors = m.runs.reduce((a, x) => a + x.errors, 0);
    const cost = median(withX.map((x, i) => 1 - x.reads / without[i].reads));
    lines.push(`| mixed, extraction running: throughput | **${f0(rps)} req/s** | ≥ ${MIXED_AIMS.rps} req/s | ${ok(rps >= MIXED_AIMS.rps)} |`);
    lines.push(`| mixed, extraction running: p95 latency (all kinds) | **${f1(p95)} ms** | ≤ ${MIXED_AIMS.p95} ms | ${ok(p95 <= MIXED_AIMS.p95)} |`);
    lines.push(`| errors (non-2xx, socket errors, timeouts; all runs) | ${errors} | 0 | ${ok(errors === 0)} |`);
    lines.push(`| readers' throughput lost to extraction (1 − reads/s with ÷ without, paired by round) | **${f0(100 * cost)}%** | ≤ ${f0(100 * MIXED_AIMS.extractionCost)}% | ${ok(cost <= MIXED_AIMS.extractionCost)} |`);
  }
  if (r.sessionViews) {
    const ratio = median(r.sessionRatios);
    lines.push(`| logged-in page views ÷ bare Express (autocannon, ${CONNECTIONS} connections, rounds interleaved) | **${f2(ratio)}** (${f0(median(r.sessionViews.map((x) => x.rps)))} ÷ ${f0(median(r.sessionBare.map((x) => x.rps)))} req/s) | ≥ ${MIXED_AIMS.sessionRatio} | ${ok(ratio >= MIXED_AIMS.sessionRatio)} |`);
  }
  lines.push('');
  if (r.sessionViews) {
    r.sessionViews.forEach((x, i) => lines.push(`- logged-in views round ${i + 1}: Kurate ${f0(x.rps)} req/s (p50 ${f1(x.p50)}, p99 ${f1(x.p99)} ms; non-2xx ${x.non2xx}; CPU server ${f0(x.cpu.server)}, db ${f0(x.cpu.db)}, others ${f0(x.cpu.others)}) · bare ${f0(r.sessionBare[i].rps)} req/s · ratio ${f2(r.sessionRatios[i])} · load ${f2(x.load1)}`));
  }
  if (m) {
    lines.push(`- first extraction of \`${m.included}\` after including it (not measured): ${f1(m.first.ms / 1000)} s`);
    lines.push('', '| round | saves into | load avg | req/s | p50 / p95 / p99 ms | errors | reads/s | anonymous page p50 / p95 | logged-in page p50 / p95 | search p50 / p95 | save p50 / p95 | extraction jobs done in the window / left | CPU % of a core: web, worker, db, bench, others |', '|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const x of m.runs) {
      const k = (name) => `${f0(x.byKind[name].rps)}/s: ${f1(x.byKind[name].p50)} / ${f1(x.byKind[name].p95)}`;
      lines.push(`| ${x.round} | ${x.target === 'included' ? `${m.included} (extraction)` : `${m.excluded} (none)`} | ${f2(x.load1)} | ${f0(x.overall.rps)} | ${f1(x.overall.p50)} / ${f1(x.overall.p95)} / ${f1(x.overall.p99)} | ${x.errors} | ${f0(x.reads)} | ${k('page, anonymous')} | ${k('page, logged in')} | ${k('search')} | ${k('save')} | ${x.jobsDone} / ${x.backlogAfter} | ${f0(x.cpu.server)}, ${f0(x.cpu.worker ?? 0)}, ${f0(x.cpu.db)}, ${f0(x.cpu.bench)}, ${f0(x.cpu.others)} |`);
    }
  }
  return lines;
}

function report(results, meta) {
  const lines = [];
  lines.push(`## ${meta.date}`, '');
  lines.push(`- Command: \`${meta.command}\``);
  lines.push(`- Machine: ${meta.machine.nproc} cores (\`nproc\`), ${meta.machine.cpuModel} (/proc/cpuinfo); memory ${meta.machine.memory} (\`free -h\`); Linux ${meta.machine.kernel}`);
  lines.push(`- Node ${meta.machine.node}; ${results.map((r) => r.dbVersion.split(', compiled')[0]).join('; ')}; build: ${meta.git}`);
  lines.push(`- Corpus: ${meta.corpus.files} pages = foam-docs (${meta.corpus.sourcePages} pages) × ${meta.corpus.copies} copies (the last one partial), ${meta.corpus.rewrittenLinks} links rewritten to point into their own copy`);
  lines.push(`- Page-view load: autocannon ${meta.autocannon} (in the bench process, on the same 2 cores), ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s measured, round robin over all ${meta.corpus.files} pages; ${ROUNDS} rounds, Kurate and bare Express interleaved; saves: ${ROUNDS} rounds of ${SAVES} sequential PUTs`);
  lines.push(`- The machine is shared with other work: the bench ${meta.boost ? `runs at nice ${PRIORITY} (itself, its servers and the ${DB_NAME} backends), ` : 'runs at normal priority, '}waits (≤ 45 s) for the machine to be idle before each measured run, and records the CPU others used meanwhile. Such work only slows a run down, so the table shows each measure's best round; all rounds are listed below it.`);
  lines.push('');
  for (const r of results) {
    if (!r.views) {
      lines.push(`### ${r.kind === 'postgres' ? 'Real PostgreSQL' : 'Embedded PGlite (the aims are for PostgreSQL; shown for comparison)'}`, '');
      lines.push(...reportMixed(r), '');
      continue;
    }
    const isPg = r.kind === 'postgres';
    const v = r.bestView;
    const b = r.bestBare;
    const s = r.bestSave;
    lines.push(`### ${isPg ? 'Real PostgreSQL' : 'Embedded PGlite (the aims are for PostgreSQL; shown for comparison)'}`, '');
    lines.push(`Page view measured: ${r.viewRoute}, ${f0(r.viewBytes.mean)} bytes on average. Import: ${r.import.method}.`, '');
    const ok = (cond) => (isPg ? verdict(cond) : (cond ? 'would pass' : 'would fail'));
    lines.push('| measure | result | aim | verdict |', '|---|---|---|---|');
    lines.push(`| import, ${r.import.pages} pages into an empty database | **${f0(r.import.rate)} pages/s** (${f2(r.import.seconds)} s) | ≥ ${AIMS.importRate} pages/s | ${ok(r.import.rate >= AIMS.importRate)} |`);
    lines.push(`| page view throughput | **${f0(v.rps)} req/s** | ≥ ${AIMS.viewRps} req/s | ${ok(v.rps >= AIMS.viewRps)} |`);
    lines.push(`| page view latency p50 / p97.5 / p99 | ${f1(v.p50)} / ${f1(v.p975)} / ${f1(v.p99)} ms | | |`);
    const errs = [...r.views, ...(r.viewsSession ? [r.viewsSession] : [])].reduce((a, x) => a + x.non2xx + x.errors + x.timeouts, 0);
    lines.push(`| page view non-2xx + errors + timeouts (all rounds) | ${errs} | 0 | ${verdict(errs === 0)} |`);
    if (r.viewsSession) lines.push(`| page view by a logged-in reader (session cookie), 1 round | ${f0(r.viewsSession.rps)} req/s (p50 ${f1(r.viewsSession.p50)} ms, p99 ${f1(r.viewsSession.p99)} ms; non-2xx ${r.viewsSession.non2xx}) | | |`);
    if (r.health_load) lines.push(`| for scale: Kurate \`GET /health\` (Nest + middleware + \`SELECT 1\`, no page), 1 round | ${f0(r.health_load.rps)} req/s (server CPU ${f2((10 * r.health_load.cpu.server) / r.health_load.rps)} ms per request) | | |`);
    lines.push(`| bare Express, same bytes, same run | ${f0(b.rps)} req/s (p50 ${f1(b.p50)} ms, p99 ${f1(b.p99)} ms) | | |`);
    lines.push(`| Kurate ÷ bare Express | **${f2(r.ratio)}** | ≥ ${AIMS.ratio} | ${ok(r.ratio >= AIMS.ratio)} |`);
    lines.push(`| save latency p50 / p95 / p99 (client side, ${s.n} sequential PUTs) | ${f1(s.p50)} / **${f1(s.p95)}** / ${f1(s.p99)} ms (max ${f1(s.max)}) | p95 < ${AIMS.saveP95} ms | ${ok(s.p95 < AIMS.saveP95)} |`);
    lines.push('');
    const cpu = (c, db = true) => `server ${f0(c.server)}${isPg && db ? `, db ${f0(c.db)}` : ''}, bench ${f0(c.bench)}, others ${f0(c.others)}`;
    lines.push('All rounds (CPU in % of one core during the measured window):', '');
    r.views.forEach((x, i) => {
      const y = r.bare[i];
      const per = (c, rps) => `${f2((10 * c) / rps)}`; // % of a core ÷ req/s → ms of CPU per request
      lines.push(`- round ${i + 1}: Kurate ${f0(x.rps)} req/s (p99 ${f1(x.p99)} ms; ${cpu(x.cpu)}; CPU per request: server ${per(x.cpu.server, x.rps)} ms${isPg ? `, db ${per(x.cpu.db, x.rps)} ms` : ''}) · bare ${f0(y.rps)} req/s (${cpu(y.cpu, false)}; ${per(y.cpu.server, y.rps)} ms per request) · ratio ${f2(r.ratios[i])}`);
    });
    r.saves.forEach((x, i) => lines.push(`- saves round ${i + 1}: p50 ${f1(x.p50)} / p95 ${f1(x.p95)} / p99 ${f1(x.p99)} ms (${cpu(x.cpu)}; server CPU per save ${f2((10 * x.cpu.server) / (1000 / x.mean))} ms)`));
    lines.push(`- import: ${cpu(r.import.cpu)}${r.import.summary ? `; the wiki afterwards: ${r.import.summary.pages} pages, ${r.import.summary.resolvedLinks} resolved links, ${r.import.summary.brokenLinks} broken` : ''}`);
    const sqlLine = (label, c) => c && lines.push(`- SQL statements ${label}: ${f1(c.perRequest)}, waited on for ${f2(c.msPerRequest)} ms — ${c.top.slice(0, 10).map(([t, n, ms]) => `${f1(n)}× \`${t}\` (${f2(ms)} ms)`).join('; ')}`);
    sqlLine('per anonymous page view', r.sql.view);
    sqlLine('per logged-in page view', r.sql.viewSession);
    sqlLine('per save', r.sql.save);
    sqlLine('per imported page', r.sqlImport);
    lines.push(`- (statements counted in the server process through node-postgres, BEGIN/COMMIT included, one request at a time; "waited on" = from sending to the result, as the app saw it; sent with no request coming in: ${f1(r.sql.background)}/s)`);
    lines.push(`- \`GET /health\` (Nest + \`SELECT 1\`) from the same client: p50 ${f2(r.health.p50)} ms, the floor under a save's latency`);
    lines.push('');
    lines.push(...reportMixed(r), '');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  if (!existsSync(path.join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first (npm run bench does).');
  const kinds = [];
  if (!opt['skip-postgres'] && !opt.embedded) kinds.push('postgres');
  if (!opt['skip-embedded']) kinds.push('embedded');
  if (kinds.length === 0) throw new Error('Nothing to run: both --skip-postgres and --skip-embedded.');

  if (!opt['normal-priority']) {
    BOOST = reniceProcess(process.pid, PRIORITY);
    const group = BOOST && reniceAutogroup(process.pid, PRIORITY);
    log(BOOST ? `priority raised to nice ${PRIORITY} (children inherit it)${group ? ', and so is this session\'s autogroup' : ''}` : 'could not raise the priority (not root?): measuring at normal priority');
  }
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'kurate-bench-'));
  if (!opt['keep-tmp'] && !opt.profile) cleanups.push(() => rm(tmp, { recursive: true, force: true }));
  if (kinds.includes('postgres') && !opt['keep-db']) cleanups.push(dropDatabase);
  const corpusDir = path.join(tmp, 'corpus');
  const started = Date.now();
  try {
    const corpus = await replicateCorpus(opt.corpus, corpusDir, PAGES);
    log(`corpus: ${corpus.files} pages in ${corpusDir}`);
    const machine = machineInfo();
    const results = [];
    for (const kind of kinds) results.push(await benchKind(kind, tmp, corpusDir));
    const autocannonVersion = JSON.parse(await readFile(path.join(REPO, 'node_modules/autocannon/package.json'), 'utf8')).version;
    const git = await gitDescribe();
    const meta = {
      date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}  (= npm run build && node bench/run.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''})`,
      machine, corpus, autocannon: autocannonVersion, git, boost: BOOST,
    };
    const text = report(results, meta);
    process.stdout.write(`\n${text}\n`);
    for (const r of results) {
      if (r.import.profileText) process.stdout.write(`\n### CPU profile, ${r.kind}, import\n\n\`\`\`\n${r.import.profileText}\`\`\`\n`);
      if (r.views?.[0]?.profileText) process.stdout.write(`\n### CPU profile, ${r.kind}, page views (round 1)\n\n\`\`\`\n${r.views[0].profileText}\`\`\`\n`);
      if (r.sessionViews?.[0]?.profileText) process.stdout.write(`\n### CPU profile, ${r.kind}, logged-in page views (round 1)\n\n\`\`\`\n${r.sessionViews[0].profileText}\`\`\`\n`);
      for (const x of r.mixed?.runs ?? []) if (x.profileText) process.stdout.write(`\n### CPU profile, ${r.kind}, mixed load (round ${x.round}, saves into ${x.target}), the web process\n\n\`\`\`\n${x.profileText}\`\`\`\n`);
      if (r.saves?.[0]?.profileText) process.stdout.write(`\n### CPU profile, ${r.kind}, saves (round 1)\n\n\`\`\`\n${r.saves[0].profileText}\`\`\`\n`);
    }
    if (WRITE) {
      const file = path.join(BENCH_DIR, 'RESULTS.md');
      if (ROOT !== REPO) log(`note: measured the build in ${ROOT}`);
      if (!existsSync(file)) await writeFile(file, RESULTS_HEADER);
      await appendFile(file, `\n${text}`);
      log(`appended to ${path.relative(REPO, file)}`);
    }
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await stopAll();
    if (kinds.includes('postgres') && !opt['keep-db']) await dropDatabase();
    if (opt['keep-tmp'] || opt.profile) log(`kept ${tmp}`);
    else await rm(tmp, { recursive: true, force: true });
  }
}

async function gitDescribe() {
  try {
    const { execFileSync } = await import('node:child_process');
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() ? ' + uncommitted changes' : '';
    return `${head}${dirty}`;
  } catch {
    return '(unknown)';
  }
}

const RESULTS_HEADER = `# Kurate benchmark results

Issue 2: 1,000 pages (foam-docs replicated), real PostgreSQL: page view throughput under load, save latency, import
rate. Aims (real PostgreSQL, these 2 cores): a page view ≥ 1,500 req/s and ≥ half the throughput of a bare Express
handler returning the same bytes, measured in the same run; save p95 < 30 ms; import ≥ 200 pages/s. The embedded
database (PGlite) is measured the same way, for comparison.

How (\`npm run bench\` = \`npm run build && node bench/run.mjs\`; \`node bench/run.mjs --help\` lists the options):
1. test/fixtures/foam-docs (86 pages) is replicated to 1,000 pages in a temp folder: copy i suffixes every file
   name with \`-i\` and points its [[wikilinks]] and relative Markdown links at its own copy (broken links stay broken).
2. A fresh \`kurate_bench\` database; \`node dist/main.js\` as a child process (KURATE_LOG_LEVEL=error), with the first
   admin from KURATE_ADMIN_EMAIL/PASSWORD. The bench logs in through the login form and makes a write-scope API token.
3. Import: \`bin/kurate import <folder>\` with that token, timed as a whole process, into the empty database.
4. Page views: autocannon (32 connections, 3 s warm-up, 10 s measured) on anonymous \`GET /page/:slug\`, round robin
   over all 1,000 pages; then a bare Express 5 server answering the very same bytes from memory; 3 rounds,
   interleaved. One more round as a logged-in reader (session cookie).
5. Saves: 3 rounds of 500 sequential \`PUT /api/pages/:slug\` (a small edit, the right baseVersion, a different page
   each time), timed in the client; nothing else runs meanwhile.
6. SQL statements per request are counted inside the server (bench/server-hook.mjs, preloaded with \`--import\`).

The machine is shared with other work. The bench raises its own priority (nice -10, also its session's autogroup and
the kurate_bench backends), waits for the machine to be idle before each measured run (at most 45 s), and records the
CPU that others used meanwhile. Other work only slows a run, so tables show the best round; every round is listed.
\`--profile\` adds a CPU profile summary of the server (not appended here).
`;

// Kill children on every way out; on a signal, also drop the bench database and the temp folder (bounded).
const cleanups = [];
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    killAllNow();
    const bounded = Promise.race([Promise.allSettled(cleanups.map((fn) => fn())), sleep(5000)]);
    bounded.finally(() => process.exit(130));
  });
}
const hardDeadline = setTimeout(() => {
  log('hard deadline (30 min) reached: stopping');
  killAllNow();
  process.exit(2);
}, 30 * 60_000);
hardDeadline.unref();

main().then(
  () => process.exit(0),
  (error) => {
    log(`FAILED: ${error.stack ?? error}`);
    process.exitCode = 1;
    stopAll().finally(() => process.exit(1));
  },
);
