import path from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EnvironmentDto, LOG_LEVELS } from './environment.dto.js';
import { DEFAULT_POLICY_CONFIG, policyConfigFrom, type PolicyConfig } from './policy-config.js';
import { DEFAULT_LLM_CONFIG, llmConfigFrom, type LlmConfig } from './llm-config.js';
import { DEFAULT_EXTRACTION_CONFIG, extractionConfigFrom, type ExtractionConfig } from './extraction-config.js';
import { DEFAULT_SEARCH_CONFIG, searchConfigFrom, type SearchConfig } from './search-config.js';
import { ConfigError } from './config-error.js';
import { attachmentsConfigFrom, DEFAULT_ATTACHMENTS_CONFIG, type AttachmentsConfig } from './attachments-config.js';
import { DEFAULT_RENDER_CONFIG, renderConfigFrom, type RenderConfig } from './render-config.js';

/** What loadConfig throws, for those who call it. */
export { ConfigError };

export type LogLevel = (typeof LOG_LEVELS)[number];

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; ssl: boolean; poolSize: number }
  /** `snapshot` (tests only) seeds a fresh in-memory database from a `dumpDataDir()` tarball. */
  | { kind: 'embedded'; dataDir: string; snapshot?: Blob };

export interface AuthConfig {
  /** Anyone may read pages and search (KURATE_PUBLIC_READ); when false every read needs a login. */
  publicRead: boolean;
  /** The first admin, created on first start when no admin exists (both set or neither). */
  initialAdmin: { email: string; password: string } | null;
  /** null: a secret is generated once and kept in the database, so restarts and other processes share it. */
  sessionSecret: string | null;
  sessionDays: number;
  /** Failed logins on one account before it is locked for a growing delay. */
  loginMaxAttempts: number;
  /** argon2id parameters of new password hashes (KURATE_PASSWORD_HASH_COST). */
  passwordHash: PasswordHashCost;
}

/** argon2id's cost: memory in KiB, passes over it, lanes. */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The argon2 library's defaults, which OWASP's guidance exceeds: 64 MiB, 3 passes, 4 lanes. */
export const DEFAULT_PASSWORD_HASH_COST: PasswordHashCost = { memoryCost: 65536, timeCost: 3, parallelism: 4 };

/** /metrics (src/metrics/): on the main port for admins and `metrics` tokens, and on its own port when one is set. */
export interface MetricsConfig {
  /** KURATE_METRICS_PORT: a second listener serving only /metrics, without authentication; null: none. */
  port: number | null;
  /** KURATE_METRICS_HOST: where that listener binds (default 127.0.0.1: this machine only). */
  host: string;
}

export const DEFAULT_METRICS_CONFIG: MetricsConfig = { port: null, host: '127.0.0.1' };

/** The typed configuration, read once at boot. Inject it; never read process.env elsewhere. */
export class KurateConfig {
  constructor(
    readonly database: DatabaseConfig,
    readonly http: { host: string; port: number; maxBodyBytes: number },
    readonly logLevel: LogLevel,
    readonly auth: AuthConfig,
    readonly policy: PolicyConfig = DEFAULT_POLICY_CONFIG,
    readonly llm: LlmConfig = DEFAULT_LLM_CONFIG,
    readonly extraction: ExtractionConfig = DEFAULT_EXTRACTION_CONFIG,
    readonly search: SearchConfig = DEFAULT_SEARCH_CONFIG,
    readonly metrics: MetricsConfig = DEFAULT_METRICS_CONFIG,
    readonly attachments: AttachmentsConfig = DEFAULT_ATTACHMENTS_CONFIG,
    readonly render: RenderConfig = DEFAULT_RENDER_CONFIG,
  ) {}
}

/** Never echoed back in an error message (which ends up in logs). */
const SECRET_VARIABLES = new Set(['KURATE_ADMIN_PASSWORD', 'KURATE_SESSION_SECRET', 'ANTHROPIC_API_KEY', 'KURATE_S3_SECRET_ACCESS_KEY']);

/** Validates the environment; a bad value throws a ConfigError whose message names the variable. */
export function loadConfig(given: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): KurateConfig {
  // An empty variable is an unset one (compose files write `KURATE_ADMIN_EMAIL: ${KURATE_ADMIN_EMAIL:-}`).
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined && value !== ''));
  const raw = plainToInstance(EnvironmentDto, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(raw, { whitelist: true, forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const why = Object.values(e.constraints ?? {}).join('; ');
      return SECRET_VARIABLES.has(e.property) ? `${why} (value not shown: it is a secret)` : `${why} (got ${JSON.stringify(env[e.property])})`;
    });
    throw new ConfigError(`Invalid configuration: ${lines.join('. ')}.`);
  }
  if (Boolean(raw.KURATE_ADMIN_EMAIL) !== Boolean(raw.KURATE_ADMIN_PASSWORD)) {
    throw new ConfigError('Invalid configuration: KURATE_ADMIN_EMAIL and KURATE_ADMIN_PASSWORD must be set together (or neither).');
  }
  const database: DatabaseConfig = raw.DATABASE_URL
    ? { kind: 'postgres', url: raw.DATABASE_URL, ssl: raw.KURATE_DB_SSL ?? false, poolSize: raw.KURATE_DB_POOL_SIZE ?? 10 }
    : { kind: 'embedded', dataDir: embeddedDataDir(raw.KURATE_DATA_DIR ?? './data', cwd) };
  const llm = llmConfigFrom(raw);
  return new KurateConfig(
    database,
    { host: raw.KURATE_HOST ?? '127.0.0.1', port: raw.PORT ?? 3000, maxBodyBytes: raw.KURATE_MAX_BODY_BYTES ?? 2 * 1024 * 1024 },
    raw.KURATE_LOG_LEVEL ?? 'log',
    {
      publicRead: raw.KURATE_PUBLIC_READ ?? true,
      initialAdmin: raw.KURATE_ADMIN_EMAIL && raw.KURATE_ADMIN_PASSWORD ? { email: raw.KURATE_ADMIN_EMAIL, password: raw.KURATE_ADMIN_PASSWORD } : null,
      sessionSecret: raw.KURATE_SESSION_SECRET ?? null,
      sessionDays: raw.KURATE_SESSION_DAYS ?? 14,
      loginMaxAttempts: raw.KURATE_LOGIN_MAX_ATTEMPTS ?? 5,
      passwordHash: raw.KURATE_PASSWORD_HASH_COST ? passwordHashCost(raw.KURATE_PASSWORD_HASH_COST) : DEFAULT_PASSWORD_HASH_COST,
    },
    policyConfigFrom(raw),
    llm,
    extractionConfigFrom(raw, llm.extractor, database.kind),
    searchConfigFrom(env),
    { port: raw.KURATE_METRICS_PORT ?? null, host: raw.KURATE_METRICS_HOST ?? DEFAULT_METRICS_CONFIG.host },
    attachmentsConfigFrom(raw, embeddedDataDir(raw.KURATE_DATA_DIR ?? './data', cwd), cwd),
    renderConfigFrom(raw),
  );
}

/** `m=…,t=…,p=…` in any order (the syntax already checked), within argon2's limits: one pass and lane, 8 KiB per lane. */
function passwordHashCost(value: string): PasswordHashCost {
  const cost = Object.fromEntries(value.split(',').map((part) => [part[0], Number(part.slice(2))]));
  const [memoryCost, timeCost, parallelism] = [cost.m, cost.t, cost.p];
  if (timeCost < 1 || parallelism < 1 || memoryCost < 8 * parallelism) {
    throw new ConfigError(`Invalid configuration: KURATE_PASSWORD_HASH_COST needs t ≥ 1, p ≥ 1 and m ≥ 8 × p KiB (got ${JSON.stringify(value)}).`);
  }
  return { memoryCost, timeCost, parallelism };
}

/** `memory://` keeps the embedded database in memory (nothing written to disk); anything else is a folder. */
function embeddedDataDir(value: string, cwd: string): string {
  return value.startsWith('memory://') ? value : path.resolve(cwd, value);
}
