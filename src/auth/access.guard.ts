import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { ACCESS_KEY, type AccessLevel } from './access.decorator.js';
import { ANONYMOUS, roleAtLeast, type Role } from './actor.js';
import type { RequestWithActor } from './current-actor.decorator.js';

const NEEDED_ROLE: Record<Exclude<AccessLevel, 'public' | 'metrics'>, Role> = { read: 'reader', user: 'reader', author: 'author', admin: 'admin' };
const ADMIN_PATH = /^\/(api\/)?admin(\/|$)/;

/**
 * The global guard: a route is closed unless it declares @Access(…). Anonymous where a login is needed → 401;
 * logged in but not enough → 403. Anything under /admin or /api/admin must declare `admin`.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: KurateConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return false;
    const access = this.reflector.getAllAndOverride<AccessLevel | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]);
    const request = context.switchToHttp().getRequest<RequestWithActor>();
    if (!access || (ADMIN_PATH.test(request.path) && access !== 'admin')) {
      throw new DomainException(DomainErrorCode.Forbidden, 'This route is closed: it does not declare who may use it.');
    }
    if (access === 'public') return true;
    if (access === 'read' && this.config.auth.publicRead) return true;
    const actor = request.actor ?? ANONYMOUS;
    if (!actor.userId) throw new DomainException(DomainErrorCode.Unauthenticated, 'Log in to continue.');
    if (access === 'metrics') {
      if (actor.role === 'admin' || actor.tokenScopes?.includes('metrics')) return true;
      throw new DomainException(DomainErrorCode.Forbidden, 'This needs the admin role, or a token with the metrics scope.');
    }
    const needed = NEEDED_ROLE[access];
    if (!roleAtLeast(actor.role, needed)) {
      const why = actor.via === 'token' ? `This needs the ${needed} role, and this token (or its scopes) does not grant it.` : `This needs the ${needed} role.`;
      throw new DomainException(DomainErrorCode.Forbidden, why);
    }
    return true;
  }
}
