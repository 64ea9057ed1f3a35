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

  /** The password hash each user this service returned was checked against, for `confirm`. */
  private readonly checkedAgainst = new WeakMap<UserEntity, string>();

  /**
   * The user, or a DomainException: InvalidCredentials (the same for an unknown email and a wrong password, and
   * taking about as long: an unknown email is checked against a dummy hash), AccountLocked (with `retryAt`), or
   * Forbidden for a disabled account whose password was right.
   *
   * Each try is counted as a failure **before** its password is checked, and undone if it was right: concurrent
   * guesses cannot all be checked before the first of them is counted. Once the account has used up its attempts,
   * a try is refused without checking its password, whatever else is in flight.
   */
  async authenticate(emailInput: string, password: string): Promise<UserEntity> {
    const email = normalizeEmail(emailInput);
    const reserved = await this.attempts.reserveAttempt(email, this.policy);
    if (reserved.refused) throw locked(reserved.lockedUntil!);
    const user = await this.users.findWithPasswordHash(email);
    // A service account has no password: it is refused exactly as an unknown email is.
    const ok = user?.passwordHash ? await this.hasher.verify(user.passwordHash, password) : await this.hasher.verifyDummy(password);
    if (!user || !ok) {
      // Counted already: this failure may be the one that locks the account.
      if (reserved.lockedUntil && reserved.lockedUntil > new Date()) throw locked(reserved.lockedUntil);
      throw new DomainException(DomainErrorCode.InvalidCredentials, WRONG_CREDENTIALS);
    }
    if (user.disabledAt) {
      // The right password of a disabled account is no failure: its count goes back as it was.
      await this.attempts.undoFailure(email, this.policy);
      throw disabled();
    }
    await this.attempts.clear(email);
    await this.users.touchLastLogin(user.id);
    const { passwordHash, ...withoutHash } = user;
    const authenticated = withoutHash as UserEntity;
    this.checkedAgainst.set(authenticated, passwordHash!);
    return authenticated;
  }

  /**
   * After a session (or token) was made for a user `authenticate` returned: throws if, meanwhile, the account's
   * password changed or it was disabled. A reset or a disable that committed while the password was checked ended
   * the sessions that existed then, not the one made after; this read waits for such a change in flight (the
   * account's row, FOR SHARE), and a change that comes after it finds the new session and ends it.
   */
  async confirm(user: UserEntity): Promise<void> {
    const hash = this.checkedAgainst.get(user);
    if (hash === undefined) throw new Error('LoginService.confirm: not a user that authenticate returned');
    const now = await this.users.credentialsOf(user.id);
    if (!now || now.passwordHash !== hash) throw new DomainException(DomainErrorCode.InvalidCredentials, WRONG_CREDENTIALS);
    if (now.disabled) throw disabled();
  }
}

function disabled(): DomainException {
  return new DomainException(DomainErrorCode.Forbidden, 'This account is disabled. Ask an admin to enable it.');
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
