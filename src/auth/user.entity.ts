import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from './actor.js';

@Entity('users')
@Index('users_email_key', ['email'], { unique: true })
@Index('users_role_idx', ['role'])
@Check('users_role_check', `role IN ('reader', 'author', 'admin')`)
@Check('users_email_lower_check', `email = lower(email)`)
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lower-cased: emails are unique case-insensitively. */
  @Column('text')
  email: string;

  @Column('text', { name: 'display_name' })
  displayName: string;

  /** argon2id, in the PHC string format. */
  @Column('text', { name: 'password_hash', select: false })
  passwordHash: string;

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
