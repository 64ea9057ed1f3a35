import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery } from '../../src/db/prepared-query.js';
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
});
