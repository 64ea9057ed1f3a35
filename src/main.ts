import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createApp } from './app.setup.js';
import { ConfigError, loadConfig, type KurateConfig } from './config/kurate-config.js';
import { DatabaseSetupError } from './db/migration-runner.js';
import { EMBEDDER, type Embedder } from './embedders/embedder.js';
import { EXTRACTOR, type Extractor } from './extractors/extraction.types.js';
import { JobWorker } from './jobs/job-worker.service.js';
import { becomeLowPriorityWorker, endWithParent, WORKER_OF_ENV, WorkerProcess } from './jobs/worker-process.js';
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
  // A worker a web process started ends with it, also when the web process is gone before this one has started.
  let closeApp: (() => Promise<void>) | null = null;
  endWithParent(() => closeApp);
  try {
    const app = await createApp(config);
    closeApp = () => app.close();
    const role = config.extraction.role;
    // KURATE_ROLE: web serves HTTP and enqueues jobs; worker works the jobs and serves no HTTP; all does both, on
    // PostgreSQL by default with the jobs in a worker process of lower priority that it starts (KURATE_WORKER_PROCESS).
    const nice = role === 'worker' ? becomeLowPriorityWorker(config.extraction.workerNice) : null;
    if (role === 'worker') {
      await app.init();
    } else {
      await app.listen(config.http.port, config.http.host);
    }
    if (role === 'worker' || (role === 'all' && !config.extraction.workerProcess)) await app.get(JobWorker).start();
    if (config.extraction.workerProcess) app.get(WorkerProcess).start();
    if (nice !== null) {
      // A worker the web process started: one line, the web process printed the rest.
      console.log(`Kurate worker is running: process ${process.pid}, started by process ${process.env[WORKER_OF_ENV]}, at nice ${nice}; it works extraction jobs and serves no HTTP.`);
    } else {
      const lines = startupReport(config, {
        version: packageVersion(),
        nodeVersion: process.version,
        extractor: app.get<Extractor>(EXTRACTOR),
        embedder: app.get<Embedder>(EMBEDDER),
        workerPid: config.extraction.workerProcess ? app.get(WorkerProcess).pid : undefined,
      });
      console.log(lines.join('\n'));
    }
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
