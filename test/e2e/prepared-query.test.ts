import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { preparedQuery } from '../../src/db/prepared-query.js';
import { SearchRepository } from '../../src/search/search.repository.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Hot statements run as named prepared statements: parsed once per connection, on both databases. */
describe('prepared statements', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const prepared = (tx: { query: (sql: string, values: unknown[]) => Promise<{ name: string }[]> }, text: string) =>
    tx.query('SELECT name FROM pg_prepared_statements WHERE statement = $1', [text]);

  it('prepares a text once per connection and runs it with each call’s values', async () => {
    const text = 'SELECT $1::int + 1 AS n';
    await t.dataSource.transaction(async (tx) => {
      expect(await preparedQuery(tx, text, [1])).toEqual([{ n: 2 }]);
      expect(await preparedQuery(tx, text, [41])).toEqual([{ n: 42 }]);
      const names = await prepared(tx, text);
      expect(names).toHaveLength(1);
      expect(names[0].name).toMatch(/^kurate_[0-9a-f]{20}$/);
    });
  });

  it('gives two texts two names, and reports a bad value as PostgreSQL does', async () => {
    const a = 'SELECT $1::text AS a';
    const b = 'SELECT $1::text AS b';
    await t.dataSource.transaction(async (tx) => {
      expect(await preparedQuery(tx, a, ['x'])).toEqual([{ a: 'x' }]);
      expect(await preparedQuery(tx, b, ['y'])).toEqual([{ b: 'y' }]);
      const [[first], [second]] = [await prepared(tx, a), await prepared(tx, b)];
      expect(first.name).not.toBe(second.name);
    });
    await expect(preparedQuery(t.dataSource, 'SELECT $1::int AS n', ['not a number'])).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await preparedQuery(t.dataSource, 'SELECT $1::int AS n', ['7'])).toEqual([{ n: 7 }]);
  });

  it('keeps one generic plan for the search’s result cards, links and sentence marks, whatever their values', async () => {
    // Planned with each call's values, these statements took longer to plan than to run (bench/RESULTS.md,
    // 2026-12-06 21:40): PostgreSQL keeps a generic plan only if no value makes the custom plans look cheaper.
    const author = await t.as('author');
    const ids: string[] = [];
    for (const [title, body] of [
      ['Tide tables', 'Tide tables give the high water at the harbour. See [[Harbour pilots]].'],
      ['Harbour pilots', 'Pilots board ships at the outer buoy. See [[Tide tables]] and [[Buoy colours]].'],
      ['Buoy colours', 'Red to port, green to starboard, at the harbour mouth.'],
    ]) ids.push((await author.post('/api/pages').send({ title, body }).expect(201)).body.id);
    const words = ['tide harbour', 'pilots', 'buoy colours', 'harbour', 'green water', 'ships board', 'red port'];
    await t.dataSource.transaction(async (tx) => {
      const search = new SearchRepository(tx as unknown as DataSource);
      for (const [i, w] of words.entries()) {
        const some = ids.slice(0, 1 + (i % ids.length));
        await search.pageCards(some.map((pageId) => ({ pageId, chunkId: null })), w, false);
        await search.linksFrom(some, {}, w);
        await search.markSentences([{ card: 0, i: 0, sentence: `The ${w} of the harbour.`, candidate: true }], w);
      }
      const plans: { statement: string; generic: number; custom: number }[] = await tx.query(
        'SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements');
      const markers = ['chunk_id bigint, ord int', 'l.resolved_page_id <> l.from_page_id', 'ts_headline'];
      const counts = markers.map((marker) => {
        const plan = plans.find((p) => p.statement.includes(marker));
        return { marker, generic: plan?.generic, custom: plan?.custom };
      });
      // Five custom plans to learn the average from, then the generic one for every later run.
      expect(counts).toEqual(markers.map((marker) => ({ marker, generic: words.length - 5, custom: 5 })));
    });
  });
});
