import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { WEB_APPLICATION_NAME } from '../db/application-names.js';
import { JOB_SCHEMA } from './job-database.js';
import type { OrphanedJob } from './job-leases.js';

/** Kurate's own index on pg-boss's job table (see ensureFetchOrderIndex). */
export const JOB_FETCH_ORDER_INDEX = 'kurate_job_fetch_order_idx';

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface JobStateCount {
  queue: string;
  /** A value of the job data used to group (e.g. the backend), or null when grouped by queue only. */
  group: string | null;
  state: JobState;
  count: number;
}

/** A job as a worker holds it (the fields of JobQueue's FetchedJob). */
export interface JobRow {
  id: string;
  name: string;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  expireInSeconds: number;
}

export interface QueueStats {
  queue: string;
  waiting: number;
  active: number;
  oldestSeconds: number;
}

/**
 * SQL over pg-boss's own tables (schema `pgboss`): counts for status pages, and the few adjustments pg-boss has no
 * call for (honouring a backend's Retry-After, failing a job for good at once, recovering jobs a crash left active).
 */
@Injectable()
export class JobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * pg-boss fetches the next jobs of a queue in (priority desc, created_on, id) order, but its indexes do not hold that
   * order, so each fetch sorted every queued job of the queue: with 1,000 pages queued a fetch cost ~2 ms, with 10,000
   * ~15 ms, for each job taken (bench/RESULTS.md). This index (on the partitioned job table, so every queue's partition gets it, also
   * those created later) lets the fetch read the first few entries instead. Several processes may start at once: an
   * advisory lock makes them take turns, and IF NOT EXISTS makes the later ones no-ops.
   */
  async ensureFetchOrderIndex(): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('kurate:job-fetch-order-index'))`);
      await tx.query(
        `CREATE INDEX IF NOT EXISTS ${JOB_FETCH_ORDER_INDEX} ON ${JOB_SCHEMA}.job (name, priority DESC, created_on, id) WHERE state < 'active'`,
      );
    });
  }

  /** How many statements the web processes (`kurate-web` connections of this database) are running right now. */
  async activeWebStatements(): Promise<number> {
    const [row]: { n: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND state = 'active'`,
      [WEB_APPLICATION_NAME],
    );
    return row?.n ?? 0;
  }

  /**
   * Refreshes the planner's statistics of the job table (every queue's partition; milliseconds for thousands of jobs).
   * With `tx`, in that open transaction (which counts its own new jobs): the embedded database has one connection.
   */
  async analyzeJobTable(tx?: EntityManager): Promise<void> {
    await (tx ?? this.dataSource).query(`ANALYZE ${JOB_SCHEMA}.job`);
  }

  /**
   * Per queue: jobs waiting (created or retry), running (active), and the age in seconds of the oldest waiting one
   * that may start now (0 when none waits): what /metrics shows.
   */
  async queueStats(): Promise<QueueStats[]> {
    const rows: { queue: string; waiting: number; active: number; oldestSeconds: number }[] = await this.dataSource.query(
      // Every queue, also an empty one (its series stays, at 0).
      `SELECT q.name AS queue,
              count(j.id) FILTER (WHERE j.state < 'active')::int AS waiting,
              count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
              coalesce(extract(epoch FROM now() - min(j.created_on) FILTER (WHERE j.state < 'active' AND j.start_after <= now())), 0)::float8 AS "oldestSeconds"
         FROM ${JOB_SCHEMA}.queue q
         LEFT JOIN ${JOB_SCHEMA}.job j ON j.name = q.name AND j.state <= 'active'
        GROUP BY q.name ORDER BY q.name`,
    );
    return rows;
  }

  /** Jobs by queue and state, optionally grouped by a field of their data (live jobs only; archived ones are old). */
  async countByState(queues: string[], groupBy?: string, db: EntityManager = this.dataSource.manager): Promise<JobStateCount[]> {
    const group = groupBy ? `data ->> $2` : 'NULL::text';
    const rows: { queue: string; group: string | null; state: JobState; count: number }[] = await db.query(
      `SELECT name AS queue, ${group} AS "group", state::text AS state, count(*)::int AS count
         FROM ${JOB_SCHEMA}.job WHERE name = ANY($1) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      groupBy ? [queues, groupBy] : [queues],
    );
    return rows;
  }

  /** Jobs carrying `data.requestId = requestId` by state, archived ones included (a request's progress). */
  async countByRequest(queue: string, requestId: string): Promise<Partial<Record<JobState, number>>> {
    const rows: { state: JobState; count: number }[] = await this.dataSource.query(
      `SELECT state::text AS state, count(*)::int AS count FROM (
         SELECT state FROM ${JOB_SCHEMA}.job WHERE name = $1 AND data ->> 'requestId' = $2
         UNION ALL
         SELECT state FROM ${JOB_SCHEMA}.archive WHERE name = $1 AND data ->> 'requestId' = $2) j
        GROUP BY 1`,
      [queue, requestId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.count]));
  }

  /** A job pg-boss just put back for retry waits at least this long (a 429's Retry-After). */
  async delayRetry(queue: string, id: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${JOB_SCHEMA}.job SET start_after = greatest(start_after, now() + $3 * interval '1 millisecond')
        WHERE name = $1 AND id = $2 AND state = 'retry'`,
      [queue, id, Math.ceil(delayMs)],
    );
  }

  /** Moves a job's retry (state `retry`) forward to `delayMs` from now: an attempt that lost a race goes again soon. */
  async retrySoon(queue: string, id: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${JOB_SCHEMA}.job SET start_after = least(start_after, now() + $3 * interval '1 millisecond')
        WHERE name = $1 AND id = $2 AND state = 'retry'`,
      [queue, id, Math.ceil(delayMs)],
    );
  }

  /** Uses up a job's retries, so that the failure about to be recorded is final (an error no retry can fix). */
  async exhaustRetries(queue: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${JOB_SCHEMA}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2`, [queue, id]);
  }

  /** Jobs left active by a process that is gone (only safe where no other process can be working: the embedded database). */
  async activeJobIds(queues: string[]): Promise<{ queue: string; id: string }[]> {
    return this.dataSource.query(`SELECT name AS queue, id::text AS id FROM ${JOB_SCHEMA}.job WHERE name = ANY($1) AND state = 'active'`, [queues]);
  }

  /**
   * Of these abandoned attempts, the ones that are still their job's current attempt (active, with the same attempt
   * number), as the worker fetches jobs. Read in a statement of its own once their leases are held, so that it sees
   * every hand-back and new fetch committed before.
   */
  async currentAttempts(attempts: readonly OrphanedJob[]): Promise<JobRow[]> {
    return this.dataSource.query(
      `SELECT j.id::text AS id, j.name, j.data, j.retry_count AS "retryCount", j.retry_limit AS "retryLimit",
              extract(epoch FROM j.expire_in)::float8 AS "expireInSeconds"
         FROM ${JOB_SCHEMA}.job j JOIN unnest($1::text[], $2::uuid[], $3::int[]) AS a(queue, id, attempt) ON j.name = a.queue AND j.id = a.id
        WHERE j.state = 'active' AND j.retry_count = a.attempt`,
      [attempts.map((a) => a.queue), attempts.map((a) => a.id), attempts.map((a) => a.retryCount)],
    );
  }

  /** Page ids that have a job waiting or running in the queue (data.pageId). */
  async pagesWithOpenJobs(queue: string, pageIds: string[], db: EntityManager = this.dataSource.manager): Promise<Set<string>> {
    const rows: { page_id: string }[] = await db.query(
      `SELECT DISTINCT data ->> 'pageId' AS page_id FROM ${JOB_SCHEMA}.job
        WHERE name = $1 AND state IN ('created', 'retry', 'active') AND data ->> 'pageId' = ANY($2)`,
      [queue, pageIds],
    );
    return new Set(rows.map((r) => r.page_id));
  }
}
