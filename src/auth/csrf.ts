import { timingSafeEqual } from 'node:crypto';
import { csrfSync } from 'csrf-sync';
import type { NextFunction, Request, Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import type { RequestWithActor } from './current-actor.decorator.js';

/** The form field and the header that carry the token. */
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANONYMOUS_SESSION_MS = 2 * 60 * 60 * 1000;
// JSON APIs: /api and the MCP servers for agents (docs/mcp.md).
const API_PATH = /^\/(api\/|knowledge-mcp$|admin-mcp$)/;
// The synchronizer token lives in the session (req.session.csrfToken); csrf-sync makes and stores it.
const { generateToken, getTokenFromState } = csrfSync({ size: 32 });

/** This session's token, made on first use (a session is then stored, even for an anonymous visitor). */
export function csrfTokenFor(request: Request): string {
  // No session on requests that sent a Bearer token: they need no form token either.
  if (!request.session) return '';
  // A visitor's session (just a form token, before login) is kept for hours, not for KURATE_SESSION_DAYS.
  if (!request.session.userId && typeof getTokenFromState(request) !== 'string') request.session.cookie.maxAge = ANONYMOUS_SESSION_MS;
  return generateToken(request);
}

/** A fresh token, after login (the session id changed, so does the token). */
export function renewCsrfToken(request: Request): string {
  return generateToken(request, true);
}

/**
 * Every state-changing request must carry the session's token (form field `_csrf` or header `x-csrf-token`), except:
 * - requests authenticated by `Authorization: Bearer` (a browser never sends that on its own);
 * - /api and MCP requests without any session state (no cookie, hence no ambient credentials to abuse).
 * So forms always need it (login included), and JSON calls made with the session cookie need the header.
 */
export function verifyCsrf(request: RequestWithActor, _response: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(request.method) || request.actor?.via === 'token') return next();
  const stored = request.session ? getTokenFromState(request) : undefined;
  const hasSessionState = Boolean(request.session?.userId || stored);
  if (!hasSessionState && API_PATH.test(request.path)) return next();
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  const sent = typeof fromBody === 'string' ? fromBody : request.headers[CSRF_HEADER];
  if (body && typeof body === 'object') delete body[CSRF_FIELD];
  if (typeof sent === 'string' && typeof stored === 'string' && sameToken(sent, stored)) return next();
  next(new DomainException(DomainErrorCode.InvalidCsrfToken, 'The security token of this form is missing or out of date. Go back, reload the page and try again.'));
}

/** What every view may use: `csrfToken` (for logged-in users, and anyone who already has one) and `currentUser`. */
export function exposeToViews(request: RequestWithActor, response: Response, next: NextFunction): void {
  const actor = request.actor;
  if (request.session) {
    response.locals.csrfToken = actor?.via === 'session' ? csrfTokenFor(request) : (getTokenFromState(request) ?? undefined);
  }
  response.locals.currentUser = actor?.userId
    ? { name: actor.name, role: actor.role, isAdmin: actor.role === 'admin', isAuthor: actor.role === 'admin' || actor.role === 'author' }
    : null;
  next();
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
