// Child processes of the bench: every one is registered and killed (by its own pid) when the bench ends, even on error.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const children = new Set();

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a process whose output is kept (last 64 KiB) for error messages; stdio never blocks the child. */
export function startChild(name, command, args, options = {}) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const record = { name, child, output: '', exited: null };
  const keep = (chunk) => {
    record.output = (record.output + chunk.toString()).slice(-65536);
    if (options.echo) process.stderr.write(`[${name}] ${chunk}`);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  record.done = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      record.exited = { code, signal };
      children.delete(record);
      resolve(record.exited);
    });
    child.on('error', (error) => {
      record.output += `\nspawn error: ${error.message}`;
      record.exited = { code: -1, signal: null };
      children.delete(record);
      resolve(record.exited);
    });
  });
  children.add(record);
  return record;
}

/** Waits until `url` answers 200 (bounded by `timeoutMs`); fails early if the process exits. */
export async function waitForHttp(record, url, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (record.exited) throw new Error(`${record.name} exited (${JSON.stringify(record.exited)}) before ${url} answered:\n${record.output.slice(-4000)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  throw new Error(`${record.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${record.output.slice(-4000)}`);
}

/** SIGTERM, then SIGKILL after `graceMs` if the process is still there. */
export async function stopChild(record, graceMs = 5000) {
  if (!record || record.exited) return;
  record.child.kill('SIGTERM');
  const outcome = await Promise.race([record.done, sleep(graceMs).then(() => null)]);
  if (outcome === null && !record.exited) {
    record.child.kill('SIGKILL');
    await Promise.race([record.done, sleep(2000)]);
  }
}

export async function stopAll() {
  await Promise.all([...children].map((record) => stopChild(record)));
}

/** Synchronous last resort (process 'exit' handler): SIGKILL whatever is left. */
export function killAllNow() {
  for (const record of children) {
    try {
      record.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
