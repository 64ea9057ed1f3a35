import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Failed logins per (lower-cased) email, whether or not an account has it. */
@Entity('login_attempts')
export class LoginAttemptEntity {
  @PrimaryColumn('text')
  email: string;

  @Column('integer', { default: 0 })
  failures: number;

  @Column('timestamptz', { name: 'locked_until', nullable: true })
  lockedUntil: Date | null;

  @Column('timestamptz', { name: 'last_failure_at', default: () => 'now()' })
  lastFailureAt: Date;
}
