import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { exposeToViews, verifyCsrf } from './csrf.js';
import { IdentityMiddleware } from './identity.middleware.js';
import { SESSION_MIDDLEWARE } from './session.middleware.js';

/**
 * Who is asking, in this order, before any route: the session (skipped when a Bearer token is sent), the identity
 * (request.actor), `formParsers` (bodies the CSRF token travels in that Express does not read, such as a multipart
 * upload form; they know who is asking), the CSRF check, and what views need (csrfToken, currentUser). Static assets
 * are served earlier and never touch a session.
 */
export function useAuthentication(app: NestExpressApplication, formParsers: RequestHandler[] = []): void {
  const sessionMiddleware = app.get<symbol, RequestHandler>(SESSION_MIDDLEWARE);
  const identity = app.get(IdentityMiddleware);
  app.use((request: Request, response: Response, next: NextFunction) =>
    request.headers.authorization !== undefined ? next() : sessionMiddleware(request, response, next),
  );
  app.use((request: Request, response: Response, next: NextFunction) => void identity.use(request, response, next));
  for (const parser of formParsers) app.use(parser);
  app.use(verifyCsrf);
  app.use(exposeToViews);
}
