import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { SYSTEM_ACTOR, type Actor } from './actor.js';
import { ServerSecretsRepository } from './server-secrets.repository.js';
import type { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';
import { UsersService, type NewUserInput } from './users.service.js';

const SETUP_CODE = 'setup_code';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * The first admin: from KURATE_ADMIN_EMAIL + KURATE_ADMIN_PASSWORD on first start, or else through /setup with a
 * one-time code printed in the server log. The code is kept in the database so that every app process prints and
 * accepts the same one; it is deleted once an admin exists, and /setup is gone from then on.
 */
@Injectable()
export class SetupService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Setup');

  constructor(
    private readonly config: KurateConfig,
    private readonly users: UsersService,
    private readonly usersRepository: UsersRepository,
    private readonly secrets: ServerSecretsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (await this.users.hasEnabledAdmin()) {
      await this.secrets.delete(SETUP_CODE);
      return;
    }
    const initial = this.config.auth.initialAdmin;
    if (initial) {
      try {
        const admin = await this.users.create(
          { email: initial.email, password: initial.password, displayName: 'Admin', role: 'admin' },
          { actor: SYSTEM_ACTOR, ip: null },
          { source: 'KURATE_ADMIN_EMAIL' },
        );
        this.logger.log(`Created the first admin ${admin.email} from KURATE_ADMIN_EMAIL.`);
        return;
      } catch (error) {
        if (!(error instanceof DomainException && error.code === DomainErrorCode.EmailTaken)) throw error;
        this.logger.warn(`KURATE_ADMIN_EMAIL (${initial.email}) belongs to an existing user who is not an admin; left unchanged. Use /setup instead.`);
      }
    }
    const code = await this.secrets.getOrCreate(SETUP_CODE, newSetupCode());
    this.logger.warn(`No admin exists yet. Open /setup in your browser and enter this setup code: ${code}`);
  }

  /** True while no enabled admin exists. */
  async isOpen(): Promise<boolean> {
    return !(await this.users.hasEnabledAdmin());
  }

  /** For tests and `bin/kurate` on the same host: the current code, or null once setup is done. */
  currentCode(): Promise<string | null> {
    return this.secrets.get(SETUP_CODE);
  }

  /** Creates the first admin when the code is right and no admin exists yet (checked under the admin-change lock). */
  async complete(code: string, input: Omit<NewUserInput, 'role'>, ip: string | null): Promise<UserEntity> {
    const passwordHash = await this.users.hashPassword(input.password);
    return this.usersRepository.adminChange(async (tx) => {
      if ((await this.usersRepository.countEnabledAdmins(tx)) > 0) throw setupGone();
      const expected = await this.secrets.get(SETUP_CODE, tx);
      if (!expected || !sameCode(code, expected)) {
        throw new DomainException(DomainErrorCode.Forbidden, 'The setup code is wrong. It is printed in the server log (look for "setup code").');
      }
      const origin: { actor: Actor; ip: string | null } = { actor: { ...SYSTEM_ACTOR, name: 'setup' }, ip };
      const admin = await this.users.insert({ ...input, role: 'admin' }, passwordHash, origin, { source: 'setup' }, tx);
      await this.secrets.delete(SETUP_CODE, tx);
      return admin;
    });
  }
}

export function setupGone(): DomainException {
  return new DomainException(DomainErrorCode.NotFound, 'There is no page at this address.');
}

function newSetupCode(): string {
  const bytes = randomBytes(20);
  const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** Case, spaces and dashes do not matter; the comparison takes the same time wherever the codes differ. */
function sameCode(given: string, expected: string): boolean {
  const normalize = (s: string) => createHash('sha256').update(s.toUpperCase().replace(/[\s-]+/g, '')).digest();
  return timingSafeEqual(normalize(given), normalize(expected));
}
