import path from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EnvironmentDto, LOG_LEVELS } from './environment.dto.js';

export type LogLevel = (typeof LOG_LEVELS)[number];

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; ssl: boolean; poolSize: number }
  /** `snapshot` (tests only) seeds a fresh in-memory database from a `dumpDataDir()` tarball. */
  | { kind: 'embedded'; dataDir: string; snapshot?: Blob };

/** The typed configuration, read once at boot. Inject it; never read process.env elsewhere. */
export class KurateConfig {
  constructor(
    readonly database: DatabaseConfig,
    readonly http: { host: string; port: number; maxBodyBytes: number },
    readonly defaultAuthor: string,
    readonly logLevel: LogLevel,
  ) {}
}

export class ConfigError extends Error {}

/** Validates the environment; a bad value throws a ConfigError whose message names the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): KurateConfig {
  const raw = plainToInstance(EnvironmentDto, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(raw, { whitelist: true, forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const why = Object.values(e.constraints ?? {}).join('; ');
      return `${why} (got ${JSON.stringify(env[e.property])})`;
    });
    throw new ConfigError(`Invalid configuration: ${lines.join('. ')}.`);
  }
  const database: DatabaseConfig = raw.DATABASE_URL
    ? { kind: 'postgres', url: raw.DATABASE_URL, ssl: raw.KURATE_DB_SSL ?? false, poolSize: raw.KURATE_DB_POOL_SIZE ?? 10 }
    : { kind: 'embedded', dataDir: embeddedDataDir(raw.KURATE_DATA_DIR ?? './data', cwd) };
  return new KurateConfig(
    database,
    { host: raw.KURATE_HOST ?? '127.0.0.1', port: raw.PORT ?? 3000, maxBodyBytes: raw.KURATE_MAX_BODY_BYTES ?? 2 * 1024 * 1024 },
    raw.KURATE_DEFAULT_AUTHOR ?? 'kurate',
    raw.KURATE_LOG_LEVEL ?? 'log',
  );
}

/** `memory://` keeps the embedded database in memory (nothing written to disk); anything else is a folder. */
function embeddedDataDir(value: string, cwd: string): string {
  return value.startsWith('memory://') ? value : path.resolve(cwd, value);
}
