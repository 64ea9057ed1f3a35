// @module-tag slow (compiles the server and starts and kills its processes): `npm run test:fast` leaves it out; docs/testing.md
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { ApiTokensService } from '../../src/auth/api-tokens.service.js';
import { UsersService } from '../../src/auth/users.service.js';
import type { KurateConfig } from '../../src/config/kurate-config.js';
import { closedPort } from '../support/cli.js';
import { realPostgresUrl } from '../support/database.js';
import { ensureServerBuilt } from '../support/server-process.js';
import { freshTestConfig } from '../support/test-app.js';

/**
 * KURATE_ROLE=all on PostgreSQL (the default role) works the jobs in a worker process it starts at a lower CPU
 * priority, so that extraction yields to readers (issue 18). On the embedded database the one process works them
 * itself (and KURATE_WORKER_PROCESS=true is refused: test/unit/kg-config.test.ts).
 */

/** A process's nice value (field 19 of /proc/PID/stat), or null once it is gone. */
function niceOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

/** A process's session (field 6 of /proc/PID/stat). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/** A process's scheduling group (Linux's autogroup) and its nice, or null where the kernel has none. */
function schedulingGroupOf(pid: number): { group: string; nice: number } | null {
  try {
    const match = /^(\S+) nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return match ? { group: match[1], nice: Number(match[2]) } : null;
  } catch {
    return null;
  }
}

/** Whether the process still runs (not gone, not a zombie waiting to be reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!realPostgresUrl())('the worker process of KURATE_ROLE=all on PostgreSQL', () => {
  let config: KurateConfig;
  let drop: () => Promise<void>;
  let server: ChildProcess;
  let output = '';
  let workerPid = 0;
  let http: ReturnType<typeof supertest>;
  let token = '';
  let entry = '';

  beforeAll(async () => {
    entry = await ensureServerBuilt();
    ({ config, drop } = await freshTestConfig({ KURATE_JOB_POLL_SECONDS: '0.5' }));
    // An admin and a token, written through the services of an app in this process (it works no job).
    const local = await createApp(config);
    await local.init();
    const origin = { actor: { userId: null, name: 'test', role: null }, ip: null };
    const user = await local.get(UsersService).create({ email: 'worker-admin@example.test', displayName: 'Worker Admin', password: 'worker-admin-password', role: 'admin' }, origin);
    ({ token } = await local.get(ApiTokensService).create({ name: 'worker', scopes: ['admin'] }, { actor: { userId: user.id, name: 'Worker Admin', role: 'admin' }, ip: null }));
    await local.close();

    const port = await closedPort();
    const { KURATE_TOKEN: _t, DATABASE_URL: _d, KURATE_ROLE: _r, ...inherited } = process.env;
    server = spawn(process.execPath, [entry], {
      env: { ...inherited, KURATE_LOG_LEVEL: 'warn', KURATE_JOB_POLL_SECONDS: '0.5', DATABASE_URL: (config.database as { url: string }).url, PORT: String(port), KURATE_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until('the server and its worker to start', () => (/Kurate is running/.test(output) && /Kurate worker is running/.test(output)) || server.exitCode !== null);
    if (server.exitCode !== null) throw new Error(`The server exited:\n${output}`);
    workerPid = Number(/in a worker process it started \(pid (\d+)\)/.exec(output)?.[1]);
    http = supertest(`http://127.0.0.1:${port}`);
  });

  afterAll(async () => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    if (workerPid && alive(workerPid)) process.kill(workerPid, 'SIGKILL');
    await drop?.();
  });

  it('starts one worker process, at a lower CPU priority than the web process', () => {
    expect(workerPid).toBeGreaterThan(0);
    expect(output).toMatch(new RegExp(`Kurate worker is running: process ${workerPid}, started by process ${server.pid}, at nice \\d+`));
    expect(niceOf(workerPid)).toBe(Math.min(19, niceOf(server.pid!)! + 10));
  });

  it('runs in a session, and so a scheduling group, of its own, whose priority it lowers too', () => {
    // Linux shares the CPU between scheduling groups first: in the web process's group, the worker's lower nice made
    // it yield to the web process only, not to the PostgreSQL backends that answer the readers.
    expect(sessionOf(workerPid)).toBe(workerPid);
    expect(sessionOf(workerPid)).not.toBe(sessionOf(server.pid!));
    const web = schedulingGroupOf(server.pid!);
    const worker = schedulingGroupOf(workerPid);
    if (!web || !worker) {
      console.warn('This kernel has no autogroup (/proc/PID/autogroup): only the threads\' nice was checked.');
      return;
    }
    expect(worker.group).not.toBe(web.group);
    // A new session's group starts at nice 0; the worker raises it by KURATE_WORKER_NICE (10).
    expect(worker.nice).toBe(10);
  });

  it('works the extraction jobs a save queues, and the web process works none itself', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    await http.post('/api/pages').set(auth).send({ title: 'Gizmo', body: '---\ncluster: gadgets\n---\nThe Gizmo is a gadget made by [[Acme Corporation]] in Lyon.' }).expect(201);
    await http.put('/admin/kg-policy/clusters/gadgets').set(auth).send({ action: 'include', reason: 'worker test' }).expect(200);
    await until('the extraction job to complete', async () => {
      const status = (await http.get('/api/admin/kg/status').set(auth).expect(200)).body as { runningHere: number; queues: { queue: string; completed: number; queued: number; running: number }[] };
      expect(status.runningHere).toBe(0);
      const q = status.queues.find((x) => x.queue === 'kg-extract-page');
      return (q?.completed ?? 0) >= 1 && q!.queued === 0 && q!.running === 0;
    });
    const proposals = (await http.get('/admin/knowledge-graph/proposals').set(auth).query({ kind: 'node' }).expect(200)).body as { items: { name: string }[] };
    expect(proposals.items.map((p) => p.name)).toContain('Acme Corporation');
  });

  it('ends when its web process is gone before it has even started', async () => {
    // A worker as a web process forks it, whose parent is killed at once: the channel closes while the worker is
    // still making its app (seconds). It used to miss that, start anyway, and work jobs with no parent.
    const { KURATE_TOKEN: _t, DATABASE_URL: _d, KURATE_ROLE: _r, ...inherited } = process.env;
    const orphan = fork(entry, [], {
      env: { ...inherited, KURATE_LOG_LEVEL: 'warn', KURATE_ROLE: 'worker', KURATE_WORKER_OF: String(process.pid), DATABASE_URL: (config.database as { url: string }).url },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let said = '';
    orphan.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    orphan.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    orphan.disconnect();
    try {
      await until('the orphaned worker to end', () => orphan.exitCode !== null || orphan.signalCode !== null, 30_000);
    } finally {
      if (orphan.exitCode === null && orphan.signalCode === null) orphan.kill('SIGKILL');
    }
    expect(orphan.exitCode, said).toBe(0);
    expect(said).not.toContain('Kurate worker is running');
  });

  it('ends when the web process is killed (kill -9)', async () => {
    server.kill('SIGKILL');
    await until('the worker process to end', () => !alive(workerPid), 30_000);
  });
});
