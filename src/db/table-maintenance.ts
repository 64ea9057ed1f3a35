import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { KurateConfig } from '../config/kurate-config.js';

/** A table's activity counters since its last vacuum and analyze (pg_stat_user_tables). */
export interface TableActivity {
  schema: string;
  table: string;
  live: number;
  dead: number;
  insertedSinceVacuum: number;
  modifiedSinceAnalyze: number;
}

export interface TableChore {
  schema: string;
  table: string;
  /** `vacuum` also analyzes (VACUUM (ANALYZE)). */
  action: 'vacuum' | 'analyze';
  reason: string;
  /**
   * Most of the table is unmaintained: the rows that call for the chore are at least half its live rows, and at least
   * OVERDUE_ROWS (a fresh import, or long neglect). Its statistics and visibility map then describe little of it, and
   * every reader pays: the planner guesses, and an index-only scan reads the heap for each row.
   */
  overdue: boolean;
}

/** The fewest rows that make a chore overdue: a small table is cheap to read unmaintained, so it may wait. */
export const OVERDUE_ROWS = 10_000;

/**
 * PostgreSQL's own autovacuum rule, with its default settings (autovacuum_vacuum_threshold 50, scale factor 0.2;
 * insert threshold 1,000, scale factor 0.2; analyze threshold 50, scale factor 0.1): a table is vacuumed when its dead
 * rows, or the rows inserted since its last vacuum, pass their threshold, and analyzed when the rows changed since its
 * last analyze pass theirs.
 */
export function choresFor(tables: readonly TableActivity[]): TableChore[] {
  const chores: TableChore[] = [];
  for (const t of tables) {
    const live = Math.max(0, t.live);
    const chore = (action: TableChore['action'], rows: number, reason: string) =>
      chores.push({ schema: t.schema, table: t.table, action, reason, overdue: rows >= OVERDUE_ROWS && rows >= live / 2 });
    if (t.dead > 50 + 0.2 * live) chore('vacuum', t.dead, `${t.dead} dead rows of ${live}`);
    else if (t.insertedSinceVacuum > 1_000 + 0.2 * live) chore('vacuum', t.insertedSinceVacuum, `${t.insertedSinceVacuum} rows inserted since its last vacuum`);
    else if (t.modifiedSinceAnalyze > 50 + 0.1 * live) chore('analyze', t.modifiedSinceAnalyze, `${t.modifiedSinceAnalyze} rows changed since its last analyze`);
  }
  return chores;
}

/** A quoted SQL identifier. */
function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Vacuums and analyzes Kurate's own tables where nothing else does: the embedded database (PGlite runs PostgreSQL as a
 * single process, without the autovacuum launcher), and a PostgreSQL server whose `autovacuum` setting is off. Without
 * it, every save leaves dead rows that no one removes, the planner never learns a table's size, and search reads the
 * heap for every posting instead of its covering index alone (a two-word search at 1,000 imported pages: 6.5 ms of
 * execution before a vacuum, 2.7 ms after). A server whose autovacuum is on is left to it. Workers run this with
 * their job maintenance (src/jobs/job-worker.service.ts), once a minute.
 */
@Injectable()
export class TableMaintenance {
  private readonly logger = new Logger('Database');
  private ownJob: Promise<boolean> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: KurateConfig,
  ) {}

  /** Whether Kurate vacuums its own tables on this database (answered once per process). */
  isOwnJob(): Promise<boolean> {
    this.ownJob ??= (async () => {
      if (this.config.database.kind === 'embedded') return true;
      const [row]: { autovacuum: string; counts: string }[] = await this.dataSource.query(
        `SELECT current_setting('autovacuum') AS autovacuum, current_setting('track_counts') AS counts`,
      );
      return row.autovacuum === 'off' && row.counts === 'on';
    })().catch((error: unknown) => {
      this.ownJob = null;
      throw error;
    });
    return this.ownJob;
  }

  /** Vacuums or analyzes the tables (of `schemas`) that autovacuum's rule says need it; answers what it did. */
  async run(schemas: readonly string[]): Promise<TableChore[]> {
    const chores = await this.due(schemas);
    await this.perform(chores);
    return chores;
  }

  /** The chores autovacuum's rule names for the tables of `schemas` (none where the database vacuums by itself). */
  async due(schemas: readonly string[]): Promise<TableChore[]> {
    if (!(await this.isOwnJob())) return [];
    // The embedded database reports a backend's counters when asked to (there is no other backend to do it for it).
    if (this.config.database.kind === 'embedded') {
      await this.dataSource.query('SELECT pg_stat_force_next_flush()');
      await this.dataSource.query('SELECT 1');
    }
    const tables: TableActivity[] = await this.dataSource.query(
      `SELECT schemaname AS schema, relname AS "table", n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
              n_ins_since_vacuum::float8 AS "insertedSinceVacuum", n_mod_since_analyze::float8 AS "modifiedSinceAnalyze"
         FROM pg_stat_user_tables WHERE schemaname = ANY($1::text[]) ORDER BY schemaname, relname`,
      [schemas],
    );
    return choresFor(tables);
  }

  /** Vacuums or analyzes as each chore says, one table after another. */
  async perform(chores: readonly TableChore[]): Promise<void> {
    if (chores.length === 0) return;
    // One connection for all of them. On a server, paced as autovacuum paces itself (its default cost delay and
    // limit), so that readers keep the database while it works; the embedded database's one connection is everyone's,
    // so there it runs unpaced, to be done soonest.
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      if (this.config.database.kind !== 'embedded') await runner.query(`SET vacuum_cost_delay = '2ms'; SET vacuum_cost_limit = 200`);
      for (const chore of chores) {
        const started = Date.now();
        // VACUUM cannot run inside a transaction: each is a statement of its own, outside any; SKIP_LOCKED leaves a
        // table that another transaction holds a conflicting lock on for the next round rather than wait for it.
        await runner.query(`${chore.action === 'vacuum' ? 'VACUUM (ANALYZE, SKIP_LOCKED)' : 'ANALYZE (SKIP_LOCKED)'} ${identifier(chore.schema)}.${identifier(chore.table)}`);
        this.logger.log(`${chore.action === 'vacuum' ? 'Vacuumed' : 'Analyzed'} ${chore.schema}.${chore.table} (${chore.reason}) in ${Date.now() - started} ms`);
      }
    } finally {
      // The connection goes back to the pool as it came.
      if (this.config.database.kind !== 'embedded') await runner.query('RESET vacuum_cost_delay; RESET vacuum_cost_limit').catch(() => undefined);
      await runner.release();
    }
  }
}
