/** Thrown by OneAtATime.run when as many calls as it allows are waiting already. */
export class QueueFullError extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} calls are waiting already`);
  }
}

/**
 * Runs async work one call at a time, in the order called, with at most `maxWaiting` calls waiting behind the one that
 * runs: one more is refused at once (QueueFullError) instead of waiting. For work that holds a scarce resource while it
 * runs (a database connection), so that a burst of it waits here, holding nothing, and stays bounded.
 */
export class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;

  constructor(private readonly maxWaiting: number) {}

  /** Calls waiting for their turn (not counting the one running). */
  get waiting(): number {
    return Math.max(0, this.queued - 1);
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.waiting >= this.maxWaiting) return Promise.reject(new QueueFullError(this.waiting));
    this.queued++;
    const run = this.tail.then(work).finally(() => {
      this.queued--;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
