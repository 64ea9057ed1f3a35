import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow, ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min,
  MinLength, ValidateNested,
} from 'class-validator';
import { QUEUE_SORTS, type QueueSort, type SortDirection } from '../proposals.repository.js';
import { ID_PATTERN } from '../../admin/review-errors.js';
import { REVIEW_PREDICATES, REVIEW_TYPES } from '../../admin/review-vocabulary.js';

export const MAX_NAME = 300;
export const MAX_TEXT = 5000;
export const MAX_REASON = 1000;

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const emptyAsUndefined = ({ value }: { value: unknown }) => (typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value);
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' || value === 'on' || value === '1' ? true : value === 'false' || value === '0' ? false : value);
const toId = ({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : value);
const toOptionalId = ({ value }: { value: unknown }) => (value === '' || value === null ? undefined : toId({ value }));
const toNumber = ({ value }: { value: unknown }) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value === '' ? undefined : value);
/** A list's `limit`: 1–200, 50 when not given. */
const PageLimit = () =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 }),
    IsOptional(),
    Transform(toNumber),
    IsInt({ message: 'limit must be a whole number' }),
    Min(1),
    Max(200),
  );
const ID_MESSAGE = (name: string) => `${name} must be an id (a positive whole number)`;
const STATUSES = ['pending', 'approved', 'rejected', 'retired'] as const;
const KINDS = ['node', 'edge'] as const;

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

export class EntityListQueryDto {
  @ApiPropertyOptional({ description: 'Words in the name or an alias.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: REVIEW_TYPES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  offset?: number;
}

export class CreateEntityDto {
  @ApiProperty({ maxLength: MAX_NAME })
  @Transform(trimmed)
  @IsString({ message: 'name is required' })
  @MinLength(1, { message: 'name may not be empty' })
  @MaxLength(MAX_NAME)
  name: string;

  @ApiProperty({ enum: REVIEW_TYPES })
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;
}

export class UpdateEntityDto {
  @ApiPropertyOptional({ maxLength: MAX_NAME })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MinLength(1, { message: 'name may not be empty' })
  @MaxLength(MAX_NAME)
  name?: string;

  @ApiPropertyOptional({ enum: REVIEW_TYPES })
  @IsOptional()
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ type: [String], description: 'The whole list (replaces the aliases).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;
}

export class DeleteEntityDto {
  @ApiPropertyOptional({ default: false, description: 'Only say what would be deleted.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Also reject its signature, so that it is not proposed again.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'reject must be true or false' })
  reject?: boolean;

  @ApiPropertyOptional({ maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;
}

export class MergeEntityDto {
  @ApiProperty({ description: 'The entity that stays (this one is merged into it and goes).' })
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('intoId') })
  intoId: string;
}

export class CreateEdgeDto {
  @ApiProperty()
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('sourceId') })
  sourceId: string;

  @ApiProperty()
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('targetId') })
  targetId: string;

  @ApiProperty({ enum: REVIEW_PREDICATES })
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate: string;
}

export class UpdateEdgeDto {
  @ApiPropertyOptional({ enum: REVIEW_PREDICATES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'swapDirection must be true or false' })
  swapDirection?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 1_000_000 })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: 'weight must be a number' })
  @Min(0)
  @Max(1_000_000)
  weight?: number;
}

export class DeleteEdgeDto {
  @ApiPropertyOptional({ maxLength: MAX_REASON, description: 'Why (remembered with the rejection).' })
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

export class ExportQueryDto {
  @ApiPropertyOptional({ enum: ['json', 'graphml'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'graphml'], { message: 'format must be json or graphml' })
  format?: 'json' | 'graphml';
}

export class ImportNodeDto {
  @ApiProperty({ description: 'The node’s id in this file (edges refer to it).' })
  @Transform(toId)
  @IsString({ message: 'every node needs an id' })
  @MinLength(1)
  @MaxLength(200)
  id: string;

  @ApiProperty({ maxLength: MAX_NAME })
  @IsString({ message: 'every node needs a name' })
  @MaxLength(MAX_NAME)
  name: string;

  @ApiProperty({ description: 'An entity type, or a term mapped by typeMap.' })
  @IsString({ message: 'every node needs a type' })
  @MaxLength(100)
  type: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'Pending mode: the proposal’s confidence (default 1).' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  confidence?: number;

  // Fields of Kurate's own export, accepted and ignored, so that an export can be imported as it is.
  @Allow() signature?: unknown;
  @Allow() origin?: unknown;
  @Allow() createdBy?: unknown;
  @Allow() createdAt?: unknown;
  @Allow() updatedAt?: unknown;
  @Allow() provenance?: unknown;
}

export class ImportEdgeDto {
  @ApiProperty({ description: 'A node id of this file.' })
  @Transform(toId)
  @IsString()
  @MaxLength(200)
  source: string;

  @ApiProperty({ description: 'A node id of this file.' })
  @Transform(toId)
  @IsString()
  @MaxLength(200)
  target: string;

  @ApiProperty({ description: 'A predicate, or a term mapped by predicateMap.' })
  @IsString()
  @MaxLength(100)
  predicate: string;

  @ApiPropertyOptional({ enum: ['typed', 'co_mention'], description: 'co_mention edges are skipped (they are derived from pages).' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  kind?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1_000_000)
  weight?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  confidence?: number;

  @Allow() id?: unknown;
  @Allow() origin?: unknown;
  @Allow() createdBy?: unknown;
  @Allow() createdAt?: unknown;
  @Allow() updatedAt?: unknown;
  @Allow() provenance?: unknown;
}

export class ImportGraphDto {
  @ApiProperty({ type: [ImportNodeDto] })
  @IsArray({ message: 'graph.nodes must be a list' })
  @ArrayMaxSize(50_000)
  @ValidateNested({ each: true })
  @Type(() => ImportNodeDto)
  nodes: ImportNodeDto[];

  @ApiPropertyOptional({ type: [ImportEdgeDto] })
  @IsOptional()
  @IsArray({ message: 'graph.edges must be a list' })
  @ArrayMaxSize(200_000)
  @ValidateNested({ each: true })
  @Type(() => ImportEdgeDto)
  edges?: ImportEdgeDto[];

  @Allow() format?: unknown;
  @Allow() version?: unknown;
}

export class ImportDto {
  @ApiProperty({ type: ImportGraphDto, description: 'Nodes and edges; Kurate’s own export is accepted as it is.' })
  @IsObject({ message: 'graph must be an object with nodes (and edges)' })
  @ValidateNested()
  @Type(() => ImportGraphDto)
  graph: ImportGraphDto;

  @ApiProperty({ enum: ['pending', 'approved'], description: 'pending: proposals for the queue; approved: entities and edges at once (reason required).' })
  @IsIn(['pending', 'approved'], { message: 'mode must be pending or approved' })
  mode: 'pending' | 'approved';

  @ApiPropertyOptional({ maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;

  @ApiPropertyOptional({ example: { framework: 'technology' }, description: 'Unknown types mapped onto the vocabulary.' })
  @IsOptional()
  @IsObject({ message: 'typeMap must be an object' })
  typeMap?: Record<string, string>;

  @ApiPropertyOptional({ example: { depends_on: 'requires' } })
  @IsOptional()
  @IsObject({ message: 'predicateMap must be an object' })
  predicateMap?: Record<string, string>;

  @ApiPropertyOptional({ default: false, description: 'Validate and report only.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;
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
