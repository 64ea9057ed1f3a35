import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WEB_APPLICATION_NAME, WORKER_APPLICATION_NAME } from '../../src/db/application-names.js';
import { TableMaintenance, type TableChore } from '../../src/db/table-maintenance.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { JobsRepository } from '../../src/jobs/jobs.repository.js';
import { realPostgresUrl } from '../support/database.js';
import { waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/**
 * Issue 18 part 5: background extraction yields to readers. A worker process (KURATE_ROLE=worker) takes its next job
 * only while the web processes run no statement, waiting for at most half a second each time.
 */
describe.skipIf(!realPostgresUrl())('a worker process yields to web requests', () => {
  let t: TestApp;
  const busy: pg.Client[] = [];
  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_ROLE: 'worker' } });
  });
  afterAll(async () => {
    for (const client of busy) await client.end().catch(() => undefined);
    await t?.close();
  });

  /** One web statement that runs for `seconds` (a reader's search), once PostgreSQL shows it running. */
  async function webStatement(seconds: number): Promise<{ done: Promise<unknown> }> {
    const databaseUrl = new URL(realPostgresUrl()!);
    const [{ db }] = await t.dataSource.query(`SELECT current_database() AS db`);
    databaseUrl.pathname = `/${db}`;
    const client = new pg.Client({ connectionString: databaseUrl.toString(), application_name: WEB_APPLICATION_NAME });
    await client.connect();
    busy.push(client);
    const running = client.query(`SELECT pg_sleep(${seconds})`).catch(() => undefined);
    await waitFor('the web statement to run', async () => (await t.app.get(JobsRepository).activeWebStatements()) >= 1);
    return { done: running };
  }

  it('names its connections by role', async () => {
    const [row] = await t.dataSource.query(`SELECT current_setting('application_name') AS name`);
    expect(row.name).toBe(WORKER_APPLICATION_NAME);
  });

  it('waits while the web is busy, and not when it is idle', async () => {
    const admin = await t.as('admin');
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Seed Page', body: '---\ncluster: yield\n---\nNuts and bolts.' }).expect(201);
    await setPolicy(admin, 'yield', 'include');
    const worker = await startWorker(t);
    await waitForJobs(t);

    const idleBefore = worker.yieldCount;
    await author.post('/api/pages').send({ title: 'Quiet Page', body: '---\ncluster: yield\n---\nGadgets and widgets.' }).expect(201);
    await waitForJobs(t);
    expect(worker.yieldCount).toBe(idleBefore);

    // One web statement running (a reader's search).
    await webStatement(2);
    const busyBefore = worker.yieldCount;
    const started = Date.now();
    await author.post('/api/pages').send({ title: 'Busy Page', body: '---\ncluster: yield\n---\nSprockets and cogs.' }).expect(201);
    t.app.get(JobWorker).wake();
    await waitForJobs(t);
    expect(worker.yieldCount).toBeGreaterThan(busyBefore);
    // Slowed by at most half a second a time, never stopped.
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('leaves its table maintenance for a later round while the web is busy, for at most ten minutes, but never an overdue table', async () => {
    const worker = t.app.get(JobWorker) as unknown as { runMaintenance(options: { tables: boolean }): Promise<void>; tablesPostponedSince: number | null };
    const maintenance = t.app.get(TableMaintenance);
    const chore = (table: string, overdue: boolean): TableChore => ({ schema: 'public', table, action: 'vacuum', reason: 'test', overdue });
    const due = vi.spyOn(maintenance, 'due').mockResolvedValue([chore('pages', false)]);
    const perform = vi.spyOn(maintenance, 'perform').mockResolvedValue();
    const performed = () => perform.mock.calls.map(([chores]) => chores.map((c) => c.table));
    try {
      const sleeping = [(await webStatement(3)).done];
      await worker.runMaintenance({ tables: true });
      expect(performed()).toEqual([[]]);
      // A fresh import's table is vacuumed at once, busy or not; the rest still waits.
      due.mockResolvedValue([chore('pages', false), chore('page_search_terms', true)]);
      await worker.runMaintenance({ tables: true });
      expect(performed().at(-1)).toEqual(['page_search_terms']);
      expect(worker.tablesPostponedSince).not.toBeNull();
      // Postponed for ten minutes already: it runs, busy or not.
      due.mockResolvedValue([chore('pages', false)]);
      worker.tablesPostponedSince = Date.now() - 10 * 60_000;
      await worker.runMaintenance({ tables: true });
      expect(performed().at(-1)).toEqual(['pages']);
      expect(worker.tablesPostponedSince).toBeNull();
      // Once the readers are done, the next round runs, but not while this worker runs a job.
      await Promise.all(sleeping);
      const registration = (t.app.get(JobWorker) as unknown as { registrations: Map<string, { running: Map<string, unknown> }> }).registrations.values().next().value!;
      registration.running.set('a job', {});
      await worker.runMaintenance({ tables: true });
      expect(performed().at(-1)).toEqual([]);
      registration.running.delete('a job');
      await worker.runMaintenance({ tables: true });
      expect(performed().at(-1)).toEqual(['pages']);
    } finally {
      due.mockRestore();
      perform.mockRestore();
    }
  });
});
