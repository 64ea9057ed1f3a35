import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import type { Actor, Role } from './actor.js';
import { PasswordHasher } from './password-hasher.js';
import { SessionsRepository } from './sessions.repository.js';
import type { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

export interface NewUserInput {
  email: string;
  displayName: string;
  password: string;
  role: Role;
}

export interface NewServiceAccountInput {
  /** Its name, e.g. `ci-bot`: stored (lower-cased) where a person's email is. */
  handle: string;
  role: Role;
  /** What it is for; shown as its display name (default: the handle). */
  description?: string;
}

/** Lower-case, no '@': a handle can never be a person's email. */
export const SERVICE_ACCOUNT_HANDLE = /^[a-z0-9][a-z0-9._-]{1,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where an admin action came from, for the audit log. */
export interface RequestOrigin {
  actor: Actor;
  ip: string | null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function userTarget(user: Pick<UserEntity, 'email'>): string {
  return `user:${user.email}`;
}

/** Accounts: create, change role, disable, reset password. Every change is audited in the same transaction. */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditService,
  ) {}

  async get(id: string): Promise<UserEntity> {
    const user = await this.users.findById(id);
    if (!user) throw new DomainException(DomainErrorCode.NotFound, 'There is no user with this id.');
    return user;
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  list(limit: number, offset: number): Promise<[UserEntity[], number]> {
    return this.users.list(limit, offset);
  }

  async hasEnabledAdmin(db?: EntityManager): Promise<boolean> {
    return (await this.users.countEnabledAdmins(db)) > 0;
  }

  async create(input: NewUserInput, origin: RequestOrigin, details: Record<string, unknown> = {}): Promise<UserEntity> {
    const passwordHash = await this.hasher.hash(input.password);
    return this.users.adminChange((tx) => this.insert(input, passwordHash, origin, details, tx));
  }

  /** Creates the user inside the caller's transaction (the setup flow holds the admin-change lock already). */
  async insert(input: NewUserInput, passwordHash: string, origin: RequestOrigin, details: Record<string, unknown>, tx: EntityManager): Promise<UserEntity> {
    const email = normalizeEmail(input.email);
    if (await this.users.findByEmail(email, tx)) {
      throw new DomainException(DomainErrorCode.EmailTaken, `A user with the email ${email} already exists.`);
    }
    const user = await this.users.insert({ email, displayName: input.displayName.trim(), passwordHash, role: input.role }, tx);
    await this.audit.record(origin.actor, 'user.create', userTarget(user), { userId: user.id, role: user.role, ...details }, origin.ip, tx);
    return user;
  }

  /** A hash for `insert`, computed before a transaction opens (hashing takes a while). */
  hashPassword(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  async setRole(id: string, role: Role, origin: RequestOrigin): Promise<UserEntity> {
    return this.users.adminChange(async (tx) => {
      const user = await this.existing(id, tx);
      if (user.role === role) return user;
      if (user.kind === 'person' && user.role === 'admin' && user.disabledAt === null) await this.refuseLastAdmin(tx, `change the role of ${user.email}`);
      await this.users.setRole(id, role, tx);
      await this.audit.record(origin.actor, 'user.role', userTarget(user), { userId: id, from: user.role, to: role }, origin.ip, tx);
      return (await this.users.findById(id, tx))!;
    });
  }

  /** Disables the account and ends its sessions; its API tokens are refused from the next request on. */
  async setDisabled(id: string, disabled: boolean, origin: RequestOrigin): Promise<UserEntity> {
    return this.users.adminChange(async (tx) => {
      const user = await this.existing(id, tx);
      if ((user.disabledAt !== null) === disabled) return user;
      if (disabled && user.kind === 'person' && user.role === 'admin') await this.refuseLastAdmin(tx, `disable ${user.email}`);
      await this.users.setDisabled(id, disabled, tx);
      const endedSessions = disabled ? await this.sessions.deleteByUser(id, tx) : 0;
      await this.audit.record(origin.actor, disabled ? 'user.disable' : 'user.enable', userTarget(user), { userId: id, ...(disabled ? { endedSessions } : {}) }, origin.ip, tx);
      return (await this.users.findById(id, tx))!;
    });
  }

  /** Sets a new password and ends the user's sessions (whoever had them must log in with the new one). */
  async resetPassword(id: string, password: string, origin: RequestOrigin): Promise<UserEntity> {
    const passwordHash = await this.hasher.hash(password);
    return this.users.adminChange(async (tx) => {
      const user = await this.existing(id, tx);
      if (user.kind === 'service') {
        throw new DomainException(DomainErrorCode.InvalidInput, `${user.email} is a service account: it has no password and acts only through its API tokens.`);
      }
      await this.users.setPasswordHash(id, passwordHash, tx);
      const endedSessions = await this.sessions.deleteByUser(id, tx);
      await this.audit.record(origin.actor, 'user.password_reset', userTarget(user), { userId: id, endedSessions }, origin.ip, tx);
      return user;
    });
  }

  /**
   * A service account: a user that never logs in with a password and acts only through the tokens an admin makes
   * for it. Its handle (lower-case letters, digits, '.', '_', '-') is unique among all accounts.
   */
  async createServiceAccount(input: NewServiceAccountInput, origin: RequestOrigin): Promise<UserEntity> {
    const handle = input.handle.trim().toLowerCase();
    if (!SERVICE_ACCOUNT_HANDLE.test(handle)) {
      throw new DomainException(DomainErrorCode.InvalidInput, `name must be 2 to 64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit (got "${input.handle}").`);
    }
    return this.users.adminChange(async (tx) => {
      if (await this.users.findByEmail(handle, tx)) {
        throw new DomainException(DomainErrorCode.EmailTaken, `An account named ${handle} already exists.`);
      }
      const user = await this.users.insert({ email: handle, displayName: (input.description ?? '').trim() || handle, passwordHash: null, role: input.role, kind: 'service' }, tx);
      await this.audit.record(origin.actor, 'service_account.create', userTarget(user), { userId: user.id, role: user.role }, origin.ip, tx);
      return user;
    });
  }

  listServiceAccounts(): Promise<UserEntity[]> {
    return this.users.listByKind('service');
  }

  /** A service account by id or handle; NotFound for anything else (a person included). */
  async getServiceAccount(ref: string): Promise<UserEntity> {
    const user = UUID.test(ref) ? await this.users.findById(ref) : await this.users.findByEmail(ref.trim().toLowerCase());
    if (!user || user.kind !== 'service') throw new DomainException(DomainErrorCode.NotFound, `There is no service account ${ref}.`);
    return user;
  }

  private async existing(id: string, tx: EntityManager): Promise<UserEntity> {
    const user = await this.users.findById(id, tx);
    if (!user) throw new DomainException(DomainErrorCode.NotFound, 'There is no user with this id.');
    return user;
  }

  private async refuseLastAdmin(tx: EntityManager, what: string): Promise<void> {
    if ((await this.users.countEnabledAdmins(tx)) <= 1) {
      throw new DomainException(DomainErrorCode.LastAdmin, `Cannot ${what}: the wiki needs at least one enabled admin. Make someone else an admin first.`);
    }
  }
}
