import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from './actor.js';

export const USER_KINDS = ['person', 'service'] as const;
/** A person logs in with a password; a service account never does and acts only through its API tokens. */
export type UserKind = (typeof USER_KINDS)[number];

@Entity('users')
@Index('users_email_key', ['email'], { unique: true })
@Index('users_role_idx', ['role'])
@Check('users_role_check', `role IN ('reader', 'author', 'admin')`)
@Check('users_email_lower_check', `email = lower(email)`)
@Check('users_kind_check', `kind IN ('person', 'service')`)
@Check('users_password_kind_check', `(kind = 'service') = (password_hash IS NULL)`)
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lower-cased: emails are unique case-insensitively. A service account's handle (no '@') stands here. */
  @Column('text')
  email: string;

  @Column('text', { name: 'display_name' })
  displayName: string;

  /** argon2id, in the PHC string format; null for a service account, which has no password. */
  @Column('text', { name: 'password_hash', select: false, nullable: true })
  passwordHash: string | null;

  @Column('text', { default: 'person' })
  kind: UserKind;

  @Column('text')
  role: Role;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;

  @Column('timestamptz', { name: 'last_login_at', nullable: true })
  lastLoginAt: Date | null;
}
