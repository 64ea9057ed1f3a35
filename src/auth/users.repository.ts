import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { Role } from './actor.js';
import { UserEntity, type UserKind } from './user.entity.js';

export type NewUser = Pick<UserEntity, 'email' | 'displayName' | 'passwordHash' | 'role'> & { kind?: UserKind };

// Any fixed number: changes that could remove the last admin take turns.
const ADMIN_CHANGE_LOCK = 7_104_263;

/** All SQL over users. Methods that take `db` run inside the caller's transaction when given its manager. */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A transaction holding the admin-change lock, so that two requests cannot both remove "the other" admin. */
  adminChange<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_CHANGE_LOCK]);
      return work(tx);
    });
  }

  findById(id: string, db: EntityManager = this.dataSource.manager): Promise<UserEntity | null> {
    return db.findOne(UserEntity, { where: { id } });
  }

  findByEmail(email: string, db: EntityManager = this.dataSource.manager): Promise<UserEntity | null> {
    return db.findOne(UserEntity, { where: { email } });
  }

  /** The only read that includes the password hash. */
  findWithPasswordHash(email: string): Promise<UserEntity | null> {
    return this.dataSource.manager
      .createQueryBuilder(UserEntity, 'u')
      .addSelect('u.passwordHash')
      .where('u.email = :email', { email })
      .getOne();
  }

  list(limit: number, offset: number): Promise<[UserEntity[], number]> {
    return this.dataSource.manager.findAndCount(UserEntity, { order: { createdAt: 'ASC', email: 'ASC' }, take: limit, skip: offset });
  }

  /** People only: a service account cannot log in to the admin screens, so it never counts as "an admin left". */
  countEnabledAdmins(db: EntityManager = this.dataSource.manager): Promise<number> {
    return db.count(UserEntity, { where: { role: 'admin', disabledAt: IsNull(), kind: 'person' } });
  }

  /** Service accounts by handle. */
  listByKind(kind: UserKind): Promise<UserEntity[]> {
    return this.dataSource.manager.find(UserEntity, { where: { kind }, order: { email: 'ASC' } });
  }

  async insert(user: NewUser, db: EntityManager): Promise<UserEntity> {
    const result = await db.insert(UserEntity, user);
    const id = (result.identifiers[0] as { id: string }).id;
    return (await this.findById(id, db))!;
  }

  async setRole(id: string, role: Role, db: EntityManager): Promise<void> {
    await db.update(UserEntity, { id }, { role, updatedAt: () => 'now()' });
  }

  async setDisabled(id: string, disabled: boolean, db: EntityManager): Promise<void> {
    await db.update(UserEntity, { id }, { disabledAt: disabled ? () => 'now()' : null, updatedAt: () => 'now()' });
  }

  async setPasswordHash(id: string, passwordHash: string, db: EntityManager): Promise<void> {
    await db.update(UserEntity, { id }, { passwordHash, updatedAt: () => 'now()' });
  }

  /**
   * The account's password hash and whether it is disabled, as last committed: waits for a change of the row in
   * flight (FOR SHARE) instead of reading the row from before it.
   */
  async credentialsOf(id: string): Promise<{ passwordHash: string | null; disabled: boolean } | null> {
    const rows: { password_hash: string | null; disabled: boolean }[] = await this.dataSource.query(
      'SELECT password_hash, disabled_at IS NOT NULL AS disabled FROM users WHERE id = $1 FOR SHARE',
      [id],
    );
    return rows[0] ? { passwordHash: rows[0].password_hash, disabled: rows[0].disabled } : null;
  }

  async touchLastLogin(id: string): Promise<void> {
    await this.dataSource.manager.update(UserEntity, { id }, { lastLoginAt: () => 'now()' });
  }
}
