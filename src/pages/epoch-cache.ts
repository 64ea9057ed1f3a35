import type { PageChangeFeed } from './page-change-feed.js';

/**
 * Values by key (page slugs), kept until a page change names their key or may have changed anything (any write can
 * resolve a link, add a backlink or move a slug; a save that keeps the page's names names the pages it changed).
 * Reads that began before a change of their key are never stored. Bounded; the least recently used entry goes first.
 */
export class EpochCache<T> {
  private readonly entries = new Map<string, T>();
  private entriesEpoch = -1;

  constructor(
    private readonly feed: PageChangeFeed,
    private readonly maxEntries: number,
  ) {}

  /** Call before reading what will be stored, and pass the result to `set`. */
  begin(): number {
    return this.feed.epoch;
  }

  /**
   * The value, if it is still valid once this process has heard of every page change committed before the call (a
   * save on another process included). Costs a round trip only when there is something to serve.
   */
  async getFresh(key: string): Promise<T | undefined> {
    if (this.get(key) === undefined) return undefined;
    await this.feed.caughtUp();
    return this.get(key);
  }

  get(key: string): T | undefined {
    this.catchUp();
    if (!this.feed.reliable) return undefined;
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: T, epochAtBegin: number): void {
    this.catchUp();
    if (!this.feed.reliable || !this.unchangedSince(key, epochAtBegin)) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  /** Whether no change since `epoch` may have touched `key`. */
  private unchangedSince(key: string, epoch: number): boolean {
    const changes = this.feed.changesSince(epoch);
    return changes !== null && changes.every((slugs) => slugs !== null && !slugs.has(key));
  }

  private catchUp(): void {
    if (this.entriesEpoch === this.feed.epoch) return;
    const changes = this.entriesEpoch < 0 ? null : this.feed.changesSince(this.entriesEpoch);
    if (changes === null || changes.some((slugs) => slugs === null)) {
      this.entries.clear();
    } else {
      for (const slugs of changes) for (const slug of slugs!) this.entries.delete(slug);
    }
    this.entriesEpoch = this.feed.epoch;
  }
}
