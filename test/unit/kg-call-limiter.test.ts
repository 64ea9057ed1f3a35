import { describe, expect, it } from 'vitest';
import { CallLimiter, sleep } from '../../src/kg/call-limiter.js';

describe('CallLimiter', () => {
  it('never runs more calls at once than its concurrency', async () => {
    const limiter = new CallLimiter(2, 0);
    let running = 0;
    let peak = 0;
    const call = async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
      return running;
    };
    await Promise.all(Array.from({ length: 10 }, () => limiter.run(call)));
    expect(peak).toBe(2);
  });

  it('starts at most ratePerMinute calls per minute (a token bucket)', async () => {
    let now = 0;
    const limiter = new CallLimiter(10, 60, () => now);
    const started: number[] = [];
    // 60 a minute: one token per second once the first minute's 60 are used up.
    for (let i = 0; i < 60; i++) await limiter.run(async () => started.push(now));
    expect(started.every((t) => t === 0)).toBe(true);
    const next = limiter.run(async () => started.push(now));
    await sleep(20);
    expect(started).toHaveLength(60);
    now = 1000;
    await next;
    expect(started.at(-1)).toBe(1000);
  });

  it('pauses every caller while the backend asked to wait (Retry-After)', async () => {
    const limiter = new CallLimiter(4, 0);
    limiter.pauseFor(150);
    const started = Date.now();
    await limiter.run(async () => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('gives up waiting when the caller aborts, and frees its slot after a failed call', async () => {
    const limiter = new CallLimiter(1, 0);
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiting = limiter.run(async () => 'never', controller.signal);
    controller.abort(new Error('excluded'));
    await expect(waiting).rejects.toThrow('excluded');
    release();
    await first;
    await expect(limiter.run(async () => { throw new Error('backend down'); })).rejects.toThrow('backend down');
    expect(await limiter.run(async () => 'free again')).toBe('free again');
  });
});
