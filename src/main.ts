import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createApp } from './app.setup.js';
import { ConfigError, loadConfig, type KurateConfig } from './config/kurate-config.js';
import { DatabaseSetupError } from './db/migration-runner.js';
import { EMBEDDER, type Embedder } from './embedders/embedder.js';
import { EXTRACTOR, type Extractor } from './extractors/extraction.types.js';
import { JobWorker } from './jobs/job-worker.service.js';
import { startupReport } from './startup-report.js';

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
    const role = config.extraction.role;
    // KURATE_ROLE: web serves HTTP and enqueues jobs; worker works the jobs and serves no HTTP; all does both.
    if (role === 'worker') {
      await app.init();
    } else {
      await app.listen(config.http.port, config.http.host);
    }
    if (role !== 'web') await app.get(JobWorker).start();
    const lines = startupReport(config, {
      version: packageVersion(),
      nodeVersion: process.version,
      extractor: app.get<Extractor>(EXTRACTOR),
      embedder: app.get<Embedder>(EMBEDDER),
    });
    console.log(lines.join('\n'));
  } catch (error) {
    if (error instanceof DatabaseSetupError || error instanceof ConfigError) {
      console.error(`\nKurate cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

void main();
