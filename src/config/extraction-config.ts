import { ConfigError } from './config-error.js';
import type { EnvironmentDto, PROCESS_ROLES } from './environment.dto.js';
import type { ExtractorKind } from './llm-config.js';

export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** How fast one worker process may call an extraction backend. */
export interface BackendLimits {
  /** Extraction calls in flight at once (and pages worked on at once) per worker process. */
  concurrency: number;
  /** Extraction calls started per minute per worker process; 0: no limit. */
  ratePerMinute: number;
}

/** Extraction jobs, proposals and process roles (src/kg/, src/jobs/, docs/extraction.md). */
export interface ExtractionConfig {
  /** KURATE_ROLE: `web` serves HTTP and enqueues, `worker` works jobs and serves no HTTP, `all` does both. */
  role: ProcessRole;
  /** KURATE_KG_CONFIDENCE_THRESHOLD: below it nothing is proposed (the mention is still kept). */
  confidenceThreshold: number;
  /** KURATE_EXTRACT_CONCURRENCY / KURATE_EXTRACT_RATE_PER_MINUTE, or the configured backend's defaults. */
  limits: BackendLimits;
  /** KURATE_EXTRACT_RETRY_LIMIT: retries of a job after a retryable failure (timeout, 429, 5xx) before it fails for good. */
  retryLimit: number;
  /** KURATE_EXTRACT_RETRY_DELAY_SECONDS: the first retry's delay; each further retry doubles it (with jitter). */
  retryDelaySeconds: number;
  /** KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: a job running longer is abandoned; one whose worker died is retried after it. */
  jobTimeoutSeconds: number;
  /** KURATE_JOB_POLL_SECONDS: how often an idle worker looks for new jobs. */
  pollSeconds: number;
  /**
   * KURATE_WORKER_PROCESS: with KURATE_ROLE=all on PostgreSQL, the jobs run in a worker process the web process starts
   * (default), at a lower CPU priority, so that extraction yields to web requests; false: in the web process itself.
   * Always false on the embedded database (one process owns it).
   */
  workerProcess: boolean;
  /** KURATE_WORKER_NICE: how much lower than the web process's that worker's CPU priority is (nice, 0–19). */
  workerNice: number;
  /** How proposals' confidence is calibrated from this wiki's own reviews (src/kg/kg-calibration.service.ts). */
  calibration: CalibrationConfig;
}

export interface CalibrationConfig {
  /**
   * KURATE_CALIBRATION_MIN_REVIEWED: an extractor's proposals of one kind (entities, relations) are calibrated on this
   * wiki's own reviews once this many of them were approved or rejected; before, on the judged set the map was shipped
   * with (src/kg/calibration-builtin.ts). 200 reviews put each tenth of the scale within about ±0.1.
   */
  minReviewed: number;
  /** KURATE_CALIBRATION_REFIT_EVERY: the fit is redone when this many more reviews came in since the last one. */
  refitEvery: number;
}

/**
 * What each backend can take by default: a local Ollama serves one request at a time; Anthropic has rate limits; the
 * built-in extractor runs in this process, where four pages in flight keep it busy while others wait on the database.
 */
export const DEFAULT_BACKEND_LIMITS: Record<ExtractorKind, BackendLimits> = {
  builtin: { concurrency: 4, ratePerMinute: 0 },
  ollama: { concurrency: 1, ratePerMinute: 0 },
  anthropic: { concurrency: 4, ratePerMinute: 50 },
};

export const DEFAULT_EXTRACTION_CONFIG: ExtractionConfig = {
  role: 'all',
  confidenceThreshold: 0.6,
  limits: DEFAULT_BACKEND_LIMITS.builtin,
  retryLimit: 5,
  retryDelaySeconds: 30,
  jobTimeoutSeconds: 1800,
  pollSeconds: 2,
  workerProcess: true,
  workerNice: 10,
  calibration: { minReviewed: 200, refitEvery: 50 },
};

export function extractionConfigFrom(raw: EnvironmentDto, extractor: ExtractorKind, database: 'postgres' | 'embedded'): ExtractionConfig {
  const role = raw.KURATE_ROLE ?? DEFAULT_EXTRACTION_CONFIG.role;
  if (role !== 'all' && database === 'embedded') {
    throw new ConfigError(
      `Invalid configuration: KURATE_ROLE=${role} needs DATABASE_URL (PostgreSQL shared by the web and worker processes); the embedded database belongs to one process, which must be KURATE_ROLE=all.`,
    );
  }
  if (raw.KURATE_WORKER_PROCESS === true && database === 'embedded') {
    throw new ConfigError(
      'Invalid configuration: KURATE_WORKER_PROCESS=true needs DATABASE_URL (PostgreSQL shared by the web and worker processes); the embedded database belongs to one process, which works the jobs itself.',
    );
  }
  const defaults = DEFAULT_BACKEND_LIMITS[extractor];
  return {
    role,
    confidenceThreshold: raw.KURATE_KG_CONFIDENCE_THRESHOLD ?? DEFAULT_EXTRACTION_CONFIG.confidenceThreshold,
    limits: {
      concurrency: raw.KURATE_EXTRACT_CONCURRENCY ?? defaults.concurrency,
      ratePerMinute: raw.KURATE_EXTRACT_RATE_PER_MINUTE ?? defaults.ratePerMinute,
    },
    retryLimit: raw.KURATE_EXTRACT_RETRY_LIMIT ?? DEFAULT_EXTRACTION_CONFIG.retryLimit,
    retryDelaySeconds: raw.KURATE_EXTRACT_RETRY_DELAY_SECONDS ?? DEFAULT_EXTRACTION_CONFIG.retryDelaySeconds,
    jobTimeoutSeconds: raw.KURATE_EXTRACT_JOB_TIMEOUT_SECONDS ?? DEFAULT_EXTRACTION_CONFIG.jobTimeoutSeconds,
    pollSeconds: raw.KURATE_JOB_POLL_SECONDS ?? DEFAULT_EXTRACTION_CONFIG.pollSeconds,
    workerProcess: database === 'postgres' && role === 'all' && (raw.KURATE_WORKER_PROCESS ?? DEFAULT_EXTRACTION_CONFIG.workerProcess),
    workerNice: raw.KURATE_WORKER_NICE ?? DEFAULT_EXTRACTION_CONFIG.workerNice,
    calibration: {
      minReviewed: raw.KURATE_CALIBRATION_MIN_REVIEWED ?? DEFAULT_EXTRACTION_CONFIG.calibration.minReviewed,
      refitEvery: raw.KURATE_CALIBRATION_REFIT_EVERY ?? DEFAULT_EXTRACTION_CONFIG.calibration.refitEvery,
    },
  };
}
