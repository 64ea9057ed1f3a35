#!/usr/bin/env node
// How the HNSW index over chunk embeddings should be built (src/search/search-vector.repository.ts): for several
// (m, ef_construction) pairs, the cost of inserting a vector into the index, the recall of an index search against
// an exact one, and the query time, with the built-in embedder on real Markdown text (the paragraphs of foam-docs and
// of the README files of the installed packages). Real PostgreSQL, a scratch database `kurate_bench_vec`.
// Appends a report to bench/RESULTS.md.
//
//   node bench/vector-index.mjs [--paragraphs 20000] [--queries 200] [--k 60] [--no-write]
//        [--params "16,64 8,64 8,32"] [--ef-search "60 300"]      (after npm run build)
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { FOAM_DOCS } from './lib/corpus.mjs';
import { machineInfo } from './lib/machine.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH_DIR, '..');
const DB_NAME = 'kurate_bench_vec';
const { values: opt } = parseArgs({
  options: {
    paragraphs: { type: 'string', default: '20000' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '60' },
    params: { type: 'string' },
    'ef-search': { type: 'string' },
    corpus: { type: 'string', default: process.env.KURATE_BENCH_CORPUS ?? FOAM_DOCS },
    'pg-admin-url': { type: 'string', default: process.env.KURATE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-write': { type: 'boolean', default: false },
  },
});
const { hashEmbedding, HASHING_EMBEDDER_DIMENSIONS: DIMS } = await import(path.join(REPO, 'dist/embedders/hashing.embedder.js'));
const { HNSW_BUILD, efSearch } = await import(path.join(REPO, 'dist/search/search-vector.repository.js'));
const K = Number(opt.k);
const builds = (opt.params ?? `16,64 ${HNSW_BUILD.m},${HNSW_BUILD.efConstruction} 8,32 12,48`).split(' ').map((p) => p.split(',').map(Number));
const efSearches = (opt['ef-search'] ?? `${Math.max(40, K)} ${efSearch(K)}`).split(' ').map(Number);

// Distinct paragraphs of real Markdown, in a fixed order.
const files = [];
const walk = (dir, depth) => {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && depth < 6) walk(p, depth + 1);
    else if (/\.md$/i.test(e.name)) files.push(p);
  }
};
walk(opt.corpus, 0);
walk(path.join(REPO, 'node_modules'), 0);
const seen = new Set();
const paragraphs = [];
for (const file of files) {
  for (const block of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
    const text = block.trim();
    if (text.length <= 80 || text.length >= 3000 || seen.has(text)) continue;
    seen.add(text);
    paragraphs.push(text);
  }
}
const n = Math.min(paragraphs.length, Number(opt.paragraphs));
// Queries like a reader's: one to three words taken from a random paragraph (a fixed seed, so runs compare).
let seed = 42;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const queries = [];
while (queries.length < Number(opt.queries)) {
  const words = paragraphs[Math.floor(random() * n)].split(/\s+/).filter((w) => /^[a-z]{3,}$/i.test(w));
  const start = Math.floor(random() * Math.max(1, words.length - 3));
  const query = words.slice(start, start + 1 + Math.floor(random() * 3)).join(' ');
  if (query) queries.push(query);
}
const literal = (v) => `[${v.join(',')}]`;

async function admin(sql) {
  const client = new pg.Client({ connectionString: opt['pg-admin-url'] });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
await admin(`CREATE DATABASE ${DB_NAME}`);
const url = new URL(opt['pg-admin-url']);
url.pathname = `/${DB_NAME}`;
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
const rows = [];
try {
  await db.query('CREATE EXTENSION vector; CREATE TABLE source (id int PRIMARY KEY, embedding vector)');
  for (let i = 0; i < n; i += 500) {
    const ids = [];
    const vectors = [];
    for (let j = i; j < Math.min(n, i + 500); j++) {
      ids.push(j);
      vectors.push(literal(hashEmbedding(paragraphs[j])));
    }
    await db.query('INSERT INTO source SELECT * FROM unnest($1::int[], $2::vector[])', [ids, vectors]);
  }
  const queryVectors = queries.map((q) => literal(hashEmbedding(q)));
  const nearest = `ORDER BY embedding::vector(${DIMS}) <=> $1::vector(${DIMS}) LIMIT ${K}`;
  const exact = [];
  for (const v of queryVectors) exact.push((await db.query(`SELECT id FROM source ${nearest}`, [v])).rows.map((r) => r.id));

  for (const [m, efConstruction] of builds) {
    await db.query('DROP TABLE IF EXISTS indexed; CREATE TABLE indexed (id int PRIMARY KEY, embedding vector)');
    await db.query(`CREATE INDEX ON indexed USING hnsw ((embedding::vector(${DIMS})) vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efConstruction})`);
    const started = performance.now();
    await db.query('INSERT INTO indexed SELECT * FROM source'); // one by one into the graph, as extraction does
    const insertMs = (performance.now() - started) / n;
    for (const ef of efSearches) {
      await db.query('BEGIN');
      await db.query(`SET LOCAL hnsw.ef_search = ${ef}; SET LOCAL hnsw.iterative_scan = strict_order`);
      let recall = 0;
      let top10 = 0;
      const times = [];
      for (let q = 0; q < queryVectors.length; q++) {
        const t = performance.now();
        const found = (await db.query(`SELECT id FROM indexed ${nearest}`, [queryVectors[q]])).rows.map((r) => r.id);
        times.push(performance.now() - t);
        const truth = new Set(exact[q]);
        recall += found.filter((id) => truth.has(id)).length / truth.size;
        const truth10 = new Set(exact[q].slice(0, 10));
        top10 += found.slice(0, 10).filter((id) => truth10.has(id)).length / truth10.size;
      }
      await db.query('COMMIT');
      times.sort((a, b) => a - b);
      rows.push({ m, efConstruction, ef, insertMs, recall: recall / queryVectors.length, top10: top10 / queryVectors.length, median: times[times.length >> 1] });
      console.error(rows.at(-1));
    }
  }
} finally {
  await db.end();
  await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
}

const machine = machineInfo();
const fixed = (x, d) => x.toFixed(d);
const report = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — HNSW build parameters (bench/vector-index.mjs)`,
  '',
  `Machine: ${machine.cpuModel}, ${machine.nproc} cores; Node ${machine.node}. ${n} distinct Markdown paragraphs (${files.length} files: ${path.basename(opt.corpus)} and the installed packages' READMEs), ` +
    `embedded by the built-in embedder (${DIMS} dimensions); ${queries.length} queries of 1–3 words; recall = share of the exact ${K} nearest that the index search returns. ` +
    `Kurate builds with m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction} and searches with ef_search = ${efSearch(K)} for ${K} rows.`,
  '',
  '| m | ef_construction | insert per vector | ef_search | recall@' + K + ' | top-10 overlap | query median |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const ours = r.m === HNSW_BUILD.m && r.efConstruction === HNSW_BUILD.efConstruction && r.ef === efSearch(K);
    const b = (s) => (ours ? `**${s}**` : s);
    return `| ${b(r.m)} | ${b(r.efConstruction)} | ${b(`${fixed(r.insertMs, 3)} ms`)} | ${b(r.ef)} | ${b(fixed(r.recall, 3))} | ${b(fixed(r.top10, 3))} | ${b(`${fixed(r.median, 2)} ms`)} |`;
  }),
  '',
].join('\n');
console.log(report);
if (!opt['no-write']) await appendFile(path.join(BENCH_DIR, 'RESULTS.md'), `\n${report}`);
