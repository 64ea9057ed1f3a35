import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { BackupTable } from './backup-tables.js';

/** A restore whose load committed and whose rebuild has not finished (migration 0033). */
export interface RebuildOwed {
  /** The archive's file name. */
  file: string;
  checksum: string;
  /** When the archive was written (its header's createdAt). */
  archiveCreatedAt: string;
  /** When the load committed, ISO 8601. */
  loadedAt: string;
}

/** Rows fetched from a cursor at a time while writing a backup (page bodies and revisions can be large). */
const FETCH_ROWS = 100;

/** Table and column names come from BACKUP_TABLES and the catalog, never from input: still, only plain identifiers pass. */
function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
  return `"${name}"`;
}

/** All SQL of backup and restore: a consistent read of every table, and the load of an archive into an empty instance. */
@Injectable()
export class BackupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in one read-only REPEATABLE READ transaction: every table as of the same moment, while others write. */
  async snapshot<T>(work: (db: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await work(runner);
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async schemaVersion(db: QueryRunner | EntityManager | DataSource = this.dataSource): Promise<string[]> {
    const rows: { version: string }[] = await db.query('SELECT version FROM schema_migrations ORDER BY version');
    return rows.map((r) => r.version);
  }

  async count(table: string, db: QueryRunner | EntityManager | DataSource = this.dataSource): Promise<number> {
    const rows: { n: number }[] = await db.query(`SELECT count(*)::int AS n FROM ${identifier(table)}`);
    return rows[0].n;
  }

  /** The table's rows as PostgreSQL's JSON text, derived columns left out, in key order, through a cursor. */
  async *rows(table: BackupTable, db: QueryRunner): AsyncGenerator<string> {
    const omit = (table.derivedColumns ?? []).map((c) => identifier(c).replace(/"/g, ''));
    const without = omit.length > 0 ? ` - '{${omit.join(',')}}'::text[]` : '';
    const order = table.orderBy.split(',').map((c) => identifier(c.trim())).join(', ');
    await db.query(`DECLARE kurate_backup NO SCROLL CURSOR FOR SELECT (to_jsonb(t)${without})::text AS row FROM ${identifier(table.name)} t ORDER BY ${order}`);
    try {
      for (;;) {
        const batch: { row: string }[] = await db.query(`FETCH ${FETCH_ROWS} FROM kurate_backup`);
        for (const { row } of batch) yield row;
        if (batch.length < FETCH_ROWS) break;
      }
    } finally {
      await db.query('CLOSE kurate_backup');
    }
  }

  /** The tables among these that hold rows, with how many. */
  async nonEmpty(tables: string[]): Promise<{ table: string; rows: number }[]> {
    const found: { table: string; rows: number }[] = [];
    for (const table of tables) {
      const rows = await this.count(table);
      if (rows > 0) found.push({ table, rows });
    }
    return found;
  }

  /**
   * Empties every table named, at once. Append-only tables refuse TRUNCATE by trigger: their user triggers are
   * lifted for this transaction's statement only (ALTER TABLE takes the table's exclusive lock until commit).
   */
  async clear(tables: string[], appendOnly: string[], tx: EntityManager): Promise<void> {
    for (const table of appendOnly) await tx.query(`ALTER TABLE ${identifier(table)} DISABLE TRIGGER USER`);
    await tx.query(`TRUNCATE ${tables.map(identifier).join(', ')} RESTART IDENTITY`);
    for (const table of appendOnly) await tx.query(`ALTER TABLE ${identifier(table)} ENABLE TRIGGER USER`);
  }

  /** Inserts rows given as PostgreSQL JSON text of the table's row type; PostgreSQL parses every value itself. */
  async insert(table: string, rows: string[], tx: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await tx.query(`INSERT INTO ${identifier(table)} SELECT * FROM jsonb_populate_recordset(NULL::${identifier(table)}, $1::jsonb)`, [`[${rows.join(',')}]`]);
  }

  /** Serial columns continue after the largest restored value, so new rows never collide with restored ones. */
  async resetSequences(tables: string[], tx: EntityManager): Promise<void> {
    const serials: { table_name: string; column_name: string }[] = await tx.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) AND column_default LIKE 'nextval(%'`,
      [tables],
    );
    for (const { table_name: table, column_name: column } of serials) {
      await tx.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max(${identifier(column)}) FROM ${identifier(table)}), 0) + 1, false)`,
        [table, column],
      );
    }
  }

  /**
   * Every page excluded from the knowledge graph (reason `default`), in the restore's own transaction: until the
   * policy's reconciliation has decided, nothing the policy might hide is visible (kg_excluded_pages is derived).
   */
  async excludeEveryPage(tx: EntityManager): Promise<void> {
    await tx.query(`INSERT INTO kg_excluded_pages (page_id, reason) SELECT id, 'default' FROM pages`);
  }

  /**
   * The mark that a restore's rebuild is owed, written in the load's own transaction (migration 0033): a process
   * killed after the load committed leaves it for the next start or restore to find.
   */
  async markRebuildOwed(owed: { file: string; checksum: string; archiveCreatedAt: string }, tx: EntityManager): Promise<void> {
    await tx.query(
      `INSERT INTO restore_rebuild_owed (file, checksum, archive_created_at) VALUES ($1, $2, $3)
       ON CONFLICT (only_row) DO UPDATE SET file = excluded.file, checksum = excluded.checksum, archive_created_at = excluded.archive_created_at, loaded_at = now()`,
      [owed.file, owed.checksum, owed.archiveCreatedAt],
    );
  }

  /** The restore whose rebuild is still owed, if any. */
  async rebuildOwed(): Promise<RebuildOwed | null> {
    const rows: { file: string; checksum: string; archive_created_at: string; loaded_at: Date }[] = await this.dataSource.query(
      'SELECT file, checksum, archive_created_at, loaded_at FROM restore_rebuild_owed',
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return { file: row.file, checksum: row.checksum, archiveCreatedAt: row.archive_created_at, loadedAt: new Date(row.loaded_at).toISOString() };
  }

  /** The rebuild is done: the mark goes (only if it is still this archive's: a forced restore of another left its own). */
  async clearRebuildOwed(checksum: string): Promise<void> {
    await this.dataSource.query('DELETE FROM restore_rebuild_owed WHERE checksum = $1', [checksum]);
  }

  /** Tables of the current schema (for the check that every table is declared backed up, derived or per instance). */
  async schemaTables(): Promise<string[]> {
    const rows: { table_name: string }[] = await this.dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    return rows.map((r) => r.table_name);
  }
}
