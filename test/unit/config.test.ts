import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';

describe('configuration', () => {
  it('defaults to the embedded database in ./data and port 3000', () => {
    const config = loadConfig({}, '/srv/wiki');
    expect(config.database).toEqual({ kind: 'embedded', dataDir: '/srv/wiki/data' });
    expect(config.http).toEqual({ host: '127.0.0.1', port: 3000, maxBodyBytes: 2 * 1024 * 1024 });
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/wiki', KURATE_DB_POOL_SIZE: '5', KURATE_DB_SSL: 'true' });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db:5432/wiki', ssl: true, poolSize: 5 });
  });

  it('takes an empty variable for an unset one (as compose files write them)', () => {
    const config = loadConfig({ KURATE_ADMIN_EMAIL: '', KURATE_ADMIN_PASSWORD: '', PORT: '', KURATE_ROLE: '' }, '/srv/wiki');
    expect(config.auth.initialAdmin).toBeNull();
    expect(config.http.port).toBe(3000);
    expect(config.extraction.role).toBe('all');
    expect(() => loadConfig({ KURATE_ADMIN_EMAIL: 'ada@example.org', KURATE_ADMIN_PASSWORD: '' })).toThrow(/must be set together/);
  });

  it('keeps memory:// as an in-memory embedded database', () => {
    expect(loadConfig({ KURATE_DATA_DIR: 'memory://' }).database).toEqual({ kind: 'embedded', dataDir: 'memory://' });
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number.*"eighty"/],
    [{ PORT: '70000' }, /PORT must not be greater than 65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ connection URL/],
    [{ KURATE_LOG_LEVEL: 'chatty' }, /KURATE_LOG_LEVEL must be one of error, warn, log, debug, verbose/],
    [{ KURATE_DB_SSL: 'maybe' }, /KURATE_DB_SSL must be true or false/],
    [{ KURATE_MAX_BODY_BYTES: '10' }, /KURATE_MAX_BODY_BYTES must not be less than 1024/],
  ])('refuses %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the Markdown threads and their time limit, and refuses values out of range', () => {
    // Unset: 1 thread where the compiled worker module is (the built server), else 0 (test/unit/markdown-pool.test.ts).
    expect(loadConfig({}).render).toEqual({ threads: null, timeoutMs: 20_000 });
    expect(loadConfig({ KURATE_RENDER_THREADS: '0', KURATE_RENDER_TIMEOUT_SECONDS: '2.5' }).render).toEqual({ threads: 0, timeoutMs: 2500 });
    expect(() => loadConfig({ KURATE_RENDER_THREADS: '40' })).toThrow(/KURATE_RENDER_THREADS must not be greater than 16/);
    expect(() => loadConfig({ KURATE_RENDER_TIMEOUT_SECONDS: '0' })).toThrow(ConfigError);
  });
});
