// Preloaded into the Kurate server by bench/run.mjs (`node --import <this file> dist/main.js`). It
//  - counts the SQL statements the app sends through node-postgres (BEGIN/COMMIT included), by statement text, and
//  - starts/stops the V8 CPU profiler,
// both driven over a small HTTP endpoint on 127.0.0.1:$KURATE_BENCH_HOOK_PORT, so the bench can measure exactly the
// window it wants. Counting costs a Map increment per statement; the profiler runs only when asked.
import { writeFileSync, renameSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import path from 'node:path';

const port = Number(process.env.KURATE_BENCH_HOOK_PORT);
const profileDir = process.env.KURATE_BENCH_PROFILE_DIR ?? process.cwd();
// The app's own copy of `pg` (TypeORM requires it from the app's node_modules): patch that one.
const require = createRequire(path.join(process.cwd(), 'package.json'));
const pg = require('pg');

// Raw statement text → [count, milliseconds from sending it to its result, as the app saw it]. Keyed by the raw text
// (one Map lookup per statement); normalised only when the counts are read.
let statements = new Map();
let total = 0;
// The connections the app has used (weakly held), so that /plans can ask each one about its prepared statements.
const clients = new Set();
const seen = new WeakSet();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  if (!seen.has(this)) {
    seen.add(this);
    clients.add(new WeakRef(this));
  }
  const text = typeof config === 'string' ? config : config?.text;
  const result = original.call(this, config, ...rest);
  if (typeof text === 'string') {
    total++;
    let entry = statements.get(text);
    if (!entry) statements.set(text, (entry = [0, 0]));
    entry[0]++;
    if (result && typeof result.then === 'function') {
      const started = performance.now();
      const done = () => {
        entry[1] += performance.now() - started;
      };
      result.then(done, done);
    }
  }
  return result;
};

const session = new Session();
session.connect();
const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
let profiles = 0;
let profiling = false;

async function handle(url) {
  switch (url) {
    case '/reset':
      statements = new Map();
      total = 0;
      return { ok: true };
    case '/counts':
    {
      const merged = new Map();
      for (const [text, [n, ms]] of statements) {
        const key = text.replace(/\s+/g, ' ').trim();
        const m = merged.get(key) ?? [0, 0];
        merged.set(key, [m[0] + n, m[1] + ms]);
      }
      return { total, statements: [...merged].map(([text, [n, ms]]) => [text, n, ms]).sort((a, b) => b[1] - a[1]) };
    }
    case '/plans': {
      // Every connection's prepared statements and how PostgreSQL planned each run: a statement whose custom plans
      // keep growing is planned again on every call (its plan depends on the values it is given).
      const merged = new Map();
      for (const ref of clients) {
        const client = ref.deref();
        if (!client || client._ending || !client._connected) {
          clients.delete(ref);
          continue;
        }
        const { rows } = await original.call(client, 'SELECT name, statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements');
        for (const row of rows) {
          const m = merged.get(row.name) ?? { name: row.name, statement: row.statement.replace(/\s+/g, ' ').trim().slice(0, 200), generic: 0, custom: 0, connections: 0 };
          m.generic += row.generic;
          m.custom += row.custom;
          m.connections++;
          merged.set(row.name, m);
        }
      }
      return [...merged.values()].sort((a, b) => b.custom - a.custom);
    }
    case '/profile/start':
      if (profiling) return { ok: false, error: 'already profiling' };
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 250 });
      await post('Profiler.start');
      profiling = true;
      return { ok: true };
    case '/profile/stop': {
      if (!profiling) return { ok: false, error: 'not profiling' };
      const { profile } = await post('Profiler.stop');
      profiling = false;
      const file = path.join(profileDir, `profile-${++profiles}.cpuprofile`);
      writeFileSync(`${file}.tmp`, JSON.stringify(profile));
      renameSync(`${file}.tmp`, file);
      return { ok: true, file };
    }
    default:
      return null;
  }
}

if (Number.isInteger(port) && port > 0) {
  const server = http.createServer((req, res) => {
    handle(req.url).then(
      (body) => {
        res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body ?? { error: 'no such route' }));
      },
      (error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(error) }));
      },
    );
  });
  // A worker process the server starts (KURATE_ROLE=all on PostgreSQL) inherits this hook: the port is taken by the
  // server, so the worker's statements are simply not reachable here.
  server.on('error', () => server.close());
  server.listen(port, '127.0.0.1');
  // Never keep the server process alive on its own.
  server.unref();
}
