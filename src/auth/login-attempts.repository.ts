import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LoginAttemptEntity } from './login-attempt.entity.js';

export interface LockoutPolicy {
  /** Failures before the first lock. */
  maxAttempts: number;
  /** The first lock; each further failure doubles it. */
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** Failures older than this are forgotten. */
  forgetAfterSeconds: number;
}

/** All SQL over login_attempts. */
@Injectable()
export class LoginAttemptsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(email: string): Promise<LoginAttemptEntity | null> {
    return this.dataSource.manager.findOne(LoginAttemptEntity, { where: { email } });
  }

  /** Counts one failure atomically (concurrent attempts all count) and locks from the policy's threshold on. */
  async recordFailure(email: string, policy: LockoutPolicy): Promise<{ failures: number; lockedUntil: Date | null }> {
    const next = `CASE WHEN a.last_failure_at < now() - make_interval(secs => $5::float8) THEN 1 ELSE a.failures + 1 END`;
    const rows: { failures: number; locked_until: Date | null }[] = await this.dataSource.query(
      `INSERT INTO login_attempts AS a (email, failures, locked_until, last_failure_at)
       VALUES ($1, 1, CASE WHEN $2::int <= 1 THEN now() + make_interval(secs => $3::float8) END, now())
       ON CONFLICT (email) DO UPDATE SET
         failures = ${next},
         locked_until = CASE WHEN ${next} >= $2::int
           THEN now() + make_interval(secs => least($4::float8, $3::float8 * power(2, ${next} - $2::int))) END,
         last_failure_at = now()
       RETURNING a.failures, a.locked_until`,
      [email, policy.maxAttempts, policy.baseDelaySeconds, policy.maxDelaySeconds, policy.forgetAfterSeconds],
    );
    return { failures: rows[0].failures, lockedUntil: rows[0].locked_until };
  }

  async clear(email: string): Promise<void> {
    await this.dataSource.manager.delete(LoginAttemptEntity, { email });
  }

  async deleteStale(forgetAfterSeconds: number): Promise<number> {
    const result = await this.dataSource.query(
      `DELETE FROM login_attempts WHERE last_failure_at < now() - make_interval(secs => $1::float8) AND (locked_until IS NULL OR locked_until < now())`,
      [forgetAfterSeconds],
    );
    return (result as [unknown, number])[1] ?? 0;
  }
}
