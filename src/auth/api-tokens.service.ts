import { readDateOrTime } from '../common/date-input.js';
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
/** How often a token's "last used" time is written, at most (the repository's statement also holds to it). */
const TOUCH_INTERVAL_MS = 60_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The highest role a set of scopes allows: `admin` implies `write` (author) implies `read` (reader). */
export function scopeCeiling(scopes: readonly TokenScope[]): Role {
  return scopes.includes('admin') ? 'admin' : scopes.includes('write') ? 'author' : 'reader';
}

/** The scope that lets a token do all its owner's role may: reader → read, author → write, admin → admin. */
export function scopesForRole(role: Role): TokenScope[] {
  return [role === 'admin' ? 'admin' : role === 'author' ? 'write' : 'read'];
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
    // A token made to do less than its owner may (an admin's read token) must not mint others that outlive its
    // revocation: its owner creates tokens after logging in, or with a token of their full role.
    if (actor.tokenRestricted) {
      throw new DomainException(DomainErrorCode.Forbidden, `This token acts as ${withArticle(actor.role)}, less than its owner's role: it cannot create tokens. Log in, or use a token with your full role.`);
    }
    const scopes = TOKEN_SCOPES.filter((s) => (input.scopes ?? ['read']).includes(s));
    if (!roleAtLeast(actor.role, scopeCeiling(scopes))) {
      const who = actor.via === 'token' ? `This token acts as ${withArticle(actor.role)}: it` : withArticle(actor.role).replace(/^a/, 'A');
      throw new DomainException(DomainErrorCode.Forbidden, `${who} cannot create a token with the ${highestRoleScope(scopes)} scope.`);
    }
    return this.issue(actor.userId, { ...input, scopes }, origin, {});
  }

  /**
   * `kurate login`: a personal token for a user who just proved their password (LoginService). Its scope is what
   * their role may do unless they ask for less.
   */
  async createAtLogin(user: UserEntity, input: NewTokenInput, ip: string | null): Promise<{ token: string; entity: ApiTokenEntity }> {
    const scopes = TOKEN_SCOPES.filter((s) => (input.scopes ?? scopesForRole(user.role)).includes(s));
    if (!roleAtLeast(user.role, scopeCeiling(scopes))) {
      throw new DomainException(DomainErrorCode.Forbidden, `${withArticle(user.role).replace(/^a/, 'A')} cannot create a token with the ${highestRoleScope(scopes)} scope.`);
    }
    const actor: Actor = { userId: user.id, name: user.displayName, role: user.role, via: 'session' };
    return this.issue(user.id, { ...input, scopes }, { actor, ip }, { via: 'login' });
  }

  /** An admin makes a token for a service account: never above the account's role, and audited as the admin's act. */
  async createForServiceAccount(account: UserEntity, input: NewTokenInput, origin: RequestOrigin): Promise<{ token: string; entity: ApiTokenEntity }> {
    if (origin.actor.role !== 'admin') throw new DomainException(DomainErrorCode.Forbidden, 'Only an admin may create tokens for a service account.');
    if (account.kind !== 'service') throw new DomainException(DomainErrorCode.InvalidInput, `${account.email} is not a service account: people create their own tokens.`);
    if (account.disabledAt) throw new DomainException(DomainErrorCode.InvalidInput, `${account.email} is disabled: enable it first.`);
    const scopes = TOKEN_SCOPES.filter((s) => (input.scopes ?? scopesForRole(account.role)).includes(s));
    if (!roleAtLeast(account.role, scopeCeiling(scopes))) {
      throw new DomainException(DomainErrorCode.InvalidInput, `${account.email} is ${withArticle(account.role)}: its tokens cannot have the ${highestRoleScope(scopes)} scope.`);
    }
    return this.issue(account.id, { ...input, scopes }, origin, { serviceAccount: account.email });
  }

  /** Checks the expiry, makes the token, stores its hash and audits it, in one transaction. */
  private async issue(
    ownerId: string,
    input: NewTokenInput & { scopes: TokenScope[] },
    origin: RequestOrigin,
    details: Record<string, unknown>,
  ): Promise<{ token: string; entity: ApiTokenEntity }> {
    const { actor } = origin;
    if (input.scopes.includes('metrics') && actor.role !== 'admin') {
      throw new DomainException(DomainErrorCode.Forbidden, 'Only an admin may grant the metrics scope (it reads the operational metrics at /metrics).');
    }
    const expiresAt = input.expiresAt ? readDateOrTime(input.expiresAt) : null;
    // Only the forms DATE_OR_TIME names are read (src/common/date-input.ts); a caller that skipped the DTO is told so.
    if (input.expiresAt && !expiresAt) {
      throw new DomainException(DomainErrorCode.InvalidInput, `expiresAt "${input.expiresAt}" is not a date Kurate reads: write it as 2027-01-31 or 2027-01-31T18:00:00Z.`);
    }
    if (expiresAt && expiresAt <= new Date()) {
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
    const { scopes } = input;
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const entity = await this.tokens.transaction(async (tx) => {
      const created = await this.tokens.insert(
        { userId: ownerId, name: input.name.trim(), prefix: token.slice(0, SHOWN_PREFIX_LENGTH), tokenHash: hashToken(token), scopes, expiresAt },
        tx,
      );
      await this.audit.record(actor, 'token.create', tokenTarget(created), { tokenId: created.id, scopes, expiresAt, ...details }, origin.ip, tx);
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
      // A token made to do less than its owner may revokes itself (`kurate logout`), never the owner's other tokens.
      if (actor.tokenRestricted && token.id !== actor.tokenId) {
        throw new DomainException(DomainErrorCode.Forbidden, `This token acts as ${withArticle(actor.role ?? 'reader')}, less than its owner's role: it can revoke only itself. Log in, or use a token with your full role.`);
      }
      if (token.revokedAt) return token;
      // Two revocations at once: the second finds it revoked and changes nothing (neither the time nor the audit log).
      if (!(await this.tokens.revoke(id, tx))) return (await this.tokens.findById(id, tx))!;
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
    // "Last used" is kept to the minute: a token used within the minute it was read at costs no statement.
    if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) await this.tokens.touch(found.id);
    const role = lowerRole(user.role, scopeCeiling(found.scopes));
    return {
      userId: user.id,
      name: user.displayName,
      role,
      via: 'token',
      tokenId: found.id,
      tokenExpiresAt: found.expiresAt,
      tokenScopes: found.scopes,
      tokenRestricted: role !== user.role,
    };
  }
}

/** The scope that decides the role, for messages: `metrics` alone acts as `read`. */
function highestRoleScope(scopes: readonly TokenScope[]): TokenScope {
  return scopes.filter((s) => s !== 'metrics').at(-1) ?? 'read';
}

function tokenTarget(token: ApiTokenEntity): string {
  return `token:${token.prefix}`;
}

function withArticle(role: string): string {
  return /^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`;
}
