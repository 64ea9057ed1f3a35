import { randomBytes } from 'node:crypto';
import type { Provider } from '@nestjs/common';
import type { RequestHandler } from 'express';
import session from 'express-session';
import { KurateConfig } from '../config/kurate-config.js';
import { DatabaseNotifications } from '../db/database-notifications.js';
import { ServerSecretsRepository } from './server-secrets.repository.js';
import { SessionsRepository } from './sessions.repository.js';
import { SESSIONS_CHANNEL, TypeOrmSessionStore } from './session.store.js';

export const SESSION_COOKIE = 'kurate.sid';
export const SESSION_MIDDLEWARE = Symbol('SESSION_MIDDLEWARE');

/**
 * express-session over our PostgreSQL store. The secret is KURATE_SESSION_SECRET, or else one generated on first
 * start and kept in the database (server_secrets), so that restarts and other app processes accept the same cookies.
 */
/** The sessions' store (the identity middleware takes the user each session was read with from it). */
export const sessionStoreProvider: Provider = {
  provide: TypeOrmSessionStore,
  inject: [KurateConfig, SessionsRepository, DatabaseNotifications],
  useFactory: async (config: KurateConfig, sessions: SessionsRepository, notifications: DatabaseNotifications) => {
    const store = new TypeOrmSessionStore(sessions, config.auth.sessionDays * 86_400_000, notifications);
    await notifications.subscribe(SESSIONS_CHANNEL, store);
    return store;
  },
};

export const sessionMiddlewareProvider: Provider = {
  provide: SESSION_MIDDLEWARE,
  inject: [KurateConfig, TypeOrmSessionStore, ServerSecretsRepository],
  useFactory: async (config: KurateConfig, store: TypeOrmSessionStore, secrets: ServerSecretsRepository): Promise<RequestHandler> => {
    const secret = config.auth.sessionSecret ?? (await secrets.getOrCreate('session_secret', randomBytes(32).toString('hex')));
    const lifetimeMs = config.auth.sessionDays * 86_400_000;
    return session({
      name: SESSION_COOKIE,
      secret,
      store,
      resave: false,
      // No row for a visitor until something is stored (a CSRF token for the login form, a login).
      saveUninitialized: false,
      rolling: false,
      unset: 'destroy',
      // Secure when the request came over HTTPS (directly, or from a trusted proxy with X-Forwarded-Proto).
      cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: lifetimeMs, path: '/' },
    });
  },
};
