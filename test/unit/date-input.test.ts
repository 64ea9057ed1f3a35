import { describe, expect, it } from 'vitest';
import { readDateOrTime } from '../../src/common/date-input.js';

describe('dates and times read from people and programs', () => {
  it('reads a calendar date as its start in UTC, and a time in UTC unless it names an offset', () => {
    expect(readDateOrTime('2026-01-31')?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(readDateOrTime('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(readDateOrTime('2026-01-31T18:00')?.toISOString()).toBe('2026-01-31T18:00:00.000Z');
    expect(readDateOrTime('2026-01-31T18:00:05.25')?.toISOString()).toBe('2026-01-31T18:00:05.250Z');
    expect(readDateOrTime('2026-01-31T18:00:00Z')?.toISOString()).toBe('2026-01-31T18:00:00.000Z');
    expect(readDateOrTime('2026-01-31T18:00:00+02:00')?.toISOString()).toBe('2026-01-31T16:00:00.000Z');
    expect(readDateOrTime('2026-01-31T01:00-14:00')?.toISOString()).toBe('2026-01-31T15:00:00.000Z');
  });

  it('refuses the ISO 8601 forms read differently elsewhere, days that do not exist and offsets beyond ±14:00', () => {
    for (const text of ['2026-W05-6', '2026-W05', '2026-031', '20260131', '20260131T180000Z', '2026', '2026-01', '2026-02-29',
      '2026-02-30', '2026-04-31', '2026-13-01', '2026-01-31T24:00', '2026-01-31T18:00+15:00', '2026-01-31T18:00:00+99:99',
      '0000-01-01', '0999-12-31', '2026-01-31 18:00', ' 2026-01-31', '2026-01-31T18', 'tomorrow', '']) {
      expect(readDateOrTime(text), text).toBeNull();
    }
  });
});
