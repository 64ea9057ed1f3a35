import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/job-queue.service.js';
import { JOB_FETCH_ORDER_INDEX } from '../../src/jobs/jobs.repository.js';
import { EXTRACT_PAGE_QUEUE } from '../../src/kg/kg-extraction-queue.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** pg-boss's fetch of the next job (its WHERE and ORDER BY), to see how PostgreSQL plans it. */
const FETCH_PLAN = `EXPLAIN SELECT id FROM pgboss.job WHERE name = $1 AND state < 'active' AND start_after < now()
                     ORDER BY priority DESC, created_on, id LIMIT 1 FOR UPDATE SKIP LOCKED`;

/** The indexes of a queue's partition that come from Kurate's fetch-order index on the partitioned job table. */
async function fetchOrderIndexesOf(t: TestApp, queue: string): Promise<number> {
  const rows: { n: number }[] = await t.dataSource.query(
    `SELECT count(*)::int AS n
       FROM pgboss.queue q
       JOIN pg_class part ON part.relname = q.partition_name AND part.relnamespace = 'pgboss'::regnamespace
       JOIN pg_index i ON i.indrelid = part.oid
       JOIN pg_inherits h ON h.inhrelid = i.indexrelid
       JOIN pg_class parent ON parent.oid = h.inhparent AND parent.relname = $2
      WHERE q.name = $1`,
    [queue, JOB_FETCH_ORDER_INDEX],
  );
  return rows[0].n;
}

describe('the job queue (pg-boss in the same database)', () => {
  let t: TestApp;
  let queue: JobQueue;

  beforeAll(async () => {
    t = await startTestApp();
    queue = t.app.get(JobQueue);
  });
  afterAll(() => t?.close());

  it('gives every queue an index in fetch order, also a queue created later', async () => {
    expect(await fetchOrderIndexesOf(t, EXTRACT_PAGE_QUEUE)).toBe(1);
    await queue.defineQueue({ name: 'test-later-queue', retryLimit: 1, retryDelaySeconds: 1, expireInSeconds: 60 });
    expect(await fetchOrderIndexesOf(t, 'test-later-queue')).toBe(1);
  });

  it('takes the next job from the front of that index instead of sorting the whole queue', async () => {
    const pageIds = Array.from({ length: 1000 }, () => randomUUID());
    await queue.sendMany(
      EXTRACT_PAGE_QUEUE,
      pageIds.map((pageId) => ({ data: { pageId }, singletonKey: pageId })),
    );
    // A batch this large refreshed the planner's statistics at once (autovacuum would, up to a minute later).
    const [{ reltuples }] = await t.dataSource.query(
      `SELECT c.reltuples::int AS reltuples FROM pgboss.queue q JOIN pg_class c ON c.relname = q.partition_name WHERE q.name = $1`,
      [EXTRACT_PAGE_QUEUE],
    );
    expect(reltuples).toBeGreaterThanOrEqual(1000);
    const plan = (await t.dataSource.query(FETCH_PLAN, [EXTRACT_PAGE_QUEUE])).map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan/);
    expect(plan).not.toMatch(/Sort/);

    // The jobs come in pg-boss's own order (priority, then age, then id; one batch shares its age).
    const expected: { id: string }[] = await t.dataSource.query(
      `SELECT id::text AS id FROM pgboss.job WHERE name = $1 AND state < 'active' ORDER BY priority DESC, created_on, id LIMIT 5`,
      [EXTRACT_PAGE_QUEUE],
    );
    const taken = await queue.fetch(EXTRACT_PAGE_QUEUE, 3);
    const next = await queue.fetch(EXTRACT_PAGE_QUEUE, 2);
    expect([...taken, ...next].map((j) => j.id)).toEqual(expected.map((e) => e.id));
    expect(new Set([...taken, ...next].map((j) => (j.data as { pageId: string }).pageId)).size).toBe(5);
  });
});
