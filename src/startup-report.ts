import type { KurateConfig } from './config/kurate-config.js';
import type { Embedder } from './embedders/embedder.js';
import type { Extractor } from './extractors/extraction.types.js';

export interface StartupFacts {
  version: string;
  nodeVersion: string;
  extractor: Pick<Extractor, 'name' | 'model'>;
  embedder: Pick<Embedder, 'name' | 'model'>;
  /** The worker process this server started for the jobs (KURATE_WORKER_PROCESS), if any. */
  workerPid?: number;
}

const ROLE_TEXT = { all: 'web and worker', web: 'web (jobs are worked by KURATE_ROLE=worker processes)', worker: 'worker (extraction jobs, no HTTP)' } as const;

/** A PostgreSQL URL without its password, to print. */
export function redactedDatabaseUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'DATABASE_URL (not shown: it is not a URL)';
  }
}

/** The address to open in a browser: a wildcard or loopback bind is reached as localhost. */
export function browserUrl(config: KurateConfig): string {
  const host = ['0.0.0.0', '127.0.0.1', '::', '::1'].includes(config.http.host) ? 'localhost' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}/`;
}

/**
 * What `npm start` prints once the server is ready: what runs, where, on which database, with which extractor and
 * embedder, and where to open it. A handful of lines; KURATE_LOG_LEVEL=debug shows the framework's own start-up.
 */
export function startupReport(config: KurateConfig, facts: StartupFacts): string[] {
  const role = config.extraction.role;
  const database =
    config.database.kind === 'embedded'
      ? `embedded PostgreSQL (PGlite) in ${config.database.dataDir}`
      : `PostgreSQL ${redactedDatabaseUrl(config.database.url)} (pool of ${config.database.poolSize})`;
  const lines = [
    `Kurate ${facts.version} on Node ${facts.nodeVersion}: ${ROLE_TEXT[role]}; log level ${config.logLevel} (KURATE_LOG_LEVEL)`,
    `Database:  ${database}`,
    `Extractor: ${facts.extractor.name} (${facts.extractor.model}); embedder: ${facts.embedder.name} (${facts.embedder.model})`,
  ];
  if (role === 'all' && config.extraction.workerProcess) {
    lines.push(`Jobs:      in a worker process it started (pid ${facts.workerPid ?? '?'}), at a CPU priority ${config.extraction.workerNice} lower (KURATE_WORKER_PROCESS, KURATE_WORKER_NICE)`);
  }
  if (role === 'worker') lines.push('Kurate worker is running: it works extraction jobs and serves no HTTP.');
  else lines.push(`Kurate is running: open ${browserUrl(config)} in your browser.`);
  return lines;
}
