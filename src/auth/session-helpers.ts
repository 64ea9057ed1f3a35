import type { Request, Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { renewCsrfToken } from './csrf.js';
import { SESSION_COOKIE } from './session.middleware.js';
import type { UserEntity } from './user.entity.js';

/** The login and setup forms work with the session cookie; a request that sent a Bearer token has no session. */
export function requireSession(request: Request): void {
  if (!request.session) {
    throw new DomainException(DomainErrorCode.InvalidInput, 'This form logs a browser in; API clients send their token with every request instead.');
  }
}

/** Logs the user in on a new session id (the old id, which someone may have planted, stops meaning anything). */
export async function startSession(request: Request, user: Pick<UserEntity, 'id'>): Promise<void> {
  await new Promise<void>((resolve, reject) => request.session.regenerate((error) => (error ? reject(error) : resolve())));
  request.session.userId = user.id;
  request.session.authenticatedAt = Date.now();
  renewCsrfToken(request);
  await new Promise<void>((resolve, reject) => request.session.save((error) => (error ? reject(error) : resolve())));
}

/** Undoes startSession: the browser keeps a new session of its own, logged in as nobody (the login form needs one). */
export async function dropLogin(request: Request): Promise<void> {
  await new Promise<void>((resolve, reject) => request.session.regenerate((error) => (error ? reject(error) : resolve())));
  renewCsrfToken(request);
}

export async function endSession(request: Request, response: Response): Promise<void> {
  if (request.session) {
    await new Promise<void>((resolve, reject) => request.session.destroy((error) => (error ? reject(error) : resolve())));
  }
  response.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax' });
}

/** Where to go after logging in: only a path on this site (never `//host` or `/\host`), never back to /login. */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\u0000-\u001f\\]/.test(value)) return '/';
  if (/^\/(login|logout|setup)(\/|\?|$)/.test(value)) return '/';
  return value;
}
