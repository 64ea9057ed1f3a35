import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobError } from '../../src/jobs/job-failure.js';
import { JobQueue } from '../../src/jobs/job-queue.service.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const QUEUE = 'test-retry-queue';

/**
 * When a failed attempt runs again (src/jobs/job-worker.service.ts): after the queue's retry delay (sized for a
 * backend that needs time: 30 s for extraction), or after a moment when the attempt only lost a race — here a real
 * deadlock error from PostgreSQL, raised with its SQLSTATE in the handler's own statement — since running it again
 * at once decides on what the winner left.
 */
describe('retries of failed jobs', () => {
  let t: TestApp;
  let queue: JobQueue;
  const attempts = new Map<string, number>();
  const failures: Record<string, () => Promise<never>> = {
    deadlock: async () => {
      await t.dataSource.query(`DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40P01', MESSAGE = 'deadlock detected (raised by the test)'; END $$`);
      throw new Error('unreachable');
    },
    'lost race': async () => {
      throw new JobError('the page changed while it was read', true, undefined, true);
    },
    backend: async () => {
      throw new Error('the backend answered 500');
    },
  };

  beforeAll(async () => {
    t = await startTestApp();
    queue = t.app.get(JobQueue);
    await queue.defineQueue({ name: QUEUE, retryLimit: 2, retryDelaySeconds: 30, expireInSeconds: 60 });
    const worker = t.app.get(JobWorker);
    worker.register<{ fail: string }>(
      QUEUE,
      {
        run: async (job) => {
          const n = (attempts.get(job.id) ?? 0) + 1;
          attempts.set(job.id, n);
          if (n === 1) await failures[job.data.fail]();
          return { attempts: n };
        },
      },
      { concurrency: 3 },
    );
    await worker.start();
  });
  afterAll(() => t?.close());

  const stateOf = async (id: string) =>
    ((await t.dataSource.query(`SELECT state::text AS state, retry_count, start_after > now() + interval '10 seconds' AS later FROM pgboss.job WHERE id = $1`, [id])) as {
      state: string;
      retry_count: number;
      later: boolean;
    }[])[0];

  it('runs an attempt that lost a race (a deadlock, a JobError saying so) again within seconds, and one that failed otherwise after the retry delay', async () => {
    const ids = Object.fromEntries(await Promise.all(Object.keys(failures).map(async (fail) => [fail, (await queue.send(QUEUE, { fail }, { singletonKey: fail }))!] as const)));
    t.app.get(JobWorker).wake(QUEUE);
    for (const fail of ['deadlock', 'lost race']) {
      await waitFor(`the ${fail} job to complete on its retry`, async () => (await stateOf(ids[fail])).state === 'completed', 10_000);
      expect(await stateOf(ids[fail])).toMatchObject({ state: 'completed', retry_count: 1 });
      expect(attempts.get(ids[fail])).toBe(2);
    }
    // The backend's failure waits its 30 s: still waiting, its retry far ahead.
    expect(await stateOf(ids.backend)).toMatchObject({ state: 'retry', retry_count: 0, later: true });
    expect(attempts.get(ids.backend)).toBe(1);
  }, 30_000);
});
