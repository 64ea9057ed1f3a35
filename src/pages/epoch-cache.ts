import type { PageChangeFeed } from './page-change-feed.js';

/**
 * Values by key, kept for as long as no page changes anywhere (any write can resolve a link, add a backlink or move
 * a slug). Reads that began before a change are never stored. Bounded; the oldest entry goes first.
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
    this.forgetIfStale();
    return this.feed.reliable ? this.entries.get(key) : undefined;
  }

  set(key: string, value: T, epochAtBegin: number): void {
    this.forgetIfStale();
    if (!this.feed.reliable || epochAtBegin !== this.entriesEpoch) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  private forgetIfStale(): void {
    if (this.entriesEpoch === this.feed.epoch) return;
    this.entries.clear();
    this.entriesEpoch = this.feed.epoch;
  }
}
