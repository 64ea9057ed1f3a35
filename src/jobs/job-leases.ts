import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { KurateConfig } from '../config/kurate-config.js';
import { queryInTurn } from '../db/queries-in-turn.js';
import { JOB_SCHEMA } from './job-database.js';

/** The lease connection's application_name in pg_stat_activity. */
export const JOB_LEASES_APPLICATION_NAME = 'kurate-job-leases';
/** A lease a reclaimer holds for a moment, or a lock key shared by chance, is waited for at most this long. */
const LEASE_WAIT_MS = 5_000;

/** One attempt at a job: pg-boss counts a job's fetches in `retry_count`, so each fetch has its own number. */
export interface JobAttempt {
  id: string;
  retryCount: number;
}

/** An active job whose current attempt nobody holds the lease of: the process that ran it is gone. */
export interface OrphanedJob extends JobAttempt {
  queue: string;
}

const attemptOf = (job: JobAttempt) => `${job.id}:${job.retryCount}`;
/**
 * The session-level advisory lock key of an attempt's lease (64 bits of `<job id>:<attempt>`, apart from every other
 * lock key). Per attempt, not per job: a worker stalled on an attempt that pg-boss has meanwhile expired still holds
 * that attempt's lease, and the worker that takes the retry leases the new attempt without waiting for it.
 */
const LEASE_KEY = (attempt: string) => `hashtextextended('kurate.job-lease:' || ${attempt}, 0)`;

/**
 * Leases on running jobs, on PostgreSQL: a worker holds a session-level advisory lock per job it runs, on a connection
 * of its own that lives as long as the process. When the process dies (a kill -9, an out-of-memory kill, a lost
 * machine), PostgreSQL ends its session and the locks go with it, so another worker can tell, at once and for
 * certain, which active jobs nobody is running any more, and hand them back for a retry (`orphans()`), instead of
 * waiting for pg-boss to expire them (the job timeout: 30 minutes by default). On the embedded database one process
 * owns the data directory, and JobWorker hands back every active job when it starts.
 *
 * If this connection is lost while the process lives on, its leases are gone too: `onLost` listeners abort the
 * process's running jobs (they are handed back), so that no job ever runs unleased where another worker could
 * take it over.
 */
@Injectable()
export class JobLeases implements OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private stopped = false;
  /** The lease connection could not be opened when last tried. */
  private unavailable = false;
  /** The attempts (`<id>:<attempt>`) this process holds, or is taking, the lease of. */
  private readonly held = new Set<string>();
  private readonly lostListeners: (() => void)[] = [];

  constructor(private readonly config: KurateConfig) {}

  /** Leases are kept on PostgreSQL only. */
  get enabled(): boolean {
    return this.config.database.kind === 'postgres';
  }

  /** Called when the lease connection is lost and with it every lease this process held. */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /**
   * Whether leases can be taken now (the lease connection is open, or opens): a worker fetches no job while it cannot
   * lease it, rather than fetch it and hand it back (each hand-back uses up one of the job's attempts).
   */
  async ready(): Promise<boolean> {
    if (!this.enabled) return true;
    try {
      await this.connection();
      if (this.unavailable) this.logger.log('The job lease connection is open again; jobs are taken again');
      this.unavailable = false;
      return true;
    } catch (error) {
      // Said once per outage, not at every poll of every queue.
      if (!this.unavailable) this.logger.warn(`The job lease connection cannot be opened (${(error as Error).message}); no job is taken until it can`);
      this.unavailable = true;
      return false;
    }
  }

  /**
   * Takes the leases of jobs this process has just fetched, before it runs them. Returns the ids it could not lease
   * (the connection is down, or a reclaimer held a lease for longer than LEASE_WAIT_MS): the caller hands those back.
   */
  async take(jobs: readonly JobAttempt[]): Promise<Set<string>> {
    if (!this.enabled || jobs.length === 0) return new Set();
    const attempts = jobs.map(attemptOf).sort();
    for (const attempt of attempts) this.held.add(attempt);
    try {
      const client = await this.connection();
      // One lock after the other, each waited for (lock_timeout), in a fixed order so that two takers never deadlock.
      await queryInTurn(client, `SELECT pg_advisory_lock(${LEASE_KEY('a')}) FROM (SELECT unnest($1::text[]) AS a ORDER BY 1) attempts`, [attempts]);
      return new Set();
    } catch (error) {
      this.logger.warn(`Could not lease ${jobs.length} job(s): ${(error as Error).message}; handing them back`);
      // Session-level locks taken before the statement failed stay taken: release each (an unheld one is a no-op).
      await this.release(jobs);
      return new Set(jobs.map((job) => job.id));
    }
  }

  /** Gives up the leases of attempts this process finished (completed or handed back). */
  async release(jobs: readonly JobAttempt[]): Promise<void> {
    if (!this.enabled || jobs.length === 0) return;
    const attempts = jobs.map(attemptOf);
    for (const attempt of attempts) this.held.delete(attempt);
    const client = this.client;
    if (!client) return;
    // pg_advisory_unlock of a lock not held only warns (and returns false).
    await queryInTurn(client, `SELECT pg_advisory_unlock(${LEASE_KEY('a')}) FROM unnest($1::text[]) AS a`, [attempts])
      .catch((error: unknown) => this.logger.warn(`Could not release the lease of ${attempts.length} job(s): ${(error as Error).message}`));
  }

  /**
   * Active jobs of these queues whose current attempt started more than `graceSeconds` ago and whose lease nobody
   * holds, each now leased by this process (release them once handed back). The grace covers a live worker between
   * fetching a job and taking its lease. A lease another session holds is never taken: pg_try_advisory_lock fails.
   */
  async orphans(queues: readonly string[], graceSeconds: number): Promise<OrphanedJob[]> {
    if (!this.enabled || queues.length === 0) return [];
    const client = await this.connection();
    // The candidates first (MATERIALIZED): no lock is tried for a row the other conditions would have dropped.
    const rows: OrphanedJob[] = (
      await queryInTurn<OrphanedJob>(
        client,
        `WITH candidates AS MATERIALIZED (
           SELECT j.name AS queue, j.id::text AS id, j.retry_count AS "retryCount", j.id::text || ':' || j.retry_count AS attempt
             FROM ${JOB_SCHEMA}.job j
            WHERE j.name = ANY($1) AND j.state = 'active' AND j.started_on < now() - make_interval(secs => $2))
         SELECT c.queue, c.id, c."retryCount" FROM candidates c
          WHERE NOT (c.attempt = ANY($3::text[])) AND pg_try_advisory_lock(${LEASE_KEY('c.attempt')})`,
        [queues, graceSeconds, [...this.held]],
      )
    ).rows;
    for (const row of rows) this.held.add(attemptOf(row));
    return rows;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const database = this.config.database;
    if (this.stopped || database.kind !== 'postgres') throw new Error('job leases are closed');
    const client = new pg.Client({
      connectionString: database.url,
      ssl: database.ssl ? { rejectUnauthorized: false } : undefined,
      application_name: JOB_LEASES_APPLICATION_NAME,
      options: `-c lock_timeout=${LEASE_WAIT_MS} -c jit=off`,
    });
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.error(`The job lease connection was lost${error ? ` (${error instanceof Error ? error.message : String(error)})` : ''}; running jobs are handed back`);
      this.held.clear();
      for (const listener of this.lostListeners) listener();
    };
    client.on('error', (error) => onLost(error));
    client.on('end', () => onLost());
    await client.connect();
    this.client = client;
    return client;
  }
}
