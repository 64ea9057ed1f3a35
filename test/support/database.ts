import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { closeEmbeddedPostgres, openEmbeddedPostgres } from '../../src/db/embedded-postgres.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, '.test-artifacts');

/** One id per `vitest run`, set by the global setup and inherited by the workers: concurrent runs never share a template. */
export function testRunId(): string {
  const id = process.env.KURATE_TEST_RUN_ID;
  if (!id) throw new Error('KURATE_TEST_RUN_ID is not set: run the tests through vitest (test/support/global-setup.ts sets it)');
  return id;
}

export const pgliteTemplatePath = () => path.join(ARTIFACTS_DIR, `pglite-template-${testRunId()}.tar`);
export const pgTemplateName = () => `kurate_test_template_${testRunId()}`;

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

let template: { path: string; blob: Blob } | null = null;

/** The migrated snapshot a test's embedded database starts from (read once per test process; a Blob is immutable). */
export function pgliteTemplate(): Blob {
  const file = pgliteTemplatePath();
  if (template?.path !== file) template = { path: file, blob: new Blob([readFileSync(file)]) };
  return template.blob;
}

/**
 * Makes `dataDir` an embedded database holding the migrated template, for a server process to start on: a fresh
 * folder would run initdb and every migration first (about 5 s of CPU per start).
 */
export async function embeddedDataDirFromTemplate(dataDir: string): Promise<void> {
  await closeEmbeddedPostgres(await openEmbeddedPostgres(dataDir, pgliteTemplate()), dataDir);
}
