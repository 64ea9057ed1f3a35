import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/kurate-config.js';
import { migrateDatabase } from './db/migrate-database.js';
import { DatabaseSetupError } from './db/migration-runner.js';

/**
 * `node dist/migrate.js`: applies pending migrations and exits (bin/container-build.sh migrate). Servers apply them
 * at start too, under a lock, so this is for running them once before a rollout, or to see that they apply.
 */
async function main(): Promise<void> {
  try {
    const config = loadConfig();
    const applied = await migrateDatabase(config);
    const where = config.database.kind === 'embedded' ? `the embedded database in ${config.database.dataDir}` : 'DATABASE_URL';
    console.log(applied.length > 0 ? `Applied ${applied.length} migrations to ${where}: ${applied.join(', ')}` : `The schema of ${where} is up to date.`);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DatabaseSetupError) {
      console.error(`Kurate cannot migrate: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

void main();
