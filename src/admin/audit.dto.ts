import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
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

  @ApiPropertyOptional({ description: 'From this date or time (ISO 8601), inclusive.', example: '2026-01-31' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be a date such as 2026-01-31 (or an ISO 8601 time)' })
  from?: string;

  @ApiPropertyOptional({ description: 'Up to this date (inclusive: the whole day) or time (ISO 8601).', example: '2026-02-28' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be a date such as 2026-02-28 (or an ISO 8601 time)' })
  to?: string;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
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

/** A date-only `to` means the whole of that day. */
export function auditRange(query: AuditQueryDto): { from?: Date; until?: Date } {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
  const from = query.from ? new Date(dateOnly.test(query.from) ? `${query.from}T00:00:00Z` : query.from) : undefined;
  let until: Date | undefined;
  if (query.to) {
    until = new Date(dateOnly.test(query.to) ? `${query.to}T00:00:00Z` : query.to);
    if (dateOnly.test(query.to)) until = new Date(until.getTime() + 86_400_000);
    else until = new Date(until.getTime() + 1);
  }
  return { from, until };
}
