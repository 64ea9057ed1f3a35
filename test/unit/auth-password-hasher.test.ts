import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/auth/password-hasher.js';
import { loadConfig } from '../../src/config/kurate-config.js';

const hasher = (cost?: string) => new PasswordHasher(loadConfig(cost ? { KURATE_PASSWORD_HASH_COST: cost } : {}));

describe('PasswordHasher', () => {
  it('hashes with argon2id at the configured cost, and verifies only the right password', async () => {
    const cheap = hasher('m=1024,t=1,p=1');
    const hash = await cheap.hash('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
    expect(await cheap.verify(hash, 'correct horse battery')).toBe(true);
    expect(await cheap.verify(hash, 'correct horse battery!')).toBe(false);
  });

  it('hashes at the library defaults unless configured (64 MiB, t=3, p=4)', async () => {
    expect(await hasher().hash('correct horse battery')).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
  });

  it('verifies a hash made at another cost (each hash carries its own), and refuses a malformed one', async () => {
    const stronger = await hasher('m=2048,t=2,p=2').hash('correct horse battery');
    const cheap = hasher('m=1024,t=1,p=1');
    expect(await cheap.verify(stronger, 'correct horse battery')).toBe(true);
    expect(await cheap.verify('not a hash', 'correct horse battery')).toBe(false);
  });

  it('answers an unknown email with a dummy verification at the configured cost', async () => {
    const cheap = hasher('m=1024,t=1,p=1');
    await cheap.onModuleInit();
    expect(await cheap.verifyDummy('anything at all')).toBe(false);
  });
});
