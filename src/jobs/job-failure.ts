/** How a job handler's error is treated: retried (after a delay), or failed for good. */
export interface JobFailure {
  message: string;
  retryable: boolean;
  /** The backend asked to wait this long (e.g. HTTP 429 Retry-After) before trying again. */
  retryAfterMs?: number;
}

/** A handler throws this to say what kind of failure it was; any other error is taken as retryable. */
export class JobError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'JobError';
  }
}

/** Errors that carry `retryable` (JobError, the LLM backends' ExtractorError) say so; anything else may be transient. */
export function failureOf(error: unknown): JobFailure {
  const message = error instanceof Error ? error.message : String(error);
  const flagged = error as { retryable?: unknown; retryAfterMs?: unknown } | null;
  const retryable = typeof flagged?.retryable === 'boolean' ? flagged.retryable : true;
  const retryAfterMs = typeof flagged?.retryAfterMs === 'number' && flagged.retryAfterMs > 0 ? flagged.retryAfterMs : undefined;
  return { message: message.slice(0, 2000), retryable, retryAfterMs };
}
