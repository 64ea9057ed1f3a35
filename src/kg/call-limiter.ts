/**
 * Limits calls to one backend from this process: at most `concurrency` in flight, at most `ratePerMinute` started per
 * minute (a token bucket refilled continuously; 0: no rate limit), and none at all while the backend asked to wait
 * (a 429's Retry-After pauses every caller, not just the one that got it).
 */
export class CallLimiter {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private tokens: number;
  private refilledAt = Date.now();
  private pausedUntil = 0;

  constructor(
    readonly concurrency: number,
    readonly ratePerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = Math.max(1, ratePerMinute);
    this.refilledAt = now();
  }

  /** Runs `call` when a slot and a token are free; rejects with the signal's reason if aborted while waiting. */
  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquireSlot(signal);
    try {
      await this.acquireToken(signal);
      return await call();
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  /** Every caller waits until then (e.g. the backend answered 429 with Retry-After). */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private async acquireSlot(signal?: AbortSignal): Promise<void> {
    while (this.inFlight >= this.concurrency) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal!.reason);
        };
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    this.inFlight++;
  }

  private async acquireToken(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      if (now < this.pausedUntil) {
        await sleep(this.pausedUntil - now, signal);
        continue;
      }
      if (this.ratePerMinute <= 0) return;
      this.tokens = Math.min(this.ratePerMinute, this.tokens + ((now - this.refilledAt) * this.ratePerMinute) / 60_000);
      this.refilledAt = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - this.tokens) * 60_000) / this.ratePerMinute), signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
