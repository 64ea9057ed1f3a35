import type { KurateConfig } from '../config/kurate-config.js';

/**
 * The application_name of this process's database connections, as pg_stat_activity shows them: a worker process's
 * (KURATE_ROLE=worker) are `kurate-worker`, every other process's `kurate-web`. A worker yields to web requests by
 * counting the web's running statements (src/jobs/job-worker.service.ts).
 */
export const WEB_APPLICATION_NAME = 'kurate-web';
export const WORKER_APPLICATION_NAME = 'kurate-worker';

export function applicationNameOf(config: KurateConfig): string {
  return config.extraction.role === 'worker' ? WORKER_APPLICATION_NAME : WEB_APPLICATION_NAME;
}
