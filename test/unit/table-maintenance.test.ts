import { describe, expect, it } from 'vitest';
import { choresFor, OVERDUE_ROWS, type TableActivity } from '../../src/db/table-maintenance.js';

const table = (over: Partial<TableActivity>): TableActivity => ({ schema: 'public', table: 'pages', live: 1_000, dead: 0, insertedSinceVacuum: 0, modifiedSinceAnalyze: 0, ...over });

describe('choresFor: autovacuum’s own rule, with its default settings', () => {
  it('leaves a table alone below every threshold', () => {
    expect(choresFor([table({ dead: 250, insertedSinceVacuum: 1_200, modifiedSinceAnalyze: 150 })])).toEqual([]);
  });

  it('vacuums a table whose dead rows pass 50 + 20% of its live rows', () => {
    expect(choresFor([table({ dead: 251 })])).toEqual([{ schema: 'public', table: 'pages', action: 'vacuum', reason: '251 dead rows of 1000', overdue: false }]);
  });

  it('vacuums a table whose inserts since its last vacuum pass 1,000 + 20% of its live rows (the visibility map for index-only scans)', () => {
    expect(choresFor([table({ insertedSinceVacuum: 1_201 })])).toMatchObject([{ action: 'vacuum', reason: '1201 rows inserted since its last vacuum' }]);
  });

  it('analyzes a table whose changes since its last analyze pass 50 + 10% of its live rows', () => {
    expect(choresFor([table({ modifiedSinceAnalyze: 151 })])).toMatchObject([{ action: 'analyze' }]);
  });

  it('counts a table that stats report with no live rows as empty', () => {
    expect(choresFor([table({ live: -1, dead: 51 })])).toMatchObject([{ action: 'vacuum', reason: '51 dead rows of 0' }]);
    expect(choresFor([table({ live: 0, dead: 50 })])).toEqual([]);
  });

  it('calls a chore overdue when its rows are at least half the table and at least OVERDUE_ROWS: a fresh import, not a day of saves', () => {
    // An import into an empty wiki: every row is new, and the table was never analyzed.
    expect(choresFor([table({ live: 143_000, insertedSinceVacuum: 143_000, modifiedSinceAnalyze: 143_000 })])).toMatchObject([{ action: 'vacuum', overdue: true }]);
    // Bloat: more dead rows than live ones.
    expect(choresFor([table({ live: 20_000, dead: 25_000 })])).toMatchObject([{ action: 'vacuum', overdue: true }]);
    expect(choresFor([table({ live: 100_000, modifiedSinceAnalyze: 50_000 })])).toMatchObject([{ action: 'analyze', overdue: true }]);
    // Due, but most of the table is as its last maintenance left it.
    expect(choresFor([table({ live: 100_000, dead: 49_999 })])).toMatchObject([{ action: 'vacuum', overdue: false }]);
    // A small table is cheap to read unmaintained, however much of it changed.
    expect(choresFor([table({ live: 1_000, dead: OVERDUE_ROWS - 1 })])).toMatchObject([{ action: 'vacuum', overdue: false }]);
    expect(choresFor([table({ live: 1_000, dead: OVERDUE_ROWS })])).toMatchObject([{ action: 'vacuum', overdue: true }]);
  });
});
