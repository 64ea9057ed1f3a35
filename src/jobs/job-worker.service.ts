import { setMaxListeners } from 'node:events';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { TableMaintenance } from '../db/table-maintenance.js';
import { JOB_SCHEMA } from './job-database.js';
import { failureOf, PROMPT_RETRY_MS, type JobFailure } from './job-failure.js';
import { JobLeases } from './job-leases.js';
import { JobQueue, type FetchedJob } from './job-queue.service.js';
import { JobsRepository } from './jobs.repository.js';

export interface RunningJob<T> extends FetchedJob<T> {
  /** Aborted when the job times out, when the process shuts down, or when its handler's owner cancels it. */
  signal: AbortSignal;
}

export interface JobHandler<T> {
  /** Does the work; its return value is stored as the job's output. Throw to fail (see JobError). */
  run(job: RunningJob<T>): Promise<object | void>;
  /** Called once a job has failed for good (not retryable, or retries used up), after pg-boss recorded it. */
  onPermanentFailure?(job: FetchedJob<T>, failure: JobFailure): Promise<void>;
}

interface Registration {
  queue: string;
  handler: JobHandler<unknown>;
  concurrency: number;
  running: Map<string, { controller: AbortController; done: Promise<void>; data: unknown }>;
  wake: () => void;
}

const MAINTENANCE_EVERY_MS = 60_000;
// On PostgreSQL, active jobs whose lease nobody holds (their worker is gone) are looked for this often, once they
// have been active this long (a live worker takes a job's lease right after fetching it).
const ORPHANS_EVERY_MS = 5_000;
const ORPHAN_GRACE_SECONDS = 10;
// A worker process waits before taking jobs while the web runs this many statements or more at once (a reader waits
// on the database), looking again this often, for at most this long each time. One: with two, a worker under the
// mixed load of `npm run bench` took a fifth more of the database once searches got cheaper (bench/RESULTS.md).
const WEB_BUSY_STATEMENTS = 1;
const YIELD_CHECK_MS = 50;
const YIELD_AT_MOST_MS = 500;
// Table maintenance (TableMaintenance) waits for a round in which neither this worker nor the web is busy, at most this long.
const TABLES_POSTPONED_AT_MOST_MS = 10 * 60_000;

/** A feature module's periodic upkeep (maintainEvery). */
interface Chore {
  name: string;
  everyMs: number;
  task: (stopped: () => boolean) => Promise<void>;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

/** A running job's abort reason when this process lost its leases (the job is handed back for a retry). */
class LeaseLost extends Error {
  constructor() {
    super('the worker lost its job leases (its lease connection to the database closed)');
  }
}

/**
 * Works the job queues in this process (KURATE_ROLE worker or all; main.ts calls start()). One polling loop per queue
 * fetches as many jobs as it has free slots and runs them concurrently; a finished job frees its slot at once.
 * A failed job is handed back to pg-boss, which retries it with exponential backoff (at least as late as a backend's
 * Retry-After asks) until its retries are used up; then it is failed for good and the handler is told.
 * A job whose process died mid-run is handed back too: on PostgreSQL as soon as its lease is seen to have ended
 * (JobLeases), on the embedded database when the process starts again.
 */
@Injectable()
export class JobWorker implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly registrations = new Map<string, Registration>();
  private readonly startCallbacks: (() => Promise<void>)[] = [];
  private loops: Promise<void>[] = [];
  private maintenance: NodeJS.Timeout | null = null;
  private orphanWatch: NodeJS.Timeout | null = null;
  private orphansRunning = false;
  private stopping = false;
  private startedAt: Date | null = null;
  private yields = 0;
  private tablesPostponedSince: number | null = null;
  /** A round of table maintenance is under way (a paced vacuum may outlast the interval). */
  private tablesRunning = false;
  private readonly chores: Chore[] = [];

  constructor(
    private readonly queue: JobQueue,
    private readonly jobs: JobsRepository,
    private readonly config: KurateConfig,
    private readonly tables: TableMaintenance,
    private readonly leases: JobLeases,
  ) {
    this.leases.onLost(() => {
      for (const registration of this.registrations.values()) for (const run of registration.running.values()) run.controller.abort(new LeaseLost());
    });
  }

  /** A feature module registers the handler of each of its queues at start-up (before start()). */
  register<T>(queue: string, handler: JobHandler<T>, options: { concurrency: number }): void {
    this.registrations.set(queue, {
      queue,
      handler: handler as JobHandler<unknown>,
      concurrency: Math.max(1, options.concurrency),
      running: new Map(),
      wake: () => {},
    });
  }

  get isRunning(): boolean {
    return this.startedAt !== null && !this.stopping;
  }

  async start(): Promise<void> {
    if (this.startedAt) return;
    this.startedAt = new Date();
    this.stopping = false;
    await this.queue.start();
    // The embedded database belongs to this one process, so any job still active was cut short by a crash.
    if (this.config.database.kind === 'embedded') await this.recoverAbandonedJobs();
    // On PostgreSQL other workers may be running jobs: only those whose lease ended with their process are handed back.
    if (this.leases.enabled) {
      await this.handBackOrphans();
      this.orphanWatch = setInterval(() => void this.handBackOrphans(), ORPHANS_EVERY_MS);
      this.orphanWatch.unref();
    }
    // The tables wait for the first round: jobs start without waiting for a vacuum.
    await this.runMaintenance({ tables: false });
    this.maintenance = setInterval(() => void this.runMaintenance({ tables: true }), Math.min(MAINTENANCE_EVERY_MS, this.config.extraction.jobTimeoutSeconds * 500));
    this.maintenance.unref();
    this.loops = [...this.registrations.values()].map((registration) => this.poll(registration));
    this.logger.log(`Working queues ${[...this.registrations.keys()].join(', ')}`);
    for (const callback of this.startCallbacks) {
      await callback().catch((error: unknown) => this.logger.error(`A start-up task of the worker failed: ${(error as Error).message}`));
    }
    for (const chore of this.chores) {
      this.runChore(chore);
      chore.timer = setInterval(() => this.runChore(chore), chore.everyMs);
      chore.timer.unref();
    }
  }

  private runChore(chore: Chore): void {
    if (this.stopping || chore.running) return;
    chore.running = chore
      .task(() => this.stopping)
      .catch((error: unknown) => {
        if (!this.stopping) this.logger.error(`${chore.name} failed: ${(error as Error).message}`);
      })
      .finally(() => {
        chore.running = null;
      });
  }

  /**
   * Periodic upkeep of a feature module (e.g. the attachment store's sweep), registered at start-up: run by workers,
   * beside the job and table maintenance, once soon after start and then every `everyMs`, never two rounds at once.
   * A round is not awaited by start(); `stopped` tells it the worker is stopping (stop() waits for the round).
   */
  maintainEvery(name: string, everyMs: number, task: (stopped: () => boolean) => Promise<void>): void {
    this.chores.push({ name, everyMs, task, timer: null, running: null });
  }

  /** Looks for jobs now rather than at the next poll (after this process enqueued some). */
  wake(queue?: string): void {
    for (const registration of this.registrations.values()) if (!queue || registration.queue === queue) registration.wake();
  }

  /** How many jobs of the queue this process is running now. */
  runningCount(queue: string): number {
    return this.registrations.get(queue)?.running.size ?? 0;
  }

  /** Runs when this process starts working jobs (e.g. to enqueue background work that start-up reveals). */
  onStart(callback: () => Promise<void>): void {
    this.startCallbacks.push(callback);
  }

  /** Aborts this process's running jobs of a queue that match (e.g. pages that were just excluded), with `reason`. */
  abortWhere(queue: string, match: (data: unknown) => boolean, reason: Error): number {
    const registration = this.registrations.get(queue);
    let aborted = 0;
    for (const [, run] of registration?.running ?? []) {
      if (match(run.data)) {
        run.controller.abort(reason);
        aborted++;
      }
    }
    return aborted;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Stops fetching, aborts running jobs (they are handed back for retry) and waits for them to finish. */
  async stop(): Promise<void> {
    if (!this.startedAt || this.stopping) return;
    this.stopping = true;
    if (this.maintenance) clearInterval(this.maintenance);
    if (this.orphanWatch) clearInterval(this.orphanWatch);
    for (const chore of this.chores) if (chore.timer) clearInterval(chore.timer);
    for (const registration of this.registrations.values()) {
      for (const run of registration.running.values()) run.controller.abort(new Error('the worker is shutting down'));
      registration.wake();
    }
    await Promise.all(this.loops);
    await Promise.all(this.chores.map((chore) => chore.running));
    await Promise.all([...this.registrations.values()].flatMap((r) => [...r.running.values()].map((run) => run.done)));
    this.startedAt = null;
  }

  private async poll(registration: Registration): Promise<void> {
    const pollMs = this.config.extraction.pollSeconds * 1000;
    while (!this.stopping) {
      const free = registration.concurrency - registration.running.size;
      let fetched = 0;
      if (free > 0) {
        try {
          await this.yieldToReaders();
          // No job is fetched that could not be leased (JobLeases.ready says why, once); the next poll tries again.
          if (await this.leases.ready()) {
            const jobs = await this.queue.fetch(registration.queue, free);
            fetched = jobs.length;
            const unleased = await this.leases.take(jobs);
            for (const job of jobs) {
              if (unleased.has(job.id)) await this.recordFailure(registration, job, { message: 'the worker could not take the job’s lease', retryable: true, retrySoon: true });
              else this.launch(registration, job);
            }
          }
        } catch (error) {
          if (!this.stopping) this.logger.error(`Fetching from ${registration.queue} failed: ${(error as Error).message}`);
        }
      }
      // More may be waiting when every free slot was filled; otherwise sleep until woken, a slot frees, or the poll.
      if (this.stopping || (fetched > 0 && fetched === free && registration.running.size < registration.concurrency)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        registration.wake = () => {
          clearTimeout(timer);
          registration.wake = () => {};
          resolve();
        };
      });
    }
  }

  /**
   * A worker process (KURATE_ROLE=worker, on PostgreSQL) takes its next jobs only once the web processes run fewer
   * than WEB_BUSY_STATEMENTS statements at once, looking again every YIELD_CHECK_MS and for at most YIELD_AT_MOST_MS:
   * readers come first on a shared database, and background work is slowed, never stopped.
   */
  private async yieldToReaders(): Promise<void> {
    if (this.config.database.kind !== 'postgres' || this.config.extraction.role !== 'worker') return;
    const deadline = Date.now() + YIELD_AT_MOST_MS;
    while (!this.stopping && Date.now() < deadline && (await this.jobs.activeWebStatements()) >= WEB_BUSY_STATEMENTS) {
      this.yields++;
      await new Promise((resolve) => setTimeout(resolve, YIELD_CHECK_MS));
    }
  }

  /** How often this process has waited for the web to be less busy before taking a job (tests, metrics). */
  get yieldCount(): number {
    return this.yields;
  }

  private launch(registration: Registration, job: FetchedJob): void {
    const controller = new AbortController();
    // A job passes its signal to every call it makes (a page's chunks are extracted concurrently).
    setMaxListeners(0, controller.signal);
    const timeout = setTimeout(
      () => controller.abort(new Error(`the job ran longer than ${job.expireInSeconds} s`)),
      Math.max(1000, job.expireInSeconds * 1000 - 1000),
    );
    const entry = { controller, done: Promise.resolve(), data: job.data as unknown };
    entry.done = this.execute(registration, job, controller.signal).finally(async () => {
      clearTimeout(timeout);
      // Completed or handed back: the lease goes last, so that no other worker takes the job over in between.
      await this.leases.release([job]);
      registration.running.delete(job.id);
      registration.wake();
    });
    registration.running.set(job.id, entry);
  }

  private async execute(registration: Registration, job: FetchedJob, signal: AbortSignal): Promise<void> {
    const started = Date.now();
    try {
      const output = await registration.handler.run({ ...job, signal });
      await this.queue.complete(job.name, job.id, output ?? undefined);
      this.logger.debug(`${job.name} ${job.id} done in ${Date.now() - started} ms`);
      return;
    } catch (error) {
      const failure = !signal.aborted
        ? failureOf(error)
        : signal.reason instanceof LeaseLost
          ? { message: signal.reason.message, retryable: true, retrySoon: true }
          : this.stopping
            ? { message: 'the worker shut down mid-job', retryable: true, retrySoon: true }
            : failureOf(error);
      await this.recordFailure(registration, job, failure);
    }
  }

  private async recordFailure(registration: Registration, job: FetchedJob, failure: JobFailure): Promise<void> {
    const final = !failure.retryable || job.retryCount >= job.retryLimit;
    try {
      if (final && job.retryCount < job.retryLimit) await this.jobs.exhaustRetries(job.name, job.id);
      await this.queue.fail(job.name, job.id, { message: failure.message, retryable: failure.retryable, attempts: job.retryCount + 1 });
      if (!final && failure.retryAfterMs) await this.jobs.delayRetry(job.name, job.id, failure.retryAfterMs);
      else if (!final && failure.retrySoon) await this.jobs.retrySoon(job.name, job.id, PROMPT_RETRY_MS);
      if (final) {
        this.logger.warn(`${job.name} ${job.id} failed for good after ${job.retryCount + 1} attempt(s): ${failure.message}`);
        await registration.handler.onPermanentFailure?.(job, failure);
      } else {
        this.logger.log(`${job.name} ${job.id} failed (attempt ${job.retryCount + 1} of ${job.retryLimit + 1}), will retry: ${failure.message}`);
      }
    } catch (error) {
      // The database went away (shutdown): the job stays active and is retried once it expires.
      this.logger.error(`Recording the failure of ${job.name} ${job.id} failed: ${(error as Error).message}`);
    }
  }

  private async recoverAbandonedJobs(): Promise<void> {
    const abandoned = await this.jobs.activeJobIds([...this.registrations.keys()]);
    for (const { queue, id } of abandoned) await this.queue.fail(queue, id, { message: 'the process stopped mid-job (recovered at start-up)', retryable: true });
    if (abandoned.length > 0) this.logger.warn(`Handed back ${abandoned.length} job(s) left running when this process last stopped`);
  }

  /**
   * On PostgreSQL: hands back the active jobs whose lease nobody holds, their process being gone (JobLeases), each as
   * a failed attempt (retried unless its retries are used up, as any failure). Holding their leases now, it reads
   * them again, so that an attempt another process has meanwhile handed back or taken up is left alone.
   */
  private async handBackOrphans(): Promise<void> {
    if (this.orphansRunning || this.stopping) return;
    // While the lease connection cannot be opened there is nothing to look with (JobLeases.ready has said so).
    if (!(await this.leases.ready())) return;
    this.orphansRunning = true;
    try {
      const orphans = await this.leases.orphans([...this.registrations.keys()], ORPHAN_GRACE_SECONDS);
      if (orphans.length === 0) return;
      try {
        const current = await this.jobs.currentAttempts(orphans);
        for (const job of current) {
          const registration = this.registrations.get(job.name);
          if (registration) await this.recordFailure(registration, job, { message: 'its worker stopped mid-job (the worker’s lease on it ended with its process)', retryable: true });
        }
        if (current.length > 0) this.logger.warn(`Handed back ${current.length} job(s) whose worker stopped mid-job`);
      } finally {
        await this.leases.release(orphans);
      }
    } catch (error) {
      if (!this.stopping) this.logger.error(`Looking for jobs whose worker stopped failed: ${(error as Error).message}`);
    } finally {
      this.orphansRunning = false;
    }
  }

  private async runMaintenance(options: { tables: boolean }): Promise<void> {
    try {
      await this.queue.maintain();
    } catch (error) {
      if (!this.stopping) this.logger.error(`Job maintenance failed: ${(error as Error).message}`);
    }
    if (this.stopping || !options.tables || this.tablesRunning) return;
    this.tablesRunning = true;
    try {
      const chores = await this.tables.due(['public', JOB_SCHEMA]);
      // An overdue table (a fresh import) costs every reader more than its paced vacuum does: it is never postponed.
      const overdue = chores.filter((chore) => chore.overdue);
      const postponed = overdue.length < chores.length && (await this.postponeTables());
      await this.tables.perform(postponed ? overdue : chores);
      if (!postponed) this.tablesPostponedSince = null;
    } catch (error) {
      if (!this.stopping) this.logger.error(`Table maintenance failed: ${(error as Error).message}`);
    } finally {
      this.tablesRunning = false;
    }
  }

  /**
   * Readers and jobs first: a worker process leaves the tables for the next round while it runs jobs or the web runs
   * WEB_BUSY_STATEMENTS statements or more, unless it has done so for TABLES_POSTPONED_AT_MOST_MS already. A burst of
   * extraction is vacuumed after it, when its rows are all written. Overdue tables (TableChore.overdue) are not left.
   */
  private async postponeTables(): Promise<boolean> {
    if (this.config.database.kind !== 'postgres' || this.config.extraction.role !== 'worker') return false;
    if (this.tablesPostponedSince !== null && Date.now() - this.tablesPostponedSince >= TABLES_POSTPONED_AT_MOST_MS) return false;
    const working = [...this.registrations.values()].some((registration) => registration.running.size > 0);
    if (!working && (await this.jobs.activeWebStatements()) < WEB_BUSY_STATEMENTS) return false;
    this.tablesPostponedSince ??= Date.now();
    return true;
  }
}
