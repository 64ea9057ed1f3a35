import { DataSource, type DataSourceOptions } from 'typeorm';
import type { KurateConfig } from '../config/kurate-config.js';
import { dataSourceOptions } from './database.module.js';
import { closeEmbeddedPostgres, openEmbeddedPostgres } from './embedded-postgres.js';
import { migrate } from './migration-runner.js';

/** Applies pending migrations to the configured database and closes it (the container's `migrate` step). */
export async function migrateDatabase(config: KurateConfig): Promise<string[]> {
  const embedded = config.database.kind === 'embedded' ? config.database : null;
  const pglite = embedded ? await openEmbeddedPostgres(embedded.dataDir) : null;
  try {
    const dataSource = await new DataSource(dataSourceOptions(config, pglite) as DataSourceOptions).initialize();
    try {
      return await migrate(dataSource);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    if (pglite && embedded) await closeEmbeddedPostgres(pglite, embedded.dataDir);
  }
}
