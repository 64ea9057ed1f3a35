import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested,
} from 'class-validator';
import { QUEUE_SORTS, type QueueSort, type SortDirection } from '../proposals.repository.js';
import { ID_PATTERN } from '../../admin/review-errors.js';
import { REVIEW_PREDICATES, REVIEW_TYPES } from '../../admin/review-vocabulary.js';
import { MAX_NAME, MAX_TEXT, MAX_REASON, emptyAsUndefined, toBoolean, toOptionalId, toNumber, PageLimit, ID_MESSAGE, STATUSES, KINDS } from '../../admin/dto-fields.js';

/** The queue's filters (also a bulk action's "everything matching"). */
export class ProposalFilterDto {
  @ApiPropertyOptional({ enum: KINDS })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(KINDS, { message: 'kind must be node or edge' })
  kind?: 'node' | 'edge';

  @ApiPropertyOptional({ enum: REVIEW_TYPES, description: 'Node proposals of this entity type.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ enum: REVIEW_PREDICATES, description: 'Edge proposals with this predicate.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate?: string;

  @ApiPropertyOptional({ description: 'Supported by a page of this cluster (or of a sub-cluster).' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(250)
  cluster?: string;

  @ApiPropertyOptional({ description: 'Supported by this page (slug).' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(250)
  page?: string;

  @ApiPropertyOptional({ example: 'builtin' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(100)
  extractor?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: 'minConfidence must be a number from 0 to 1' })
  @Min(0)
  @Max(1)
  minConfidence?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: 'maxConfidence must be a number from 0 to 1' })
  @Min(0)
  @Max(1)
  maxConfidence?: number;

  @ApiPropertyOptional({ description: 'Words in the name (or in an endpoint’s name).' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class ProposalListQueryDto extends ProposalFilterDto {
  @ApiPropertyOptional({ enum: STATUSES, default: 'pending' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(STATUSES, { message: `status must be one of: ${STATUSES.join(', ')}` })
  status?: (typeof STATUSES)[number];

  @ApiPropertyOptional({ enum: QUEUE_SORTS, default: 'confidence' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(QUEUE_SORTS, { message: `sort must be one of: ${QUEUE_SORTS.join(', ')}` })
  sort?: QueueSort;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], description: 'Default: confidence and support descending, age ascending (oldest first).' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(['asc', 'desc'], { message: 'direction must be asc or desc' })
  direction?: SortDirection;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(500)
  after?: string;

  @ApiPropertyOptional({ description: 'The prevCursor of the current page.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(500)
  before?: string;

  @PageLimit()
  limit?: number;
}

export class ApproveDto {
  @ApiPropertyOptional({ description: 'A note kept with the proposal and in the audit trail.', maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  note?: string;
}

export class EditApproveDto extends ApproveDto {
  @ApiPropertyOptional({ description: 'Nodes: the entity’s name (the proposed one becomes an alias).', maxLength: MAX_NAME })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_NAME)
  name?: string;

  @ApiPropertyOptional({ enum: REVIEW_TYPES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;

  @ApiPropertyOptional({ description: 'Nodes: approve into this existing entity (“merge into”).' })
  @IsOptional()
  @Transform(toOptionalId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('intoEntityId') })
  intoEntityId?: string;

  @ApiPropertyOptional({ enum: REVIEW_PREDICATES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate?: string;

  @ApiPropertyOptional({ description: 'Edges: exchange source and target.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'swapDirection must be true or false' })
  swapDirection?: boolean;
}

export class RejectDto {
  @ApiPropertyOptional({ description: 'Why (remembered with the rejection).', maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;
}

export class BulkDto {
  @ApiProperty({ enum: ['approve', 'reject'] })
  @IsIn(['approve', 'reject'], { message: 'action must be approve or reject' })
  action: 'approve' | 'reject';

  @ApiPropertyOptional({ type: [String], description: 'The selection. Without it: every pending proposal matching filter with confidence ≥ minConfidence.' })
  @IsOptional()
  @IsArray({ message: 'ids must be a list of proposal ids' })
  @ArrayMaxSize(5000)
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'number' ? String(v) : v)) : typeof value === 'string' ? [value] : value))
  @Matches(ID_PATTERN, { each: true, message: 'each of ids must be a proposal id' })
  ids?: string[];

  @ApiPropertyOptional({ type: ProposalFilterDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProposalFilterDto)
  filter?: ProposalFilterDto;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'Required without ids: only proposals at least this confident.' })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: 'minConfidence must be a number from 0 to 1' })
  @Min(0)
  @Max(1)
  minConfidence?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 5000, default: 1000, description: 'At most this many proposals in this request.' })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(5000)
  limit?: number;

  @ApiPropertyOptional({ description: 'Approve: a note; reject: the reason remembered.', maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;
}

export class ReviewAuditQueryDto {
  @ApiPropertyOptional({ description: 'Actions older than this action id (the next page).' })
  @IsOptional()
  @Transform(toOptionalId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('before') })
  before?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

export class GapsQueryDto {
  @ApiPropertyOptional({ minimum: 2, maximum: 1000, default: 2, description: 'Entities mentioned on at least this many pages.' })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  @Max(1000)
  minPages?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

export class RejectionListQueryDto {
  @ApiPropertyOptional({ enum: ['node', 'edge'] })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(['node', 'edge'], { message: 'kind must be node or edge' })
  kind?: 'node' | 'edge';

  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt({ message: 'offset must be a whole number' })
  @Min(0)
  @Max(10_000_000)
  offset?: number;
}

export class ForgetRejectionDto {
  @ApiProperty({ enum: ['node', 'edge'] })
  @IsIn(['node', 'edge'], { message: 'kind must be node or edge' })
  kind: 'node' | 'edge';

  @ApiProperty({ description: 'The rejected signature, as GET /admin/knowledge-graph/rejections lists it.', maxLength: 2000 })
  @IsString({ message: 'signature must be text' })
  @IsNotEmpty({ message: 'signature must not be empty' })
  @MaxLength(2000)
  signature: string;
}

/** A triage group's action on the proposals its preview listed (docs/review.md, "Triage"). */
export class TriageActionDto {
  @ApiProperty({ type: [String], description: 'The proposals to act on: the ids the preview (GET …/triage/:group) listed. Those no longer in the group are skipped.' })
  @IsArray({ message: 'ids must be a list of proposal ids' })
  @ArrayMaxSize(1000)
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'number' ? String(v) : v)) : typeof value === 'string' ? [value] : value))
  @Matches(ID_PATTERN, { each: true, message: 'each of ids must be a proposal id' })
  ids: string[];

  @ApiPropertyOptional({ description: 'true: answer the preview of exactly these ids, change nothing.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;

  @ApiPropertyOptional({ description: 'The note (approvals) or reason (rejections) recorded; by default the group’s name.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON)
  note?: string;
}
