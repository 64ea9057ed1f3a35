import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JOB_LEASES_APPLICATION_NAME, JobLeases } from '../../src/jobs/job-leases.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { gadgetAnswer, gadgetPage, setPolicy, startOllamaTestApp, type OllamaTestApp } from './kg-test-helpers.js';

/**
 * Job leases (src/jobs/job-leases.ts), PostgreSQL only: a worker holds an advisory lock of its own session per running
 * job. The crash cases (a worker killed, its jobs taken over) are in kg-crash.test.ts, with real processes; this file
 * covers a worker that lives on but loses its lease connection: it must hand its running jobs back at once, since
 * another worker may now take them over.
 */
if (!ON_POSTGRES) console.warn('job-leases: leases exist on PostgreSQL only (DATABASE_URL); on the embedded database a restart hands jobs back.');

describe.runIf(ON_POSTGRES)('job leases on PostgreSQL', () => {
  let o: OllamaTestApp;
  const phase = { hang: true };

  beforeAll(async () => {
    o = await startOllamaTestApp(
      (request) => {
        if (phase.hang) return { kind: 'hang' };
        const user = (request.body?.messages ?? []).find((m: { role: string }) => m.role === 'user')?.content ?? '';
        return { kind: 'chat', content: gadgetAnswer(/<chunk>\n([\s\S]*)\n<\/chunk>/.exec(user)?.[1] ?? '') };
      },
      { KURATE_LLM_TIMEOUT_MS: '600000', KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '600', KURATE_EXTRACT_RETRY_DELAY_SECONDS: '1' },
    );
  });
  afterAll(() => o?.close());

  const jobs = async () =>
    (await o.t.dataSource.query(`SELECT state::text AS state, retry_count, output->>'message' AS message FROM pgboss.job WHERE name = 'kg-extract-page' ORDER BY created_on`)) as {
      state: string;
      retry_count: number;
      message: string | null;
    }[];
  const leases = async () =>
    ((await o.t.dataSource.query(
      `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.application_name = $1`,
      [JOB_LEASES_APPLICATION_NAME],
    )) as { n: number }[])[0].n;

  it('holds one lease per running job, hands its jobs back when the lease connection is lost, and runs them again', async () => {
    await o.admin.post('/api/pages').send({ title: 'Lease Test', body: gadgetPage('leases', { sections: 2 }) }).expect(201);
    await setPolicy(o.admin, 'leases', 'include');
    const worker = o.t.app.get(JobWorker);
    await waitFor('the job to wait on the LLM', async () => worker.runningCount('kg-extract-page') === 1 && o.fake.calls >= 1);
    expect(await leases()).toBe(1);

    // The lease connection goes (a network cut, an administrator's pg_terminate_backend): the job is handed back.
    await o.t.dataSource.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [JOB_LEASES_APPLICATION_NAME]);
    await waitFor('the job to be handed back', async () => worker.runningCount('kg-extract-page') === 0 && (await jobs())[0]?.state !== 'active');
    expect(await jobs()).toEqual([{ state: 'retry', retry_count: 0, message: expect.stringContaining('lost its job leases') }]);

    // The worker connects again when it next takes a job, and the retry runs to the end; no lease is left behind.
    phase.hang = false;
    await waitFor('the retry to complete', async () => (await jobs())[0]?.state === 'completed', 30_000);
    expect((await jobs())[0].retry_count).toBe(1);
    // The lease goes last, after the job is marked completed (JobWorker.launch); the worker counts the job as running
    // until then.
    await waitFor('the worker to finish with the job', () => worker.runningCount('kg-extract-page') === 0, 10_000);
    expect(await leases()).toBe(0);
  }, 60_000);

  it('takes no job while its lease connection cannot be opened, rather than take it and hand it back, and takes it once it can', async () => {
    const worker = o.t.app.get(JobWorker);
    const connect = vi.spyOn(o.t.app.get(JobLeases) as unknown as { connect(): Promise<unknown> }, 'connect').mockRejectedValue(new Error('sorry, too many clients already'));
    try {
      await o.t.dataSource.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [JOB_LEASES_APPLICATION_NAME]);
      await waitFor('the lease connection to be gone', async () => (await o.t.dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [JOB_LEASES_APPLICATION_NAME])).length === 0);
      await o.admin.post('/api/pages').send({ title: 'Lease Later', body: gadgetPage('leases', { sections: 1 }) }).expect(201);
      await waitFor('the worker to try', () => connect.mock.calls.length >= 3);
      worker.wake();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await jobs()).at(-1)).toMatchObject({ state: 'created', retry_count: 0 });
      expect(worker.runningCount('kg-extract-page')).toBe(0);
    } finally {
      connect.mockRestore();
    }
    worker.wake();
    await waitFor('the job to complete once the connection opens', async () => (await jobs()).at(-1)?.state === 'completed', 30_000);
    expect((await jobs()).at(-1)).toMatchObject({ state: 'completed', retry_count: 0 });
  }, 60_000);
});
