import 'reflect-metadata';
import { createApp } from './app.setup.js';
import { ConfigError, loadConfig, type KurateConfig } from './config/kurate-config.js';
import { DatabaseSetupError } from './db/migration-runner.js';

async function main(): Promise<void> {
  let config: KurateConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  try {
    const app = await createApp(config);
    await app.listen(config.http.port, config.http.host);
    const where = config.database.kind === 'embedded' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL from DATABASE_URL';
    const host = config.http.host === '0.0.0.0' || config.http.host === '127.0.0.1' ? 'localhost' : config.http.host;
    console.log(`\nKurate is running (${where}).\nOpen http://${host}:${config.http.port}/ in your browser.\n`);
  } catch (error) {
    if (error instanceof DatabaseSetupError || error instanceof ConfigError) {
      console.error(`\nKurate cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

void main();
