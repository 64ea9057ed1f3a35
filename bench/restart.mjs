// How fast a started-before tree answers again: `npm start` as a user types it, on a data directory that an earlier
// start created, with nothing changed (no install, no build). Measures the time from the command to the first
// 200 from /health, and counts what the start printed. Usage: node bench/restart.mjs [runs=5]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { busyShare, machineInfo } from './lib/machine.mjs';
import { freePort } from './lib/procs.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.argv[2] ?? 5);

/** One `npm start` in its own process group (npm does not pass SIGTERM on to the server), until /health answers. */
async function start(dataDir, port) {
  const began = performance.now();
  const child = spawn('npm', ['start'], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KURATE_DATA_DIR: dataDir, PORT: String(port) } });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let healthMs = null;
  while (performance.now() - began < 120_000) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) {
        healthMs = performance.now() - began;
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) break;
    await sleep(25);
  }
  // The summary is printed right after listen: wait for it before counting lines.
  while (!/Kurate is running/.test(output) && child.exitCode === null && performance.now() - began < 120_000) await sleep(25);
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  await sleep(300);
  if (healthMs === null) throw new Error(`npm start did not answer /health:\n${output}`);
  return { healthMs, lines: output.trimEnd().split('\n').length, output };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'kurate-restart-bench-'));
try {
  const port = await freePort();
  const first = await start(dataDir, port);
  console.error(`first start (creates the database${/Building/.test(first.output) ? ', builds' : ''}): ${(first.healthMs / 1000).toFixed(1)} s`);
  const busy = await busyShare(1000);
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await start(dataDir, port));
  const times = runs.map((r) => r.healthMs / 1000).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const m = machineInfo();
  console.log(`restart to /health: median ${median.toFixed(2)} s over ${RUNS} runs (min ${times[0].toFixed(2)}, max ${times.at(-1).toFixed(2)}); ` +
    `output ${runs.map((r) => r.lines).join('/')} lines; machine ${m.nproc} cores, ${m.cpuModel}, Node ${m.node}, machine busy ${busy.toFixed(0)}% before the runs`);
  console.log('--- output of the last restart ---');
  console.log(runs.at(-1).output.trimEnd());
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
