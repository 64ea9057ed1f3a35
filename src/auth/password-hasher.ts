import { Injectable, type OnModuleInit } from '@nestjs/common';
import argon2 from 'argon2';
import { KurateConfig } from '../config/kurate-config.js';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/** argon2id, by default with the library's defaults (m=64 MiB, t=3, p=4); verification reads the cost from each hash. */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  /** Verified against when the email is unknown, so that both answers take about as long. */
  private dummyHash: string;

  constructor(private readonly config: KurateConfig) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.hash('not a password anyone has: the dummy for unknown emails');
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id, ...this.config.auth.passwordHash });
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Spends the time a real verification would, for an unknown email. */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(this.dummyHash, password);
    return false;
  }
}
