import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export interface Migration {
  version: string;
  up: string;
  down: string;
}

export class DatabaseSetupError extends Error {}

/** Reads `migrations/NNNN_name.sql` files, each with a `-- migrate:up` and a `-- migrate:down` section. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const match = /--\s*migrate:up\s*\n([\s\S]*?)--\s*migrate:down\s*\n([\s\S]*)$/.exec(text);
      if (!match) throw new DatabaseSetupError(`Migration ${file} needs a "-- migrate:up" and a "-- migrate:down" section.`);
      return { version: file.replace(/\.sql$/, ''), up: match[1], down: match[2] };
    });
}

// Any fixed number: several app processes starting at once take turns applying migrations.
const MIGRATION_LOCK = 7_104_262;

/** Creates the extensions Kurate needs, then applies pending migrations, each in its own transaction. */
export async function migrate(dataSource: DataSource, migrations = readMigrations()): Promise<string[]> {
  await ensureExtensions(dataSource);
  const applied: string[] = [];
  await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await dataSource.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set<string>(
      (await dataSource.query('SELECT version FROM schema_migrations')).map((r: { version: string }) => r.version),
    );
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await dataSource.transaction(async (tx) => {
        await tx.query(migration.up);
        await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      });
      applied.push(migration.version);
    }
  } finally {
    await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
  return applied;
}

/** Rolls back the newest `steps` migrations (used by `bin/kurate db rollback` and the migration tests). */
export async function rollback(dataSource: DataSource, steps = 1, migrations = readMigrations()): Promise<string[]> {
  const rows: { version: string }[] = await dataSource.query(
    'SELECT version FROM schema_migrations ORDER BY version DESC LIMIT $1',
    [steps],
  );
  for (const { version } of rows) {
    const migration = migrations.find((m) => m.version === version);
    if (!migration) throw new DatabaseSetupError(`No migration file for applied version ${version}.`);
    await dataSource.transaction(async (tx) => {
      await tx.query(migration.down);
      await tx.query('DELETE FROM schema_migrations WHERE version = $1', [version]);
    });
  }
  return rows.map((r) => r.version);
}

async function ensureExtensions(dataSource: DataSource): Promise<void> {
  for (const extension of ['vector', 'pg_trgm']) {
    try {
      await dataSource.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const how =
        extension === 'vector'
          ? 'Install pgvector into this PostgreSQL (on Debian: `sudo bash bin/install-pgvector.sh`; elsewhere see https://github.com/pgvector/pgvector#installation), or run `CREATE EXTENSION vector` as a superuser, or unset DATABASE_URL to use the embedded database.'
          : 'Install the PostgreSQL contrib package (pg_trgm), or run `CREATE EXTENSION pg_trgm` as a superuser.';
      throw new DatabaseSetupError(`The PostgreSQL extension "${extension}" is missing and could not be created (${reason}). ${how}`);
    }
  }
}
