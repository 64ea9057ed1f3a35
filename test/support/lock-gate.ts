import pg from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { realPostgresUrl } from './database.js';

/**
 * Making a race happen for certain: a lock held from a connection of the test's own until the requests under test
 * queue behind it. PostgreSQL only: the embedded database's single connection serialises every transaction, so
 * there the gate holds nothing, the requests run one after the other, and `waiting` says "all of them".
 */
export const ON_POSTGRES = realPostgresUrl() !== null;

export interface LockGate {
  /** Backends of this database waiting for a lock (directly or behind another waiter), other than the gate's own. */
  waiting(): Promise<number>;
  /** Runs SQL inside the gate's transaction, while the lock is still held (on the embedded database: outside any). */
  query(sql: string, params?: unknown[]): Promise<unknown>;
  /** Ends the gate's transaction (committing what `query` did, or rolling it back) and lets the waiters go on. */
  release(): Promise<void>;
}

/**
 * Takes the lock `lockSql` (e.g. `SELECT 1 FROM pages WHERE slug = $1 FOR UPDATE`) in a transaction of its own.
 * `ownConnections`: the gate and its `waiting` use two connections of their own rather than the app's pool (whose 4
 * connections the requests held at the gate may take up).
 */
export async function holdLock(
  dataSource: DataSource,
  lockSql: string,
  params: unknown[] = [],
  options: { commit?: boolean; ownConnections?: boolean } = {},
): Promise<LockGate> {
  if (!ON_POSTGRES) return { waiting: async () => Number.POSITIVE_INFINITY, query: (sql, values = []) => dataSource.query(sql, values), release: async () => {} };
  if (options.ownConnections) {
    const url = (dataSource.options as { url?: string }).url;
    const [holder, watcher] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all([holder.connect(), watcher.connect()]);
    await holder.query('BEGIN');
    await holder.query(lockSql, params);
    const pid: number = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    return {
      waiting: async () =>
        (await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> $1`, [pid])).rows[0].n,
      query: async (sql, values = []) => (await holder.query(sql, values)).rows,
      release: async () => {
        await holder.query(options.commit ? 'COMMIT' : 'ROLLBACK');
        await Promise.all([holder.end(), watcher.end()]);
      },
    };
  }
  const runner: QueryRunner = dataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  await runner.query(lockSql, params);
  const pid: number = (await runner.query('SELECT pg_backend_pid() AS pid'))[0].pid;
  return {
    waiting: async () =>
      (await dataSource.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> $1`, [pid]))[0].n,
    query: (sql, values = []) => runner.query(sql, values),
    release: async () => {
      if (options.commit) await runner.commitTransaction();
      else await runner.rollbackTransaction();
      await runner.release();
    },
  };
}

/** Polls `check` every 25 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
