import { describe, expect, it } from 'vitest';
import { OneAtATime, QueueFullError } from '../../src/common/one-at-a-time.js';

/** A promise and its resolve, to finish a piece of work when the test says so. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('OneAtATime: one call runs, a bounded number wait', () => {
  it('runs calls one after another in the order made, each with its own result or error', async () => {
    const queue = new OneAtATime(10);
    const log: string[] = [];
    const first = gate();
    const a = queue.run(async () => {
      log.push('a starts');
      await first.promise;
      log.push('a ends');
      return 'a';
    });
    const b = queue.run(async () => {
      log.push('b starts');
      throw new Error('b failed');
    });
    const c = queue.run(async () => {
      log.push('c starts');
      return 'c';
    });
    await Promise.resolve();
    expect(log).toEqual(['a starts']);
    expect(queue.waiting).toBe(2);
    first.open();
    expect(await a).toBe('a');
    await expect(b).rejects.toThrow('b failed');
    expect(await c).toBe('c');
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'c starts']);
    expect(queue.waiting).toBe(0);
  });

  it('refuses a call at once when as many as allowed are waiting, and takes calls again once they have run', async () => {
    const queue = new OneAtATime(2);
    const held = gate();
    const running = queue.run(() => held.promise);
    const waiting = [queue.run(async () => 1), queue.run(async () => 2)];
    const refused = queue.run(async () => 3);
    await expect(refused).rejects.toBeInstanceOf(QueueFullError);
    await expect(refused).rejects.toMatchObject({ waiting: 2 });
    held.open();
    await running;
    expect(await Promise.all(waiting)).toEqual([1, 2]);
    expect(await queue.run(async () => 4)).toBe(4);
  });
});
