/** One revision as recent changes lists it (newest first). */
export interface RecentRevision {
  pageId: string;
  currentSlug: string;
  title: string;
  version: number;
  author: string;
  message: string | null;
  createdAt: Date;
}

/** Every change one page had on one day (UTC), as MediaWiki's enhanced recent changes shows it: one line. */
export interface PageDayChanges {
  pageId: string;
  currentSlug: string;
  /** The title of the newest revision that day. */
  title: string;
  /** The revisions, newest first. */
  revisions: RecentRevision[];
  /** Who changed it, in order of their newest change that day, with how many changes each made. */
  authors: { name: string; changes: number }[];
  latestAt: Date;
  /** The version before the day's first change (0 when the page was created that day) and the day's last version. */
  fromVersion: number;
  toVersion: number;
}

export interface RecentDay {
  /** YYYY-MM-DD, in UTC like every time the wiki shows. */
  day: string;
  pages: PageDayChanges[];
}

/**
 * Groups revisions (newest first) by day and then by page: a page edited five times on a day is one line with
 * five changes. Days and the pages within a day keep the order of their newest change.
 */
export function groupRecentChanges(revisions: readonly RecentRevision[]): RecentDay[] {
  const days: RecentDay[] = [];
  const byKey = new Map<string, PageDayChanges>();
  for (const revision of revisions) {
    const day = revision.createdAt.toISOString().slice(0, 10);
    let current = days.at(-1);
    if (!current || current.day !== day) {
      current = days.find((d) => d.day === day);
      if (!current) {
        current = { day, pages: [] };
        days.push(current);
      }
    }
    const key = `${day}\u0000${revision.pageId}`;
    let group = byKey.get(key);
    if (!group) {
      group = {
        pageId: revision.pageId, currentSlug: revision.currentSlug, title: revision.title, revisions: [], authors: [],
        latestAt: revision.createdAt, fromVersion: revision.version - 1, toVersion: revision.version,
      };
      byKey.set(key, group);
      current.pages.push(group);
    }
    group.revisions.push(revision);
    group.fromVersion = Math.min(group.fromVersion, revision.version - 1);
    group.toVersion = Math.max(group.toVersion, revision.version);
    const author = group.authors.find((a) => a.name === revision.author);
    if (author) author.changes += 1;
    else group.authors.push({ name: revision.author, changes: 1 });
  }
  return days;
}
