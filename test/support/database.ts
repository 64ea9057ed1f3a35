import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, '.test-artifacts');
export const PGLITE_TEMPLATE = path.join(ARTIFACTS_DIR, 'pglite-template.tar.gz');
export const PG_TEMPLATE_NAME = `kurate_test_template`;

/** Tests run on the PostgreSQL in DATABASE_URL when it is set, otherwise on embedded PGlite. */
export function realPostgresUrl(): string | null {
  return process.env.DATABASE_URL || null;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: realPostgresUrl()! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function pgliteTemplate(): Blob {
  return new Blob([readFileSync(PGLITE_TEMPLATE)]);
}
