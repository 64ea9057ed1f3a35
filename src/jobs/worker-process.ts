import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';

/** Set in the environment of a worker process that a web process started (its pid). */
export const WORKER_OF_ENV = 'KURATE_WORKER_OF';
const FIRST_RESTART_MS = 1_000;
const LONGEST_RESTART_MS = 60_000;
/** A worker that ran this long before it died is restarted at once, not after a growing pause. */
const HEALTHY_RUN_MS = 60_000;
const STOP_GRACE_MS = 10_000;

/**
 * KURATE_ROLE=all on PostgreSQL (KURATE_WORKER_PROCESS, default on): the jobs run in a process of their own, this
 * program again as KURATE_ROLE=worker, which lowers its own CPU priority (KURATE_WORKER_NICE) as it starts. When both
 * want a core, the kernel gives it to the web process: extraction, CPU-bound with the built-in extractor, yields to
 * readers and takes what they leave. The worker is restarted when it dies, and stopped with this process; it ends
 * on its own when this process is gone (its IPC channel closes), even after a kill -9.
 */
@Injectable()
export class WorkerProcess implements OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private child: ChildProcess | null = null;
  private stopping = false;
  private pause = FIRST_RESTART_MS;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(private readonly config: KurateConfig) {}

  /** The worker's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.child || this.stopping) return;
    const startedAt = Date.now();
    // The same program, arguments and Node options (e.g. --max-old-space-size); stdout and stderr are shared.
    // Its own metrics listener, if this process has one, on the next port (two processes cannot share one).
    const metrics = this.config.metrics.port === null ? {} : { KURATE_METRICS_PORT: String(this.config.metrics.port + 1) };
    // `detached`: a session of its own, and so (where the kernel groups scheduling by session, Linux's autogroup)
    // a scheduling group of its own, whose priority the worker lowers as it starts (becomeLowPriorityWorker). In the
    // web process's group, its lower nice made it yield to the web process only: it still took its share from
    // PostgreSQL's group, whose backends answer the readers' queries. It still ends with this process (IPC).
    const child = fork(process.argv[1], process.argv.slice(2), {
      env: { ...process.env, KURATE_ROLE: 'worker', [WORKER_OF_ENV]: String(process.pid), ...metrics },
      execArgv: process.execArgv,
      stdio: 'inherit',
      detached: true,
    });
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.stopping) return;
      const ranMs = Date.now() - startedAt;
      if (ranMs >= HEALTHY_RUN_MS) this.pause = FIRST_RESTART_MS;
      this.logger.error(`The worker process exited (${signal ?? `code ${code}`}) after ${Math.round(ranMs / 1000)} s; starting another in ${this.pause / 1000} s`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        this.start();
      }, this.pause);
      this.restartTimer.unref();
      this.pause = Math.min(LONGEST_RESTART_MS, this.pause * 2);
    });
    child.on('error', (error) => this.logger.error(`The worker process: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // SIGTERM: it stops fetching, hands its running jobs back for a retry, and exits.
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), STOP_GRACE_MS);
    });
    if ((await Promise.race([exited, grace])) === 'late') child.kill('SIGKILL');
    clearTimeout(timer);
  }
}

/**
 * In a worker process a web process started: ends the process when its parent is gone (the IPC channel closes),
 * watched from the first moment of the process. A parent killed while this one still started (creating the app
 * takes seconds) closed the channel before a listener added after the start existed: the worker then ran on without
 * it, working jobs, and every later crash of a new parent could add one more. `shutdown` is asked for at that moment
 * (null while the app is still being made: nothing to close yet).
 */
export function endWithParent(shutdown: () => (() => Promise<void>) | null): void {
  if (!process.env[WORKER_OF_ENV] || !process.send) return;
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    const close = shutdown();
    void (close ? close() : Promise.resolve()).finally(() => process.exit(0));
  };
  process.once('disconnect', end);
  if (!process.connected) end();
}

/**
 * In a worker process a web process started: lowers the CPU priority of every thread of this process by `nice`
 * (Linux sets a priority per thread; threads started later inherit it from the main thread), and that of its
 * scheduling group (`/proc/self/autogroup`: the session WorkerProcess started it in) to the same nice. Linux shares
 * the CPU between such groups first, by their nice, and only then between a group's threads: a thread's nice alone
 * orders it against its own group. Returns the nice value now in effect, or null when not such a worker.
 */
export function becomeLowPriorityWorker(nice: number): number | null {
  if (!process.env[WORKER_OF_ENV] || !process.send) return null;
  const target = Math.min(19, os.getPriority() + nice);
  let threads: number[] = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the whole process at once.
  }
  for (const tid of threads.length ? threads : [0]) {
    try {
      os.setPriority(tid, target);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  lowerSchedulingGroup(nice);
  return os.getPriority();
}

/**
 * The nice of this process's scheduling group (Linux's autogroup, one per session), when it leads a session of its own
 * and the kernel has autogroups: raised by `nice`, never lowered (raising needs no privilege). Nothing otherwise.
 */
function lowerSchedulingGroup(nice: number): void {
  try {
    // Only a group of its own: a session this process leads (WorkerProcess forks it detached), never its caller's.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]) !== process.pid) return;
    const current = /nice (-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'));
    if (!current) return;
    const target = Math.min(19, Number(current[1]) + nice);
    if (target > Number(current[1])) writeFileSync('/proc/self/autogroup', String(target));
  } catch {
    // No autogroup (another kernel, or CONFIG_SCHED_AUTOGROUP off): the threads' nice is what there is.
  }
}
