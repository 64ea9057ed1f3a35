import session, { type SessionData } from 'express-session';
import { LRUCache } from 'lru-cache';
import type { ChannelListener, DatabaseNotifications } from '../db/database-notifications.js';
import { SessionsRepository, type SessionUser } from './sessions.repository.js';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    /** When the user logged in (ms since epoch). */
    authenticatedAt?: number;
  }
}

type Callback<T = void> = (error?: unknown, value?: T) => void;

/** Migration 0027's triggers NOTIFY here when a session is updated or ended, or its user changes. */
export const SESSIONS_CHANNEL = 'kurate_sessions';
/** Sessions kept per process (the least recently used go first). */
const KEPT_SESSIONS = 10_000;

interface KeptSession {
  /** The session's data as JSON: each request gets its own copy to change. */
  json: string;
  user: SessionUser | null;
  expiresAt: number;
}

/**
 * express-session's store, in PostgreSQL through TypeORM's own pool (never a second connection: the embedded
 * database has exactly one). Several app processes share the sessions, and a restart logs nobody out.
 * No `touch`: a session lasts KURATE_SESSION_DAYS from login, like its cookie, without a write per request.
 *
 * A session read is kept in the process with its user, so that a logged-in reader's next request needs no
 * database read (it was a round trip per page view for a row that changes at login, logout and little else). The
 * kept copy is exact: every change to a session or to its user's name, role or disabled state NOTIFYs every process
 * (migration 0027), each request first hears every notification committed before it (`caughtUp`), and nothing is
 * kept while notifications cannot be heard.
 */
export class TypeOrmSessionStore extends session.Store implements ChannelListener {
  /** Users read with their session by `get`, until the identity middleware of the same request takes them. */
  private readonly usersRead = new Map<string, SessionUser | null>();
  private readonly kept = new LRUCache<string, KeptSession>({ max: KEPT_SESSIONS });
  /** Bumped by every change heard or made: a read that overlapped one is not kept (it may hold the old state). */
  private generation = 0;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly fallbackLifetimeMs: number,
    private readonly notifications: DatabaseNotifications,
  ) {
    super();
  }

  /** A notification of migration 0027's triggers: forget that session, that user's sessions, or all (`*`). */
  notified(payload: string): void {
    this.generation++;
    if (payload.startsWith('s:')) this.kept.delete(payload.slice(2));
    else if (payload.startsWith('u:')) {
      const userId = payload.slice(2);
      const theirs = [...this.kept.entries()].filter(([, entry]) => entry.user?.id === userId).map(([sid]) => sid);
      for (const sid of theirs) this.kept.delete(sid);
    } else this.kept.clear();
  }

  reset(): void {
    this.generation++;
    this.kept.clear();
  }

  override get(sid: string, callback: Callback<SessionData | null>): void {
    this.notifications.caughtUp().then(() => this.read(sid)).then(
      (found) => {
        if (found) {
          // Taken by the same request's next middleware; bounded should a request end between the two.
          if (this.usersRead.size >= 10_000) this.usersRead.clear();
          this.usersRead.set(sid, found.user);
        }
        callback(null, found ? (JSON.parse(found.json) as SessionData) : null);
      },
      (error) => callback(error),
    );
  }

  /** The session and its user: as kept, when this process may trust what it keeps; else read (and kept). */
  private async read(sid: string): Promise<KeptSession | null> {
    const trusted = this.notifications.listening;
    const hit = trusted ? this.kept.get(sid) : undefined;
    if (hit && hit.expiresAt > Date.now()) return hit;
    const generation = this.generation;
    const found = await this.sessions.findLiveWithUser(sid);
    if (!found) return null;
    const entry = { json: JSON.stringify(found.data), user: found.user, expiresAt: found.expiresAt.getTime() };
    if (trusted && this.notifications.listening && generation === this.generation) this.kept.set(sid, entry);
    return entry;
  }

  /**
   * The user `get` read with this session just now (null: none), once; undefined when it was not read here (e.g. a
   * concurrent request of the same session took it first): then read the user yourself.
   */
  takeUser(sid: string): SessionUser | null | undefined {
    const user = this.usersRead.get(sid);
    this.usersRead.delete(sid);
    return user;
  }

  override set(sid: string, data: SessionData, callback?: Callback): void {
    const expires = data.cookie?.expires ? new Date(data.cookie.expires) : new Date(Date.now() + this.fallbackLifetimeMs);
    const plain = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
    this.forget(sid);
    this.sessions.upsert(sid, data.userId ?? null, plain, expires).then(
      () => {
        this.forget(sid);
        callback?.();
      },
      (error) => callback?.(error),
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    this.forget(sid);
    this.sessions.delete(sid).then(
      () => {
        this.forget(sid);
        callback?.();
      },
      (error) => callback?.(error),
    );
  }

  /** This process changes the session: its kept copy goes, and no read overlapping the change is kept. */
  private forget(sid: string): void {
    this.generation++;
    this.kept.delete(sid);
  }
}
