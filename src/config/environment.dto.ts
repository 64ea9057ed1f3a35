import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toNumber = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
};

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export const EXTRACTOR_KINDS = ['builtin', 'ollama', 'anthropic'] as const;
export const EMBEDDER_KINDS = ['builtin', 'ollama'] as const;
export const PROCESS_ROLES = ['web', 'worker', 'all'] as const;
export const ATTACHMENT_STORES = ['local', 'database', 's3'] as const;

/** Every environment variable Kurate reads, with the rule it must satisfy. Documented in README "Configuration". */
export class EnvironmentDto {
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: '$property must be a postgres:// or postgresql:// connection URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_DATA_DIR?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(65535)
  @IsInt({ message: '$property must be a whole number' })
  PORT?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_HOST?: string;

  /** A second port serving only /metrics, without a token (for a scraper on a private network); 0: any free port. */
  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(65535)
  @IsInt({ message: '$property must be a whole number from 0 to 65535' })
  KURATE_METRICS_PORT?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_METRICS_HOST?: string;


  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `$property must be one of ${LOG_LEVELS.join(', ')}` })
  KURATE_LOG_LEVEL?: (typeof LOG_LEVELS)[number];

  @IsOptional()
  @Transform(toInt)
  @Min(1024)
  @IsInt({ message: '$property must be a whole number of bytes' })
  KURATE_MAX_BODY_BYTES?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: '$property must be true or false' })
  KURATE_DB_SSL?: boolean;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(200)
  @IsInt({ message: '$property must be a whole number' })
  KURATE_DB_POOL_SIZE?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: '$property must be true or false' })
  KURATE_PUBLIC_READ?: boolean;

  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  KURATE_ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(12, { message: '$property must be at least 12 characters long' })
  @MaxLength(1024, { message: '$property must be at most 1024 characters long' })
  KURATE_ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: '$property must be at least 32 characters long (try `openssl rand -hex 32`)' })
  KURATE_SESSION_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(365)
  @IsInt({ message: '$property must be a whole number of days' })
  KURATE_SESSION_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(100)
  @IsInt({ message: '$property must be a whole number' })
  KURATE_LOGIN_MAX_ATTEMPTS?: number;

  /** argon2id cost of new password hashes, written as in the hash itself: m, t and p in any order (existing hashes keep their own). */
  @IsOptional()
  @Matches(/^(?=.*\bm=)(?=.*\bt=)(?=.*\bp=)[mtp]=\d{1,7},[mtp]=\d{1,7},[mtp]=\d{1,7}$/, { message: '$property must look like m=65536,t=3,p=4 (memory in KiB, passes, lanes)' })
  KURATE_PASSWORD_HASH_COST?: string;

  /** A regular expression on page slugs: matching pages are system pages, never fed to the knowledge graph. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_SYSTEM_PAGE_PATTERN?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(3650)
  @IsInt({ message: '$property must be a whole number of days' })
  KURATE_POLICY_REVIEW_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(100000)
  @IsInt({ message: '$property must be a whole number of pages' })
  KURATE_POLICY_RECONCILE_BATCH?: number;

  // ── Extraction and embedding backends (src/config/llm-config.ts, docs/extractors.md) ──
  @IsOptional()
  @IsIn(EXTRACTOR_KINDS, { message: `$property must be one of ${EXTRACTOR_KINDS.join(', ')}` })
  KURATE_EXTRACTOR?: (typeof EXTRACTOR_KINDS)[number];

  @IsOptional()
  @IsIn(EMBEDDER_KINDS, { message: `$property must be one of ${EMBEDDER_KINDS.join(', ')}` })
  KURATE_EMBEDDER?: (typeof EMBEDDER_KINDS)[number];

  @IsOptional()
  @Transform(toInt)
  @Min(100)
  @Max(3_600_000)
  @IsInt({ message: '$property must be a whole number of milliseconds' })
  KURATE_LLM_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(32)
  @IsInt({ message: '$property must be a whole number of threads from 0 to 32' })
  KURATE_BUILTIN_EXTRACTOR_THREADS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(16)
  @IsInt({ message: '$property must be a whole number of threads from 0 to 16' })
  KURATE_RENDER_THREADS?: number;

  @IsOptional()
  @Transform(toNumber)
  @Min(1)
  @Max(600)
  @IsNumber({}, { message: '$property must be a number of seconds from 1 to 600' })
  KURATE_RENDER_TIMEOUT_SECONDS?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  OLLAMA_HOST?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_OLLAMA_MODEL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_OLLAMA_EMBED_MODEL?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(65536)
  @IsInt({ message: '$property must be a whole number of dimensions' })
  KURATE_OLLAMA_EMBED_DIMENSIONS?: number;

  @IsOptional()
  @IsString()
  ANTHROPIC_API_KEY?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_ANTHROPIC_MODEL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  ANTHROPIC_BASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(256)
  @Max(64000)
  @IsInt({ message: '$property must be a whole number of tokens' })
  KURATE_ANTHROPIC_MAX_TOKENS?: number;

  // ── Extraction jobs and process roles (src/config/extraction-config.ts, docs/extraction.md) ──
  @IsOptional()
  @IsIn(PROCESS_ROLES, { message: `$property must be one of ${PROCESS_ROLES.join(', ')}` })
  KURATE_ROLE?: (typeof PROCESS_ROLES)[number];

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: '$property must be true or false' })
  KURATE_WORKER_PROCESS?: boolean;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(19)
  @IsInt({ message: '$property must be a whole number from 0 to 19' })
  KURATE_WORKER_NICE?: number;

  @IsOptional()
  @Transform(toNumber)
  @Min(0)
  @Max(1)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number between 0 and 1' })
  KURATE_KG_CONFIDENCE_THRESHOLD?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(64)
  @IsInt({ message: '$property must be a whole number of calls' })
  KURATE_EXTRACT_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(100000)
  @IsInt({ message: '$property must be a whole number of calls per minute (0: no limit)' })
  KURATE_EXTRACT_RATE_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(50)
  @IsInt({ message: '$property must be a whole number of retries' })
  KURATE_EXTRACT_RETRY_LIMIT?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(86400)
  @IsInt({ message: '$property must be a whole number of seconds' })
  KURATE_EXTRACT_RETRY_DELAY_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(86399)
  @IsInt({ message: '$property must be a whole number of seconds' })
  KURATE_EXTRACT_JOB_TIMEOUT_SECONDS?: number;

  @IsOptional()
  @Transform(toNumber)
  @Min(0.5)
  @Max(60)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number of seconds' })
  KURATE_JOB_POLL_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @Max(1000000)
  @IsInt({ message: '$property must be a whole number of reviewed proposals (10 or more)' })
  KURATE_CALIBRATION_MIN_REVIEWED?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(1000000)
  @IsInt({ message: '$property must be a whole number of reviews' })
  KURATE_CALIBRATION_REFIT_EVERY?: number;
  // ── Attachments (src/config/attachments-config.ts, docs/attachments.md) ──
  @IsOptional()
  @IsIn(ATTACHMENT_STORES, { message: `$property must be one of ${ATTACHMENT_STORES.join(', ')}` })
  KURATE_ATTACHMENTS_STORE?: (typeof ATTACHMENT_STORES)[number];

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_ATTACHMENTS_DIR?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  @IsInt({ message: '$property must be a whole number of bytes from 1024 to 1073741824 (1 GiB)' })
  KURATE_ATTACHMENTS_MAX_BYTES?: number;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: '$property must be an http:// or https:// URL' })
  KURATE_S3_ENDPOINT?: string;

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: '$property must be an S3 bucket name (3-63 lower-case letters, digits, dots and hyphens)' })
  KURATE_S3_BUCKET?: string;

  @IsOptional()
  @Matches(/^[a-z0-9-]{1,40}$/, { message: '$property must be a region name such as us-east-1' })
  KURATE_S3_REGION?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  KURATE_S3_SECRET_ACCESS_KEY?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9!_.*'()/-]{0,200}$/, { message: '$property must be an object key prefix of letters, digits and !_.*\'()/-' })
  KURATE_S3_PREFIX?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: '$property must be true or false' })
  KURATE_S3_PATH_STYLE?: boolean;
}
