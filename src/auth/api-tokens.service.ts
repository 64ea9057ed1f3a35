import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { lowerRole, roleAtLeast, type Actor, type Role } from './actor.js';
import { TOKEN_SCOPES, type ApiTokenEntity, type TokenScope } from './api-token.entity.js';
import { ApiTokensRepository } from './api-tokens.repository.js';
import type { UserEntity } from './user.entity.js';
import type { RequestOrigin } from './users.service.js';

/** Recognisable in logs and by secret scanners. */
export const TOKEN_PREFIX = 'kur_';
const SHOWN_PREFIX_LENGTH = TOKEN_PREFIX.length + 8;
const MAX_LIFETIME_MS = 10 * 366 * 86_400_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The highest role a set of scopes allows: `admin` implies `write` (author) implies `read` (reader). */
export function scopeCeiling(scopes: readonly TokenScope[]): Role {
  return scopes.includes('admin') ? 'admin' : scopes.includes('write') ? 'author' : 'reader';
}

export interface NewTokenInput {
  name: string;
  scopes?: TokenScope[];
  expiresAt?: string;
}

/** Personal API tokens: shown once, stored as a SHA-256 hash, acting as min(owner's role, the scopes' ceiling). */
@Injectable()
export class ApiTokensService {
  constructor(
    private readonly tokens: ApiTokensRepository,
    private readonly audit: AuditService,
  ) {}

  async create(input: NewTokenInput, origin: RequestOrigin): Promise<{ token: string; entity: ApiTokenEntity }> {
    const { actor } = origin;
    if (!actor.userId || !actor.role) throw new DomainException(DomainErrorCode.Unauthenticated, 'Log in to create an API token.');
    const scopes = TOKEN_SCOPES.filter((s) => (input.scopes ?? ['read']).includes(s));
    const ceiling = scopeCeiling(scopes);
    if (!roleAtLeast(actor.role, ceiling)) {
      const who = actor.via === 'token' ? `This token acts as ${withArticle(actor.role)}: it` : withArticle(actor.role).replace(/^a/, 'A');
      throw new DomainException(DomainErrorCode.Forbidden, `${who} cannot create a token with the ${scopes.at(-1)} scope.`);
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt <= new Date())) {
      throw new DomainException(DomainErrorCode.InvalidInput, 'expiresAt must be in the future.');
    }
    if (expiresAt && expiresAt.getTime() - Date.now() > MAX_LIFETIME_MS) {
      throw new DomainException(DomainErrorCode.InvalidInput, 'expiresAt must be within ten years.');
    }
    // A token that expires must not be able to extend its own life by minting another.
    const limit = actor.via === 'token' ? actor.tokenExpiresAt : null;
    if (limit && (!expiresAt || expiresAt > limit)) {
      throw new DomainException(
        DomainErrorCode.InvalidInput,
        `This token expires at ${limit.toISOString()}: a token it creates cannot outlive it. Set expiresAt on or before that time, or create the token after logging in.`,
      );
    }
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const entity = await this.tokens.transaction(async (tx) => {
      const created = await this.tokens.insert(
        { userId: actor.userId!, name: input.name.trim(), prefix: token.slice(0, SHOWN_PREFIX_LENGTH), tokenHash: hashToken(token), scopes, expiresAt },
        tx,
      );
      await this.audit.record(actor, 'token.create', tokenTarget(created), { tokenId: created.id, scopes, expiresAt }, origin.ip, tx);
      return created;
    });
    return { token, entity };
  }

  /** The caller's own tokens; an admin may ask for one user's (`userId`) or everyone's (`all`). */
  list(actor: Actor, options: { userId?: string; all?: boolean } = {}): Promise<ApiTokenEntity[]> {
    if (!actor.userId) throw new DomainException(DomainErrorCode.Unauthenticated, 'Log in to list API tokens.');
    const wantsOthers = options.all || (options.userId && options.userId !== actor.userId);
    if (wantsOthers && actor.role !== 'admin') throw new DomainException(DomainErrorCode.Forbidden, "Only an admin may list other users' tokens.");
    return this.tokens.list(options.all ? null : (options.userId ?? actor.userId));
  }

  /** Revokes one of the caller's tokens (an admin: anyone's). Another user's token is "not found" to a non-admin. */
  async revoke(id: string, origin: RequestOrigin): Promise<ApiTokenEntity> {
    const { actor } = origin;
    return this.tokens.transaction(async (tx) => {
      const token = await this.tokens.findById(id, tx);
      if (!token || (token.userId !== actor.userId && actor.role !== 'admin')) {
        throw new DomainException(DomainErrorCode.NotFound, 'There is no API token with this id.');
      }
      if (token.revokedAt) return token;
      await this.tokens.revoke(id, tx);
      await this.audit.record(actor, 'token.revoke', tokenTarget(token), { tokenId: id, owner: token.user?.email ?? token.userId }, origin.ip, tx);
      return (await this.tokens.findById(id, tx))!;
    });
  }

  /**
   * The actor a Bearer token stands for, or null when it is unknown, revoked, expired, or its owner is disabled.
   */
  async authenticate(token: string): Promise<Actor | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const found = await this.tokens.findByHash(hashToken(token));
    const user = found?.user as UserEntity | undefined;
    if (!found || !user || found.revokedAt || user.disabledAt) return null;
    if (found.expiresAt && found.expiresAt <= new Date()) return null;
    await this.tokens.touch(found.id);
    return { userId: user.id, name: user.displayName, role: lowerRole(user.role, scopeCeiling(found.scopes)), via: 'token', tokenId: found.id, tokenExpiresAt: found.expiresAt };
  }
}

function tokenTarget(token: ApiTokenEntity): string {
  return `token:${token.prefix}`;
}

function withArticle(role: string): string {
  return /^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`;
}
