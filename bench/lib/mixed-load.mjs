// The mixed load (issue 18 part 5): N concurrent clients, each in a loop of one request at a time over its own
// keep-alive connection, drawing the kind of each request from a fixed mix (page reads, searches, saves).
//
// Why not autocannon: autocannon keeps one latency histogram per run, so the kinds could not be told apart, and a
// save needs the version the previous save of that page returned (a stale baseVersion is a 409). A driver of our own
// over node:http (one keep-alive socket per client, as autocannon does) keeps per-kind latencies, per-page versions
// and per-kind errors, in ~150 lines.
import http from 'node:http';

/** A small deterministic PRNG (mulberry32): the same seed gives every round the same sequence of requests. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summary(samples, seconds) {
  const sorted = Float64Array.from(samples).sort();
  return { n: sorted.length, rps: sorted.length / seconds, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
}

/**
 * One request on `agent`, its body read whole. Resolves { status, ms, body? } or { error, ms }; never rejects.
 * `keepBody` keeps the body text (saves read the new version from it).
 */
function request(agent, base, { method, path, headers, body }, timeoutMs, keepBody) {
  return new Promise((resolve) => {
    const started = performance.now();
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(`${base}${path}`, {
      method, agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => { if (keepBody) chunks.push(c); });
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started, body: keepBody ? Buffer.concat(chunks).toString('utf8') : undefined }));
      res.on('error', (error) => resolve({ error: error.message, ms: performance.now() - started }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ error: error.message, ms: performance.now() - started }));
    req.end(payload);
  });
}

/**
 * Runs the mixed load for `warmupS` + `durationS` seconds and returns per-kind and overall figures of the measured
 * window (requests started in it). `kinds` maps a kind to { weight, next(client, rng) → request } and optionally
 * `done(client, request, response)` (e.g. to keep a page's new version) and `keepBody`.
 * @returns {{ seconds, overall, byKind: Record<string, {n, rps, p50, p95, p99, max, errors, non2xx, firstErrors}>, errors }}
 */
export async function mixedLoad({ base, clients, durationS, warmupS = 0, kinds, seed = 1, timeoutMs = 10_000, onMeasureStart }) {
  const names = Object.keys(kinds);
  const totalWeight = names.reduce((a, k) => a + kinds[k].weight, 0);
  const pick = (r) => {
    let x = r * totalWeight;
    for (const k of names) if ((x -= kinds[k].weight) < 0) return k;
    return names[names.length - 1];
  };
  const samples = Object.fromEntries(names.map((k) => [k, []]));
  const failures = Object.fromEntries(names.map((k) => [k, { errors: 0, non2xx: 0, first: [] }]));
  let measuring = warmupS === 0;
  let stopping = false;
  let measureStarted = performance.now();
  if (measuring && onMeasureStart) await onMeasureStart();

  const runClient = async (index) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const rng = prng(seed * 1000 + index);
    const state = { index };
    try {
      while (!stopping) {
        const kind = pick(rng());
        const spec = kinds[kind];
        const req = spec.next(state, rng);
        const inWindow = measuring;
        const res = await request(agent, base, req, timeoutMs, Boolean(spec.keepBody));
        if (!inWindow || !measuring) {
          if (spec.done && res.status >= 200 && res.status < 300) spec.done(state, req, res);
          continue;
        }
        const f = failures[kind];
        if (res.error) {
          f.errors++;
          if (f.first.length < 3) f.first.push(`${req.method} ${req.path}: ${res.error}`);
        } else if (res.status < 200 || res.status >= 300) {
          f.non2xx++;
          if (f.first.length < 3) f.first.push(`${req.method} ${req.path}: ${res.status}`);
        } else {
          samples[kind].push(res.ms);
          if (spec.done) spec.done(state, req, res);
        }
      }
    } finally {
      agent.destroy();
    }
  };

  const running = Array.from({ length: clients }, (_, i) => runClient(i));
  if (warmupS > 0) {
    await new Promise((r) => setTimeout(r, warmupS * 1000));
    if (onMeasureStart) await onMeasureStart();
    measureStarted = performance.now();
    measuring = true;
  }
  await new Promise((r) => setTimeout(r, durationS * 1000));
  measuring = false;
  const seconds = (performance.now() - measureStarted) / 1000;
  stopping = true;
  await Promise.all(running);

  const byKind = {};
  for (const k of names) {
    byKind[k] = { ...summary(samples[k], seconds), errors: failures[k].errors, non2xx: failures[k].non2xx, firstErrors: failures[k].first };
  }
  const overall = summary(names.flatMap((k) => samples[k]), seconds);
  const errors = names.reduce((a, k) => a + failures[k].errors + failures[k].non2xx, 0);
  return { seconds, overall, byKind, errors };
}
