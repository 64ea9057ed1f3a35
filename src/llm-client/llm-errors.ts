/** An AbortSignal that fires at the deadline or when the caller's signal fires, whichever comes first. */
export function withDeadline(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; timedOut(): boolean; dispose(): void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * How long the server asked us to wait: `retry-after-ms` (Anthropic, OpenAI-style), else `retry-after` in seconds
 * or as an HTTP date. undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | Record<string, string | null | undefined> | null | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null | undefined =>
    headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return clamp(Math.round(ms));
  const value = get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return clamp(Math.round(Number.parseFloat(value) * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clamp(Math.max(0, date - now));
}

function clamp(ms: number): number {
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** A backend's failure (an extractor's or an embedder's): `retryable` says whether trying again may help, `retryAfterMs` when. */
export class ExtractorError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ExtractorError';
  }
}
