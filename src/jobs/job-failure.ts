import { isTransientConflict } from '../db/sql-state.js';

/** How a job handler's error is treated: retried (after a delay), or failed for good. */
export interface JobFailure {
  message: string;
  retryable: boolean;
  /** The backend asked to wait this long (e.g. HTTP 429 Retry-After) before trying again. */
  retryAfterMs?: number;
  /**
   * The attempt lost a race, not a fight with its input or a backend (a deadlock, a serialization failure, the page
   * changed under it, its lease could not be taken): it is retried after a moment (PROMPT_RETRY_MS), not after the
   * queue's retry delay, which is sized for a backend that needs time to recover.
   */
  retrySoon?: boolean;
}

/** How long a job that lost a race waits before its retry. */
export const PROMPT_RETRY_MS = 1_000;

/** A handler throws this to say what kind of failure it was; any other error is taken as retryable. */
export class JobError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    /** A lost race (see JobFailure.retrySoon). */
    readonly retrySoon = false,
  ) {
    super(message);
    this.name = 'JobError';
  }
}

/**
 * Errors that carry `retryable` (JobError, the LLM backends' ExtractorError) say so; anything else may be transient.
 * A deadlock or serialization failure PostgreSQL chose this attempt to lose is a lost race: retried soon.
 */
export function failureOf(error: unknown): JobFailure {
  const message = error instanceof Error ? error.message : String(error);
  const flagged = error as { retryable?: unknown; retryAfterMs?: unknown; retrySoon?: unknown } | null;
  const retryable = typeof flagged?.retryable === 'boolean' ? flagged.retryable : true;
  const retryAfterMs = typeof flagged?.retryAfterMs === 'number' && flagged.retryAfterMs > 0 ? flagged.retryAfterMs : undefined;
  const retrySoon = retryable && retryAfterMs === undefined && (flagged?.retrySoon === true || isTransientConflict(error));
  return { message: message.slice(0, 2000), retryable, retryAfterMs, ...(retrySoon ? { retrySoon } : {}) };
}
