import { randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import supertest from 'supertest';
import { createApp } from '../../src/app.setup.js';
import { KurateConfig, loadConfig } from '../../src/config/kurate-config.js';
import { adminQuery, PG_TEMPLATE_NAME, pgliteTemplate, realPostgresUrl, withDatabase } from './database.js';

export interface TestApp {
  app: NestExpressApplication;
  http: ReturnType<typeof supertest>;
  dataSource: DataSource;
  config: KurateConfig;
  /** The base URL when started with `listen: true` (browser and CLI tests). */
  baseUrl: string | null;
  close(): Promise<void>;
}

/** Builds the configuration a test runs with: a fresh database of its own, quiet logs. */
export async function freshTestConfig(env: Record<string, string> = {}): Promise<{ config: KurateConfig; drop: () => Promise<void> }> {
  const url = realPostgresUrl();
  if (url) {
    const database = `kurate_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${database} TEMPLATE ${PG_TEMPLATE_NAME}`);
    const config = loadConfig({ KURATE_LOG_LEVEL: 'error', ...env, DATABASE_URL: withDatabase(url, database), KURATE_DB_POOL_SIZE: '4' });
    return { config, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
  }
  const config = loadConfig({ KURATE_LOG_LEVEL: 'error', ...env, KURATE_DATA_DIR: 'memory://' });
  if (config.database.kind === 'embedded') config.database.snapshot = pgliteTemplate();
  return { config, drop: async () => {} };
}

/** Starts the whole application on a fresh database of its own, for one test file. */
export async function startTestApp(options: { env?: Record<string, string>; listen?: boolean } = {}): Promise<TestApp> {
  const { config, drop } = await freshTestConfig(options.env);
  const app = await createApp(config);
  let baseUrl: string | null = null;
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    baseUrl = `http://127.0.0.1:${address.port}`;
  } else {
    await app.init();
  }
  return {
    app,
    http: supertest(app.getHttpServer()),
    dataSource: app.get(DataSource),
    config,
    baseUrl,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}
