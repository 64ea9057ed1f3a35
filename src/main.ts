import 'reflect-metadata';
import { createApp } from './app.setup.js';
import { ConfigError, loadConfig, type KurateConfig } from './config/kurate-config.js';
import { DatabaseSetupError } from './db/migration-runner.js';
import { JobWorker } from './jobs/job-worker.service.js';
import { becomeLowPriorityWorker, WorkerProcess } from './jobs/worker-process.js';

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
    const where = config.database.kind === 'embedded' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL from DATABASE_URL';
    // KURATE_ROLE: web serves HTTP and enqueues jobs; worker works the jobs and serves no HTTP; all does both, on
    // PostgreSQL by default with the jobs in a worker process of lower priority that it starts (KURATE_WORKER_PROCESS).
    const nice = role === 'worker' ? becomeLowPriorityWorker(config.extraction.workerNice, () => app.close()) : null;
    if (role === 'worker') {
      await app.init();
    } else {
      await app.listen(config.http.port, config.http.host);
    }
    if (role === 'worker' || (role === 'all' && !config.extraction.workerProcess)) await app.get(JobWorker).start();
    if (config.extraction.workerProcess) app.get(WorkerProcess).start();
    if (role === 'worker') {
      const started = nice === null ? '' : ` It was started by process ${process.env.KURATE_WORKER_OF} and runs at nice ${nice}.`;
      console.log(`\nKurate worker is running (${where}): it works extraction jobs and serves no HTTP.${started}\n`);
    } else {
      const host = config.http.host === '0.0.0.0' || config.http.host === '127.0.0.1' ? 'localhost' : config.http.host;
      const jobs = role === 'web'
        ? ' Jobs are worked by KURATE_ROLE=worker processes.'
        : config.extraction.workerProcess ? ` Jobs are worked by a worker process it started (pid ${app.get(WorkerProcess).pid}), at a lower CPU priority.` : '';
      console.log(`\nKurate is running (${where}).${jobs}\nOpen http://${host}:${config.http.port}/ in your browser.\n`);
    }
  } catch (error) {
    if (error instanceof DatabaseSetupError || error instanceof ConfigError) {
      console.error(`\nKurate cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

void main();
