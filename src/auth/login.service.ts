import { Injectable } from '@nestjs/common';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { LoginAttemptsRepository, type LockoutPolicy } from './login-attempts.repository.js';
import { PasswordHasher } from './password-hasher.js';
import type { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';
import { normalizeEmail } from './users.service.js';

export const WRONG_CREDENTIALS = 'Email or password is wrong.';

/** Checks email + password, with a lockout per email that grows with each failure past the limit. */
@Injectable()
export class LoginService {
  readonly policy: LockoutPolicy;

  constructor(
    private readonly users: UsersRepository,
    private readonly attempts: LoginAttemptsRepository,
    private readonly hasher: PasswordHasher,
    config: KurateConfig,
  ) {
    this.policy = { maxAttempts: config.auth.loginMaxAttempts, baseDelaySeconds: 60, maxDelaySeconds: 3600, forgetAfterSeconds: 86_400 };
  }

  /**
   * The user, or a DomainException: InvalidCredentials (the same for an unknown email and a wrong password, and
   * taking about as long: an unknown email is checked against a dummy hash), AccountLocked (with `retryAt`), or
   * Forbidden for a disabled account whose password was right.
   */
  async authenticate(emailInput: string, password: string): Promise<UserEntity> {
    const email = normalizeEmail(emailInput);
    const attempt = await this.attempts.find(email);
    if (attempt?.lockedUntil && attempt.lockedUntil > new Date()) throw locked(attempt.lockedUntil);
    const user = await this.users.findWithPasswordHash(email);
    // A service account has no password: it is refused exactly as an unknown email is.
    const ok = user?.passwordHash ? await this.hasher.verify(user.passwordHash, password) : await this.hasher.verifyDummy(password);
    if (!user || !ok) {
      const { lockedUntil } = await this.attempts.recordFailure(email, this.policy);
      if (lockedUntil && lockedUntil > new Date()) throw locked(lockedUntil);
      throw new DomainException(DomainErrorCode.InvalidCredentials, WRONG_CREDENTIALS);
    }
    if (user.disabledAt) throw new DomainException(DomainErrorCode.Forbidden, 'This account is disabled. Ask an admin to enable it.');
    if (attempt) await this.attempts.clear(email);
    await this.users.touchLastLogin(user.id);
    const { passwordHash: _hash, ...withoutHash } = user;
    return withoutHash as UserEntity;
  }
}

function locked(until: Date): DomainException {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  const wait = seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  const at = until.toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
  return new DomainException(
    DomainErrorCode.AccountLocked,
    `Too many failed logins for this account. Try again after ${at} (in ${wait}).`,
    { retryAt: until.toISOString(), retryAfterSeconds: seconds },
  );
}
