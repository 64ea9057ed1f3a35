import session, { type SessionData } from 'express-session';
import { SessionsRepository, type SessionUser } from './sessions.repository.js';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    /** When the user logged in (ms since epoch). */
    authenticatedAt?: number;
  }
}

type Callback<T = void> = (error?: unknown, value?: T) => void;

/**
 * express-session's store, in PostgreSQL through TypeORM's own pool (never a second connection: the embedded
 * database has exactly one). Several app processes share the sessions, and a restart logs nobody out.
 * No `touch`: a session lasts KURATE_SESSION_DAYS from login, like its cookie, without a write per request.
 */
export class TypeOrmSessionStore extends session.Store {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly fallbackLifetimeMs: number,
  ) {
    super();
  }

  /** Users read with their session by `get`, until the identity middleware of the same request takes them. */
  private readonly usersRead = new Map<string, SessionUser | null>();

  override get(sid: string, callback: Callback<SessionData | null>): void {
    this.sessions.findLiveWithUser(sid).then(
      (found) => {
        if (found) {
          // Taken by the same request's next middleware; bounded should a request end between the two.
          if (this.usersRead.size >= 10_000) this.usersRead.clear();
          this.usersRead.set(sid, found.user);
        }
        callback(null, (found?.data as unknown as SessionData) ?? null);
      },
      (error) => callback(error),
    );
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
    this.sessions.upsert(sid, data.userId ?? null, plain, expires).then(
      () => callback?.(),
      (error) => callback?.(error),
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    this.sessions.delete(sid).then(
      () => callback?.(),
      (error) => callback?.(error),
    );
  }
}
