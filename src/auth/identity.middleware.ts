import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { ANONYMOUS } from './actor.js';
import { ApiTokensService } from './api-tokens.service.js';
import type { RequestWithActor } from './current-actor.decorator.js';
import { TypeOrmSessionStore } from './session.store.js';
import { UsersRepository } from './users.repository.js';

/**
 * Sets `request.actor` from an `Authorization: Bearer` token (then the session cookie is not even read) or from the
 * session cookie; otherwise the request is anonymous. A session whose user is gone or disabled is ended here, on its
 * next request. A bad token is a 401 on any route: a script should hear that its token stopped working.
 */
@Injectable()
export class IdentityMiddleware implements NestMiddleware {
  constructor(
    private readonly tokens: ApiTokensService,
    private readonly users: UsersRepository,
    private readonly sessions: TypeOrmSessionStore,
  ) {}

  async use(request: RequestWithActor, _response: Response, next: NextFunction): Promise<void> {
    try {
      const header = request.headers.authorization;
      if (header !== undefined) {
        const match = /^Bearer +(\S+) *$/i.exec(header);
        if (!match) throw new DomainException(DomainErrorCode.Unauthenticated, 'Send an API token as "Authorization: Bearer kur_…".');
        const actor = await this.tokens.authenticate(match[1]);
        if (!actor) throw new DomainException(DomainErrorCode.Unauthenticated, 'The API token is invalid, expired or revoked, or its user is disabled.');
        request.actor = actor;
      } else if (request.session?.userId) {
        const userId = request.session.userId;
        // Read with the session in one statement, as fresh as a read of its own; else read now.
        const preloaded = this.sessions.takeUser(request.sessionID);
        const user = preloaded !== undefined && (preloaded === null || preloaded.id === userId)
          ? preloaded
          : await this.users.findById(userId).then((u) => (u ? { id: u.id, displayName: u.displayName, role: u.role, disabled: u.disabledAt !== null } : null));
        if (user && !user.disabled) {
          request.actor = { userId: user.id, name: user.displayName, role: user.role, via: 'session' };
        } else {
          await new Promise<void>((resolve, reject) => request.session.destroy((error) => (error ? reject(error) : resolve())));
          request.actor = ANONYMOUS;
        }
      } else {
        request.actor = ANONYMOUS;
      }
      next();
    } catch (error) {
      next(error);
    }
  }
}
