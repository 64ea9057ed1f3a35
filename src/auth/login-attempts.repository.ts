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

  /**
   * Counts a try as a failure before its password is checked (concurrent tries all count), locking from the policy's
   * threshold on; `refused`: the account was locked already, and this try is neither counted nor checked (nor does it
   * make the lock longer). A right password takes its count back (clear, or undoFailure).
   */
  async reserveAttempt(email: string, policy: LockoutPolicy): Promise<{ refused: boolean; failures: number; lockedUntil: Date | null }> {
    const next = `CASE WHEN a.last_failure_at < now() - make_interval(secs => $5::float8) THEN 1 ELSE a.failures + 1 END`;
    const lockedNow = `a.locked_until > now()`;
    // A counted try sets last_failure_at to now() (the statement's own time); a refused one leaves an earlier time.
    const rows: { failures: number; locked_until: Date | null; refused: boolean }[] = await this.dataSource.query(
      `INSERT INTO login_attempts AS a (email, failures, locked_until, last_failure_at)
       VALUES ($1, 1, CASE WHEN $2::int <= 1 THEN now() + make_interval(secs => $3::float8) END, now())
       ON CONFLICT (email) DO UPDATE SET
         failures = CASE WHEN ${lockedNow} THEN a.failures ELSE ${next} END,
         locked_until = CASE WHEN ${lockedNow} THEN a.locked_until WHEN ${next} >= $2::int
           THEN now() + make_interval(secs => least($4::float8, $3::float8 * power(2, ${next} - $2::int))) END,
         last_failure_at = CASE WHEN ${lockedNow} THEN a.last_failure_at ELSE now() END
       RETURNING a.failures, a.locked_until, a.last_failure_at <> now() AS refused`,
      [email, policy.maxAttempts, policy.baseDelaySeconds, policy.maxDelaySeconds, policy.forgetAfterSeconds],
    );
    return { refused: rows[0].refused, failures: rows[0].failures, lockedUntil: rows[0].locked_until };
  }

  /** Takes back one failure counted by reserveAttempt (a try that was no failure), and the lock it alone brought. */
  async undoFailure(email: string, policy: LockoutPolicy): Promise<void> {
    await this.dataSource.query(
      `UPDATE login_attempts SET failures = failures - 1, locked_until = CASE WHEN failures - 1 >= $2::int THEN locked_until END
        WHERE email = $1 AND failures > 0`,
      [email, policy.maxAttempts],
    );
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
