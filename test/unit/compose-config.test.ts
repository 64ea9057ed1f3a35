import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EnvironmentDto } from '../../src/config/environment.dto.js';
import { loadConfig } from '../../src/config/kurate-config.js';
import { REPO_ROOT } from '../support/database.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  profiles?: string[];
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { disable?: boolean; test?: string[] };
}

/** `${NAME:-default}` and `${NAME}` as compose substitutes them, from a given .env (none: every default). */
function interpolate(value: string, dotenv: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => dotenv[name] || fallback || '');
}

const compose = parse(readFileSync(path.join(REPO_ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
/** The variables Kurate's configuration schema declares (the properties of EnvironmentDto). */
const schema = new Set(getMetadataStorage().getTargetValidationMetadatas(EnvironmentDto, '', true, false).map((m) => m.propertyName));
const kurateServices = Object.entries(compose.services).filter(([, s]) => s.image === 'kurate:latest');
const environmentOf = (service: ComposeService, dotenv: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), dotenv)]));

describe('compose.yaml and the Dockerfile against the configuration schema', () => {
  it('has web ×2 and a worker of the Kurate image, PostgreSQL with pgvector, and Ollama behind a profile', () => {
    expect(kurateServices.map(([name]) => name).sort()).toEqual(['web', 'worker']);
    expect(compose.services.web.deploy?.replicas).toBe(2);
    expect(compose.services.db.image).toMatch(/^pgvector\/pgvector:pg1[5-9]$/);
    expect(compose.services.ollama.profiles).toEqual(['ollama']);
    for (const [, service] of kurateServices) expect(service.depends_on?.db.condition).toBe('service_healthy');
  });

  it.each(kurateServices)('%s sets only variables of the schema, and every one it needs', (name, service) => {
    const environment = environmentOf(service);
    const unknown = Object.keys(environment).filter((key) => !schema.has(key));
    expect(unknown, `not in src/config/environment.dto.ts`).toEqual([]);
    expect(environment).toMatchObject({ KURATE_ROLE: name, KURATE_HOST: '0.0.0.0' });
    expect(environment.DATABASE_URL, 'processes can share only PostgreSQL').toMatch(/^postgres:\/\//);
    expect(environment.KURATE_ATTACHMENTS_STORE, 'files every process can read').toBe('database');
  });

  it.each(kurateServices)('%s starts with its configuration valid, by default and with a typical .env', (name, service) => {
    const dotenv = { KURATE_ADMIN_EMAIL: 'admin@example.org', KURATE_ADMIN_PASSWORD: 'a-long-password-1', KURATE_EXTRACTOR: 'ollama', POSTGRES_PASSWORD: 's3cret' };
    for (const given of [{}, dotenv]) {
      const config = loadConfig(environmentOf(service, given));
      expect(config.extraction.role).toBe(name);
      expect(config.http.host).toBe('0.0.0.0');
      // The database URL names the db service with its own user, password and database.
      const url = new URL((config.database as { url: string }).url);
      const db = environmentOf(compose.services.db, given);
      expect([url.hostname, url.username, url.password, url.pathname.slice(1)]).toEqual(['db', db.POSTGRES_USER, db.POSTGRES_PASSWORD, db.POSTGRES_DB]);
    }
    expect(loadConfig(environmentOf(service, dotenv)).auth.initialAdmin?.email).toBe('admin@example.org');
    expect(loadConfig(environmentOf(service, dotenv)).llm.extractor).toBe('ollama');
  });

  it('publishes the web port the configuration listens on, which the image exposes and health-checks', () => {
    const port = loadConfig(environmentOf(compose.services.web)).http.port;
    const published = (compose.services.web.ports ?? []).map((p) => interpolate(p, {}));
    expect(published).toEqual([`127.0.0.1:3000-3001:${port}`]);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
    expect(dockerfile).toMatch(new RegExp(`PORT=${port}\\b`));
    // The image's own defaults are valid configuration too.
    const imageEnv = Object.fromEntries([...dockerfile.matchAll(/^\s+(?:ENV )?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(imageEnv).filter((k) => k !== 'NODE_ENV' && !schema.has(k))).toEqual([]);
    expect(loadConfig(imageEnv).http).toMatchObject({ host: '0.0.0.0', port });
  });

  it('builds in stages with bin/container-build.sh, runs as a non-root user, and checks /health', () => {
    expect(dockerfile.match(/^FROM node:20-slim AS \w+$/gm)).toHaveLength(2);
    for (const step of ['install', 'build']) expect(dockerfile).toContain(`RUN bash bin/container-build.sh ${step}`);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*CMD \["bash", "bin\/container-build.sh", "health"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["bash", "bin\/container-build.sh", "start"\]$/m);
    // The worker serves no HTTP: the image's health check would fail it.
    expect(compose.services.worker.healthcheck?.disable).toBe(true);
    const script = readFileSync(path.join(REPO_ROOT, 'bin/container-build.sh'), 'utf8');
    expect(script).toContain('/health');
    expect(script).toContain('npm prune --omit=dev');
  });
});
