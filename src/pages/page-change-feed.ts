import { randomUUID } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { DatabaseNotifications } from '../db/database-notifications.js';

const CHANNEL = 'kurate_page_changes';
/** Changes remembered for caches that catch up on them; a cache further behind forgets everything. */
const LOG_LIMIT = 1_000;

/** The slugs of the pages one write changed for readers, or null: anything may have changed. */
export type ChangedPages = ReadonlySet<string> | null;

/**
 * Where and as whom a write announces itself: NOTIFY `channel` with a JSON payload `{"by": sender, "pages"?: [slugs]}`
 * (no `pages`: anything may have changed). A process ignores its own announcements: it forgot at its commit.
 */
export interface Announcement {
  channel: string;
  sender: string;
}

/**
 * Tells every app process that some page changed, so caches of rendered pages stay exact: a write bumps the local
 * epoch after its commit and NOTIFYs the others (NOTIFY is delivered on commit), naming the pages it changed when it
 * knows them (a save that keeps the page's title and names changes only that page and the pages it links to), so
 * that caches forget only those. On the embedded database there is
 * one process, so the local bump is all it takes. While the LISTEN connection (DatabaseNotifications, shared with the
 * other caches) is down, caching is switched off.
 */
@Injectable()
export class PageChangeFeed implements OnModuleInit {
  private currentEpoch = 0;
  /** The last changes, oldest first: `log[i]` made the epoch `logStart + i + 1`. */
  private readonly log: ChangedPages[] = [];
  private logStart = 0;
  private readonly sender = randomUUID();

  constructor(
    private readonly config: KurateConfig,
    private readonly notifications: DatabaseNotifications,
  ) {}

  /** Changes whenever any page changes; a cached rendering is valid only for the epoch it was read in. */
  get epoch(): number {
    return this.currentEpoch;
  }

  /** False while changes made by other processes could go unnoticed. */
  get reliable(): boolean {
    return this.config.database.kind === 'embedded' || this.notifications.listening;
  }

  /**
   * The channel for writes outside PagesService that announce "anything may have changed" with an empty payload (a
   * file uploaded); null on the embedded database.
   */
  get announceChannel(): string | null {
    return this.config.database.kind === 'postgres' ? CHANNEL : null;
  }

  /**
   * How a page write notifies the other processes inside its transaction (they hear of it when it commits), or null
   * on the embedded database, where this process is the only one.
   */
  get announcement(): Announcement | null {
    return this.config.database.kind === 'postgres' ? { channel: CHANNEL, sender: this.sender } : null;
  }

  /**
   * Resolves once every page change committed before the call is reflected in `epoch`: on PostgreSQL, a round trip
   * on the LISTEN connection (a save on another process is then seen by the very next read here); on the embedded
   * database at once (this process made every change itself).
   */
  caughtUp(): Promise<void> {
    return this.config.database.kind === 'postgres' ? this.notifications.caughtUp() : Promise.resolve();
  }

  /** After the write committed: this process's caches forget the pages it names (by slug), or everything at once. */
  committed(slugs: readonly string[] | null = null): void {
    this.record(slugs ? new Set(slugs) : null);
  }

  /**
   * What changed after `epoch`, one entry per change, oldest first; null when that is no longer known (the cache
   * must forget everything).
   */
  changesSince(epoch: number): readonly ChangedPages[] | null {
    if (epoch < this.logStart) return null;
    return this.log.slice(epoch - this.logStart);
  }

  private record(slugs: ChangedPages): void {
    this.currentEpoch++;
    this.log.push(slugs);
    if (this.log.length > LOG_LIMIT) {
      this.log.shift();
      this.logStart++;
    }
  }

  async onModuleInit(): Promise<void> {
    if (this.config.database.kind !== 'postgres') return;
    await this.notifications.subscribe(CHANNEL, {
      notified: (payload) => {
        const heard = announced(payload);
        if (heard.sender !== this.sender) this.record(heard.pages);
      },
      // Anything may have changed while nobody was listening.
      reset: () => this.record(null),
    });
  }
}

/** A notification's payload: who sent it and the slugs it names (null, or a payload not understood: anything). */
function announced(payload: string | undefined): { sender: string | null; pages: ChangedPages } {
  try {
    const value = JSON.parse(payload ?? '') as { by?: unknown; pages?: unknown };
    const sender = typeof value.by === 'string' ? value.by : null;
    const pages = Array.isArray(value.pages) && value.pages.every((s) => typeof s === 'string') ? new Set(value.pages as string[]) : null;
    return { sender, pages };
  } catch {
    return { sender: null, pages: null };
  }
}
