import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { DataSource } from 'typeorm';
import { migrate } from '../../src/db/migration-runner.js';
import { adminQuery, ARTIFACTS_DIR, pgliteTemplatePath, pgTemplateName, realPostgresUrl, testRunId, withDatabase } from './database.js';

/**
 * Migrates one template database before the suite; every test file then gets a fresh copy of it:
 * a `CREATE DATABASE … TEMPLATE` on real PostgreSQL, or a snapshot loaded into a new in-memory PGlite.
 */
export async function setup(): Promise<void> {
  process.env.KURATE_TEST_RUN_ID = `${process.pid}_${Date.now().toString(36)}`;
  const PG_TEMPLATE_NAME = pgTemplateName();
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const url = realPostgresUrl();
  if (url) {
    await adminQuery(`DROP DATABASE IF EXISTS ${PG_TEMPLATE_NAME}`);
    await adminQuery(`CREATE DATABASE ${PG_TEMPLATE_NAME}`);
    const dataSource = await new DataSource({ type: 'postgres', url: withDatabase(url, PG_TEMPLATE_NAME) }).initialize();
    try {
      await migrate(dataSource);
    } finally {
      await dataSource.destroy();
    }
    console.log(`Tests run on real PostgreSQL (${new URL(url).host}); each test file gets a database copied from ${PG_TEMPLATE_NAME}.`);
    return;
  }
  const pglite = await PGlite.create({ extensions: { vector, pg_trgm } });
  const dataSource = await new DataSource({ type: 'postgres', extra: { ...createPgConfig(pglite), max: 1 } }).initialize();
  await migrate(dataSource);
  await dataSource.destroy();
  // Uncompressed: every test file loads it, and a gzipped snapshot costs each load about 0.4 s of CPU to inflate.
  const dump = await pglite.dumpDataDir('none');
  writeFileSync(pgliteTemplatePath(), Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  console.log('Tests run on embedded PGlite; each test file gets a fresh copy of a migrated snapshot.');
}

export async function teardown(): Promise<void> {
  // The server compiled for the files that run it as child processes (test/support/server-process.ts).
  rmSync(path.join(ARTIFACTS_DIR, `kg-server-${testRunId()}`), { recursive: true, force: true });
  if (realPostgresUrl()) await adminQuery(`DROP DATABASE IF EXISTS ${pgTemplateName()} WITH (FORCE)`);
  else rmSync(pgliteTemplatePath(), { force: true });
}
