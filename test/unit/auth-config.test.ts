import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';

describe('configuration of accounts and sessions', () => {
  it('defaults: public reading, no first admin, a generated session secret, 14-day sessions, 5 attempts, argon2id at 64 MiB, t=3, p=4', () => {
    expect(loadConfig({}).auth).toEqual({
      publicRead: true, initialAdmin: null, sessionSecret: null, sessionDays: 14, loginMaxAttempts: 5,
      passwordHash: { memoryCost: 65536, timeCost: 3, parallelism: 4 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      KURATE_PUBLIC_READ: 'false',
      KURATE_ADMIN_EMAIL: 'root@example.org',
      KURATE_ADMIN_PASSWORD: 'twelve chars!',
      KURATE_SESSION_SECRET: 'x'.repeat(32),
      KURATE_SESSION_DAYS: '30',
      KURATE_LOGIN_MAX_ATTEMPTS: '10',
      KURATE_PASSWORD_HASH_COST: 'm=19456,p=1,t=2',
    });
    expect(config.auth).toEqual({
      publicRead: false,
      initialAdmin: { email: 'root@example.org', password: 'twelve chars!' },
      sessionSecret: 'x'.repeat(32),
      sessionDays: 30,
      loginMaxAttempts: 10,
      passwordHash: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
    });
    expect(loadConfig({ KURATE_PUBLIC_READ: '1' }).auth.publicRead).toBe(true);
  });

  it.each([
    [{ KURATE_PUBLIC_READ: 'sometimes' }, /KURATE_PUBLIC_READ must be true or false/],
    [{ KURATE_ADMIN_EMAIL: 'root', KURATE_ADMIN_PASSWORD: 'twelve chars!' }, /KURATE_ADMIN_EMAIL must be an email address/],
    [{ KURATE_ADMIN_EMAIL: 'root@example.org' }, /KURATE_ADMIN_EMAIL and KURATE_ADMIN_PASSWORD must be set together/],
    [{ KURATE_ADMIN_PASSWORD: 'twelve chars!' }, /KURATE_ADMIN_EMAIL and KURATE_ADMIN_PASSWORD must be set together/],
    [{ KURATE_SESSION_DAYS: '0' }, /KURATE_SESSION_DAYS must not be less than 1/],
    [{ KURATE_SESSION_DAYS: 'two weeks' }, /KURATE_SESSION_DAYS must be a whole number of days/],
    [{ KURATE_LOGIN_MAX_ATTEMPTS: '0' }, /KURATE_LOGIN_MAX_ATTEMPTS must not be less than 1/],
    [{ KURATE_PASSWORD_HASH_COST: '64MiB' }, /KURATE_PASSWORD_HASH_COST must look like m=65536,t=3,p=4/],
    [{ KURATE_PASSWORD_HASH_COST: 'm=65536,m=3,p=4' }, /KURATE_PASSWORD_HASH_COST must look like m=65536,t=3,p=4/],
    [{ KURATE_PASSWORD_HASH_COST: 'm=65536,t=0,p=4' }, /KURATE_PASSWORD_HASH_COST needs t ≥ 1, p ≥ 1 and m ≥ 8 × p KiB/],
    [{ KURATE_PASSWORD_HASH_COST: 'm=16,t=1,p=4' }, /KURATE_PASSWORD_HASH_COST needs t ≥ 1, p ≥ 1 and m ≥ 8 × p KiB/],
  ])('refuses %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses a short admin password or session secret without repeating the secret', () => {
    const shortPassword = () => loadConfig({ KURATE_ADMIN_EMAIL: 'root@example.org', KURATE_ADMIN_PASSWORD: 'hunter2' });
    expect(shortPassword).toThrow(/KURATE_ADMIN_PASSWORD must be at least 12 characters long \(value not shown: it is a secret\)/);
    expect(shortPassword).not.toThrow(/hunter2/);
    const shortSecret = () => loadConfig({ KURATE_SESSION_SECRET: 'tooshort-secret' });
    expect(shortSecret).toThrow(/KURATE_SESSION_SECRET must be at least 32 characters long/);
    expect(shortSecret).not.toThrow(/tooshort-secret/);
  });
});
