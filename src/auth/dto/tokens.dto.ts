import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateOrTime } from '../../common/date-input.js';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { TOKEN_SCOPES, type ApiTokenEntity, type TokenScope } from '../api-token.entity.js';
import { toBoolean } from '../../common/dto-transforms.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateTokenDto {
  @ApiProperty({ example: 'laptop CLI', maxLength: 100, description: 'Tells your tokens apart.' })
  @Transform(trim)
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({
    enum: TOKEN_SCOPES,
    isArray: true,
    default: ['read'],
    description: '`read`: what a reader may do; `write`: also what an author may do; `admin`: also what an admin may do; ' +
      '`metrics`: may also scrape /metrics (only admins grant it). A token never grants more than its owner has, and nobody can create a token above their role.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TOKEN_SCOPES.length)
  @IsIn(TOKEN_SCOPES, { each: true, message: `each scope must be one of ${TOKEN_SCOPES.join(', ')}` })
  scopes?: TokenScope[];

  @ApiPropertyOptional({ example: '2027-01-31T00:00:00Z', description: 'When the token stops working (ISO 8601, in the future). No expiry when omitted.' })
  @IsOptional()
  @IsDateOrTime('expiresAt', '2027-01-31')
  expiresAt?: string;
}

export class ListTokensQueryDto {
  @ApiPropertyOptional({ description: "Admins only: this user's tokens." })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({ description: "Admins only: everyone's tokens." })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  all?: boolean;
}

export class TokenResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'kur_AbCd1234', description: 'The first characters of the token.' }) prefix: string;
  @ApiProperty({ enum: TOKEN_SCOPES, isArray: true }) scopes: TokenScope[];
  @ApiProperty({ enum: ['active', 'expired', 'revoked'] }) status: 'active' | 'expired' | 'revoked';
  @ApiProperty({ nullable: true, type: Date }) expiresAt: Date | null;
  @ApiProperty() createdAt: Date;
  @ApiProperty({ nullable: true, type: Date }) lastUsedAt: Date | null;
  @ApiProperty({ nullable: true, type: Date }) revokedAt: Date | null;
  @ApiProperty() userId: string;
  @ApiProperty() userEmail: string;
}

export class CreatedTokenResponse extends TokenResponse {
  @ApiProperty({ description: 'The token itself. Shown this once: only its hash is stored.', example: 'kur_…' })
  token: string;
}

export class TokenListResponse {
  @ApiProperty({ type: [TokenResponse] }) items: TokenResponse[];
}

export function tokenStatus(t: ApiTokenEntity, now = new Date()): TokenResponse['status'] {
  if (t.revokedAt) return 'revoked';
  if (t.expiresAt && t.expiresAt <= now) return 'expired';
  return 'active';
}

export function tokenResponse(t: ApiTokenEntity): TokenResponse {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scopes: t.scopes,
    status: tokenStatus(t),
    expiresAt: t.expiresAt,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
    revokedAt: t.revokedAt,
    userId: t.userId,
    userEmail: t.user?.email ?? '',
  };
}
