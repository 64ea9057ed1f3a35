import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
};

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;

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
}
