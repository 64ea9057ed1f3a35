import { describe, expect, it } from 'vitest';
import { groupRecentChanges, type RecentRevision } from '../../src/pages/recent-changes.js';

const rev = (pageId: string, version: number, author: string, at: string, message: string | null = null): RecentRevision => ({
  pageId, currentSlug: pageId, title: `Title ${pageId}`, version, author, message, createdAt: new Date(at),
});

describe('groupRecentChanges', () => {
  it('makes one line per page and day, newest first, with counts, authors and the day’s version range', () => {
    const days = groupRecentChanges([
      rev('a', 5, 'ada', '2026-12-02T10:00:00Z', 'last'),
      rev('b', 1, 'bob', '2026-12-02T09:00:00Z'),
      rev('a', 4, 'bob', '2026-12-02T08:00:00Z'),
      rev('a', 3, 'ada', '2026-12-02T07:00:00Z'),
      rev('a', 2, 'ada', '2026-12-01T23:59:00Z'),
      rev('a', 1, 'ada', '2026-12-01T20:00:00Z'),
    ]);
    expect(days.map((d) => d.day)).toEqual(['2026-12-02', '2026-12-01']);
    const [today, yesterday] = days;
    expect(today.pages.map((p) => [p.pageId, p.revisions.length, p.fromVersion, p.toVersion])).toEqual([['a', 3, 2, 5], ['b', 1, 0, 1]]);
    expect(today.pages[0].authors).toEqual([{ name: 'ada', changes: 2 }, { name: 'bob', changes: 1 }]);
    expect(today.pages[0].latestAt.toISOString()).toBe('2026-12-02T10:00:00.000Z');
    expect(today.pages[0].revisions.map((r) => r.version)).toEqual([5, 4, 3]);
    expect(yesterday.pages).toHaveLength(1);
    expect(yesterday.pages[0]).toMatchObject({ pageId: 'a', fromVersion: 0, toVersion: 2 });
  });

  it('returns no day for no revision', () => {
    expect(groupRecentChanges([])).toEqual([]);
  });
});
