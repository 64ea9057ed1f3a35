import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { toNumber } from '../common/dto-transforms.js';
import { IsDateOrTime, readDateOrTime } from '../common/date-input.js';
import type { AuditEntryEntity } from '../audit/audit-entry.entity.js';

export class AuditQueryDto {
  @ApiPropertyOptional({ description: "The actor's display name (case-insensitive, exact)." })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'An action such as `user.role`, or a family such as `user` (matches `user.*`).' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/^[a-z0-9_.-]*$/, { message: 'action may hold lower-case letters, digits, dots, dashes and underscores' })
  action?: string;

  @ApiPropertyOptional({ description: 'From this date or time (`2026-01-31`, `2026-01-31T18:00:00Z`; UTC unless an offset is given), inclusive.', example: '2026-01-31' })
  @IsOptional()
  @IsDateOrTime('from', '2026-01-31')
  from?: string;

  @ApiPropertyOptional({ description: 'Up to this date (inclusive: the whole day) or time (`2026-02-28T18:00:00Z`; UTC unless an offset is given).', example: '2026-02-28' })
  @IsOptional()
  @IsDateOrTime('to', '2026-02-28')
  to?: string;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(500)
  perPage?: number;
}

export class AuditEntryResponse {
  @ApiProperty() id: string;
  @ApiProperty() at: Date;
  @ApiProperty({ nullable: true, type: String }) actorUserId: string | null;
  @ApiProperty() actorName: string;
  @ApiProperty({ example: 'user.role' }) action: string;
  @ApiProperty({ nullable: true, type: String, example: 'user:3f1c…' }) target: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: String }) ip: string | null;
}

export class AuditPageResponse {
  @ApiProperty({ type: [AuditEntryResponse] }) items: AuditEntryResponse[];
  @ApiProperty() total: number;
  @ApiProperty() page: number;
  @ApiProperty() perPage: number;
}

export function auditEntryResponse(e: AuditEntryEntity): AuditEntryResponse {
  return { id: String(e.id), at: e.at, actorUserId: e.actorUserId, actorName: e.actorName, action: e.action, target: e.target, details: e.details, ip: e.ip };
}

/** A date-only `to` means the whole of that day; a time, up to and including it. */
export function auditRange(query: AuditQueryDto): { from?: Date; until?: Date } {
  const from = query.from ? readDateOrTime(query.from) ?? undefined : undefined;
  const to = query.to ? readDateOrTime(query.to) : null;
  const until = to ? new Date(to.getTime() + (query.to!.length === 10 ? 86_400_000 : 1)) : undefined;
  return { from, until };
}
