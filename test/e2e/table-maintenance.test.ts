// Kurate vacuums its own tables where nothing else does: the embedded database (no autovacuum launcher) and a server
// whose autovacuum is off (src/db/table-maintenance.ts). On a server whose autovacuum is on, it leaves them alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableMaintenance } from '../../src/db/table-maintenance.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('table maintenance', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    // 40 pages, each saved twice: every save rewrites the page's search terms, leaving dead rows behind.
    for (let i = 0; i < 40; i++) {
      const words = Array.from({ length: 30 }, (_, w) => `word${i}x${w}`).join(' ');
      await author.post('/api/pages').send({ title: `Maintained ${i}`, body: words }).expect(201);
      await author.put(`/api/pages/maintained-${i}`).send({ body: `${words} lanterns`, baseVersion: 1 }).expect(200);
    }
  }, 120_000);
  afterAll(() => t?.close());

  const activity = async (table: string) => {
    await t.dataSource.query('SELECT pg_stat_force_next_flush()');
    await t.dataSource.query('SELECT 1');
    const [row] = await t.dataSource.query(
      `SELECT n_dead_tup::int AS dead, (last_vacuum IS NOT NULL) AS vacuumed, (last_analyze IS NOT NULL) AS analyzed FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname = $1`,
      [table],
    );
    return row as { dead: number; vacuumed: boolean; analyzed: boolean };
  };

  it('vacuums and analyzes the tables that autovacuum’s rule names, where the database does not', async () => {
    const maintenance = t.app.get(TableMaintenance);
    const [{ autovacuum }] = await t.dataSource.query(`SELECT current_setting('autovacuum') AS autovacuum`);
    const embedded = t.app.get(TableMaintenance)['config'].database.kind === 'embedded';
    expect(await maintenance.isOwnJob()).toBe(embedded || autovacuum === 'off');
    const before = await activity('page_search_terms');
    expect(before.dead).toBeGreaterThan(50);

    const chores = await maintenance.run(['public']);
    if (!(await maintenance.isOwnJob())) {
      // A server that vacuums by itself is left to it.
      expect(chores).toEqual([]);
      return;
    }
    expect(chores).toContainEqual(expect.objectContaining({ schema: 'public', table: 'page_search_terms', action: 'vacuum' }));
    const after = await activity('page_search_terms');
    expect(after).toMatchObject({ dead: 0, vacuumed: true });
    // Done once: the next round finds nothing to do for that table.
    expect((await maintenance.run(['public'])).filter((c) => c.table === 'page_search_terms')).toEqual([]);
  });
});
