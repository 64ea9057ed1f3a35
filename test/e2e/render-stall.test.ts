// @module-tag slow (compiles the server and runs it twice, rendering pages of a megabyte): docs/testing.md
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/cli.js';
import { embeddedDataDirFromTemplate, realPostgresUrl } from '../support/database.js';
import { ensureServerBuilt, startServer, stopServer, type ServerProcess } from '../support/server-process.js';
import { freshTestConfig } from '../support/test-app.js';

/**
 * One page must not stall the server (issue 18 part 4): while the built server renders and previews the worst pages
 * an author can save (a 1000 × 200 table, a megabyte of prose, a list nested 10,000 deep), /health keeps answering.
 * The same server with KURATE_RENDER_THREADS=0 (everything on the main thread) shows what the test guards against.
 */
const ADMIN = { email: 'stall-admin@example.test', password: 'stall-admin-password' };

const table = (rows: number, columns: number) => {
  const row = `|${' x |'.repeat(columns)}`;
  return [row, `|${'---|'.repeat(columns)}`, ...Array.from({ length: rows }, () => row)].join('\n');
};
const prose = (chars: number) => {
  const paragraph = 'A sentence about [[Gadgets]] with *emphasis*, `code` and a [link](https://example.com/docs). ';
  return Array.from({ length: Math.ceil(chars / paragraph.length) }, (_, i) => (i % 12 === 11 ? `${paragraph}\n\n## Part ${i}\n\n` : paragraph)).join('').slice(0, chars);
};
const WORST = {
  table: table(1000, 200),
  prose: prose(950_000),
  nestedList: `${'- '.repeat(10_000)}deep`,
  // 100 embeds of a page of 100 embeds (EMBEDDED, saved first): 10,000 transclusions unbounded.
  embeds: '![[Stall Embed Mid]]\n\n'.repeat(100),
};
/** The pages the embeds case transcludes. */
const EMBEDDED = { 'Stall Embed Leaf': 'hello world '.repeat(20), 'Stall Embed Mid': '![[Stall Embed Leaf]]\n\n'.repeat(100) };

interface Wiki {
  server: ServerProcess;
  http: ReturnType<typeof supertest>;
  auth: { Authorization: string };
  close: () => Promise<void>;
}

async function startWiki(env: Record<string, string>): Promise<Wiki> {
  const entry = await ensureServerBuilt();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kurate-stall-'));
  const database = realPostgresUrl() ? await freshTestConfig() : null;
  if (!database) await embeddedDataDirFromTemplate(dataDir);
  const port = await closedPort();
  const server = await startServer(entry, {
    ...(database ? { DATABASE_URL: (database.config.database as { url: string }).url } : { KURATE_DATA_DIR: dataDir }),
    PORT: String(port),
    KURATE_ADMIN_EMAIL: ADMIN.email,
    KURATE_ADMIN_PASSWORD: ADMIN.password,
    KURATE_PASSWORD_HASH_COST: 'm=1024,t=1,p=1',
    KURATE_BUILTIN_EXTRACTOR_THREADS: '0',
    ...env,
  });
  const http = supertest(`http://127.0.0.1:${port}`);
  const { token } = (await http.post('/api/auth/login-token').send({ ...ADMIN, name: 'stall test' }).expect(201)).body as { token: string };
  return {
    server,
    http,
    auth: { Authorization: `Bearer ${token}` },
    close: async () => {
      await stopServer(server);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Pings each path one request after another (each path its own loop) while `work` runs: each path's latencies, and
 * how long the work took.
 */
async function pingsDuring(wiki: Wiki, paths: string[], work: () => Promise<unknown>): Promise<{ latencies: Map<string, number[]>; workMs: number }> {
  const latencies = new Map(paths.map((p) => [p, [] as number[]]));
  let done = false;
  const pinging = paths.map(async (p) => {
    while (!done) {
      const started = performance.now();
      await wiki.http.get(p).expect(200);
      latencies.get(p)!.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  // The first pings are in flight before the work starts.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  try {
    await work();
  } finally {
    done = true;
  }
  const workMs = performance.now() - started;
  await Promise.all(pinging);
  return { latencies, workMs };
}

/** Pings /health one request after another while `work` runs: each ping's latency, and how long the work took. */
async function healthDuring(wiki: Wiki, work: () => Promise<unknown>): Promise<{ latencies: number[]; workMs: number }> {
  const { latencies, workMs } = await pingsDuring(wiki, ['/health'], work);
  return { latencies: latencies.get('/health')!, workMs };
}

/** What a server answers without its database: a page view it keeps in memory, and a static file. */
const WITHOUT_DATABASE = ['/page/stall-embed-leaf', '/static/js/kurate.js'];

/** Renders every worst case: each page's first view (nothing cached yet) and a preview of each text, all at once. */
async function renderWorstCases(wiki: Wiki, slugs: string[]): Promise<void> {
  await Promise.all([
    ...slugs.map((slug) => wiki.http.get(`/page/${slug}`).set(wiki.auth).expect(200)),
    ...Object.values(WORST).map((body) => wiki.http.post('/api/preview').set(wiki.auth).send({ body }).expect(200)),
  ]);
}

describe('a page too large to render quickly does not stall the server', () => {
  let wiki: Wiki;
  let slugs: string[];
  const saves: { name: string; chars: number; workMs: number; longest: number; longestWithoutDatabase: number }[] = [];

  beforeAll(async () => {
    // What is measured is /health while the worst pages render, not how long they take: on a loaded machine one can
    // take longer than the default 20 s limit, whose 422 another test covers.
    wiki = await startWiki({ KURATE_RENDER_TIMEOUT_SECONDS: '120' });
    slugs = [];
    for (const [title, body] of Object.entries(EMBEDDED)) await wiki.http.post('/api/pages').set(wiki.auth).send({ title, body }).expect(201);
    // The page view kept in memory from here on (an anonymous reader's).
    await wiki.http.get(WITHOUT_DATABASE[0]).expect(200);
    for (const [name, body] of Object.entries(WORST)) {
      const { latencies, workMs } = await pingsDuring(wiki, ['/health', ...WITHOUT_DATABASE], async () => {
        slugs.push(((await wiki.http.post('/api/pages').set(wiki.auth).send({ title: `Worst case ${name}`, body }).expect(201)).body as { slug: string }).slug);
      });
      const longestWithoutDatabase = Math.max(...WITHOUT_DATABASE.flatMap((p) => latencies.get(p)!));
      saves.push({ name, chars: body.length, workMs, longest: Math.max(...latencies.get('/health')!), longestWithoutDatabase });
    }
  }, 180_000);
  afterAll(() => wiki?.close());

  it('keeps /health answering (p95 under 150 ms) all along while it renders and previews the worst pages (default: a render thread)', async () => {
    const { latencies, workMs } = await healthDuring(wiki, () => renderWorstCases(wiki, slugs));
    const sorted = [...latencies].sort((a, b) => a - b);
    const [p95, longest] = [sorted[Math.floor(sorted.length * 0.95)], sorted[sorted.length - 1]];
    console.log(`render threads: the worst pages took ${Math.round(workMs)} ms; /health answered ${latencies.length} times, p95 ${Math.round(p95)} ms, the slowest in ${Math.round(longest)} ms`);
    // The work takes seconds; /health kept answering all along. The aim is 100 ms; the bounds leave room for a CI
    // machine whose two cores also run other test files (on the main thread the slowest is the whole render: below,
    // 3.4-3.7 s for the table alone, 5-6 s in CI). The slowest single ping is bounded at 2 s: pings of busy CI runs
    // waited 526 ms, and once 1,363 ms in a run where this file took 1.8 times its usual time (pauses of the process,
    // not a render), while a render on the main thread holds a ping for the whole render, 3.4 s even on a quiet machine.
    expect(workMs).toBeGreaterThan(1000);
    expect(latencies.length).toBeGreaterThan(workMs / 250);
    expect(p95).toBeLessThan(150);
    expect(longest).toBeLessThan(2000);
  });

  it('keeps /health answering while it saves them: their links and files are read in the render thread', () => {
    for (const save of saves) console.log(`saving the ${save.name} (${save.chars} characters) took ${Math.round(save.workMs)} ms; the slowest /health meanwhile ${Math.round(save.longest)} ms`);
    // What is left on the main thread is the database's share: on the embedded database (in this process) the search
    // vector of a megabyte of text; on PostgreSQL that runs in the server's own process. On a quiet machine the
    // slowest ping during the table's save is about 60 ms of 2.9 s; on a CI machine whose two cores also ran a browser
    // and other files, one ping once waited 2.95 s of a 5.0 s save. The bound is what a save that held the main
    // thread throughout would break.
    for (const save of saves) expect(save.longest).toBeLessThan(Math.max(1000, save.workMs * 0.75));
  });

  it('answers what needs no database (a page kept in memory, a static file) while it saves them: the embedded database yields between statements', () => {
    for (const save of saves) console.log(`saving the ${save.name}: the slowest answer without the database meanwhile ${Math.round(save.longestWithoutDatabase)} ms`);
    // PGlite runs each statement in this process and its node-postgres adapter answers in a microtask: without a turn
    // of the event loop between statements, the table's whole save transaction held every request (about 280 ms of a
    // 1.8 s save on a quiet machine, bench/RESULTS.md 2026-12-07); with it, 36–54 ms. The bound leaves a CI machine
    // room (its pauses scale with the save) and fails a save that holds its transaction's length.
    for (const save of saves.filter((s) => s.chars > 500_000)) expect(save.longestWithoutDatabase).toBeLessThan(Math.max(250, save.workMs * 0.1));
  });

  it('answers a frontmatter of 900 KB, or nested 10,000 deep, with a 422 that says why, at once', async () => {
    const hugeFrontmatter = `---\n${Array.from({ length: 30_000 }, (_, i) => `key${i}: value number ${i}`).join('\n')}\n---\nBody`;
    const deepFrontmatter = `---\nk: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n---\nBody`;
    const { latencies } = await healthDuring(wiki, async () => {
      const big = await wiki.http.post('/api/preview').set(wiki.auth).send({ body: hugeFrontmatter }).expect(422);
      expect(big.body).toMatchObject({ code: 'too_complex', message: expect.stringMatching(/frontmatter is \d+ KB; a page's frontmatter may hold at most 32 KB/) });
      const deep = await wiki.http.post('/api/pages').set(wiki.auth).send({ title: 'Deep frontmatter', body: deepFrontmatter }).expect(422);
      expect(deep.body.message).toMatch(/nests lists or maps deeper than 64 levels/);
    });
    expect(Math.max(...latencies)).toBeLessThan(250);
  });
});

describe('the same with KURATE_RENDER_THREADS=0: the check above can fail', () => {
  let wiki: Wiki;

  beforeAll(async () => {
    wiki = await startWiki({ KURATE_RENDER_THREADS: '0' });
  }, 180_000);
  afterAll(() => wiki?.close());

  it('holds /health for as long as a worst page takes to render on the main thread', async () => {
    const { latencies, workMs } = await healthDuring(wiki, () => wiki.http.post('/api/preview').set(wiki.auth).send({ body: WORST.table }).expect(200));
    console.log(`main thread: the table took ${Math.round(workMs)} ms; the slowest /health ${Math.round(Math.max(...latencies))} ms`);
    expect(Math.max(...latencies)).toBeGreaterThan(Math.min(workMs / 2, 1000));
  });
});
