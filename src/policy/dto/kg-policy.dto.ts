import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { POLICY_ACTIONS, type PolicyAction } from '../kg-cluster-policy.entity.js';
import { toBoolean, toNumber } from '../../common/dto-transforms.js';

export const MAX_REASON_LENGTH = 1000;
export const ESTIMATE_ACTIONS = ['include', 'exclude', 'clear'] as const;
export type EstimateAction = (typeof ESTIMATE_ACTIONS)[number];

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const NOT_BLANK = /\S/;
const REASON_MESSAGE = 'reason is required: say why, in a sentence (it goes to the audit trail)';

export class SetPolicyDto {
  @ApiProperty({ enum: POLICY_ACTIONS, description: 'include: the extractor may read these pages; exclude: it may not.' })
  @IsIn(POLICY_ACTIONS, { message: `action must be one of: ${POLICY_ACTIONS.join(', ')}` })
  action: PolicyAction;

  @ApiProperty({ description: 'Why; recorded with the policy and in the audit trail.', maxLength: MAX_REASON_LENGTH })
  @Transform(trimmed)
  @IsString({ message: REASON_MESSAGE })
  @Matches(NOT_BLANK, { message: REASON_MESSAGE })
  @MaxLength(MAX_REASON_LENGTH)
  reason: string;
}

export class ClearPolicyDto {
  @ApiProperty({ description: 'Why the policy goes; recorded in the audit trail.', maxLength: MAX_REASON_LENGTH })
  @Transform(trimmed)
  @IsString({ message: REASON_MESSAGE })
  @Matches(NOT_BLANK, { message: REASON_MESSAGE })
  @MaxLength(MAX_REASON_LENGTH)
  reason: string;
}

export class ReviewPolicyDto {
  @ApiPropertyOptional({ description: 'A note for the audit trail.', maxLength: MAX_REASON_LENGTH })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  note?: string;
}

export class EstimateDto {
  @ApiProperty({ example: 'personal', description: 'A cluster: a slug, or parent/child.' })
  @IsString()
  @MaxLength(250)
  cluster: string;

  @ApiProperty({ enum: ESTIMATE_ACTIONS, description: 'The change to measure; clear removes the cluster’s own row.' })
  @IsIn(ESTIMATE_ACTIONS, { message: `action must be one of: ${ESTIMATE_ACTIONS.join(', ')}` })
  action: EstimateAction;
}

export class BootstrapPolicyDto {
  @ApiProperty({ example: 'docs' })
  @IsString()
  @MaxLength(250)
  cluster: string;

  @ApiProperty({ enum: POLICY_ACTIONS })
  @IsIn(POLICY_ACTIONS, { message: `action must be one of: ${POLICY_ACTIONS.join(', ')}` })
  action: PolicyAction;

  @ApiProperty({ maxLength: MAX_REASON_LENGTH })
  @Transform(trimmed)
  @IsString({ message: REASON_MESSAGE })
  @Matches(NOT_BLANK, { message: REASON_MESSAGE })
  @MaxLength(MAX_REASON_LENGTH)
  reason: string;
}

export class BootstrapDto {
  @ApiProperty({ type: [BootstrapPolicyDto], description: 'The first policies, set at once; refused when any policy exists.' })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => BootstrapPolicyDto)
  @ArrayMinSize(1, { message: 'policies must name at least one cluster' })
  @ArrayMaxSize(10_000)
  policies: BootstrapPolicyDto[];
}

export class PurgeDto {
  @ApiPropertyOptional({ description: 'The cluster name, typed again; required when dryRun is false.' })
  @IsOptional()
  @IsString()
  @MaxLength(250)
  confirm?: string;

  @ApiPropertyOptional({ default: true, description: 'true (the default): only report what would be deleted.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;
}

export class ListClustersQueryDto {
  @ApiPropertyOptional({ description: 'Only policies not reviewed for KURATE_POLICY_REVIEW_DAYS.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'stale must be true or false' })
  stale?: boolean;
}

export class AuditQueryDto {
  @ApiPropertyOptional({ description: 'Only this cluster (and its sub-clusters).' })
  @IsOptional()
  @IsString()
  @MaxLength(250)
  cluster?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 50 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(1000)
  limit?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses (documented for OpenAPI; the service builds plain objects of these shapes).
// ---------------------------------------------------------------------------------------------------------------

export class ClusterResponse {
  @ApiProperty({ example: 'personal' }) cluster: string;
  @ApiProperty({ description: 'Live pages in the cluster or its sub-clusters.' }) pages: number;
  @ApiProperty({ description: 'Of those, how many may not feed the knowledge graph (for any reason).' }) excludedPages: number;
  @ApiProperty() includedPages: number;
  @ApiProperty({ enum: POLICY_ACTIONS, nullable: true, type: String, description: 'The cluster’s own policy row, if any.' }) action: PolicyAction | null;
  @ApiProperty({ enum: ['include', 'exclude', 'default-exclude'], description: 'What applies: its own row, its parent’s, or the default.' }) effectiveAction: string;
  @ApiProperty({ nullable: true, type: String, description: 'The parent whose row applies, when the cluster has none.' }) inheritedFrom: string | null;
  @ApiProperty({ nullable: true, type: String }) reason: string | null;
  @ApiProperty({ nullable: true, type: String }) setBy: string | null;
  @ApiProperty({ nullable: true, type: Date }) setAt: Date | null;
  @ApiProperty({ nullable: true, type: String }) reviewedBy: string | null;
  @ApiProperty({ nullable: true, type: Date }) reviewedAt: Date | null;
  @ApiProperty({ description: 'Not reviewed for KURATE_POLICY_REVIEW_DAYS.' }) stale: boolean;
  @ApiProperty({ nullable: true, type: Number, description: 'Days since the last review.' }) daysSinceReview: number | null;
}

export class ClusterListResponse {
  @ApiProperty({ type: [ClusterResponse] }) items: ClusterResponse[];
  @ApiProperty() reviewDays: number;
}

export class AuditEntryResponse {
  @ApiProperty() id: string;
  @ApiProperty() at: Date;
  @ApiProperty() actor: string;
  @ApiProperty({ enum: ['set', 'clear', 'review', 'bootstrap', 'purge'] }) event: string;
  @ApiProperty({ nullable: true, type: String }) cluster: string | null;
  @ApiProperty({ nullable: true, type: String }) previousAction: string | null;
  @ApiProperty({ nullable: true, type: String }) action: string | null;
  @ApiProperty({ nullable: true, type: String }) reason: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: Record<string, unknown>;
}

export class AuditListResponse {
  @ApiProperty({ type: [AuditEntryResponse] }) items: AuditEntryResponse[];
}

export class ClusterDetailResponse extends ClusterResponse {
  @ApiProperty({ type: [AuditEntryResponse], description: 'The 20 most recent audit rows of this cluster.' }) audit: AuditEntryResponse[];
}

export class PolicyChangeResponse extends ClusterResponse {
  @ApiProperty({ description: 'Pages re-decided after the write.' }) reconciled: { scanned: number; nowIncluded: number; nowExcluded: number };
}

export class PendingClusterResponse {
  @ApiProperty() cluster: string;
  @ApiProperty() pages: number;
}

export class PendingListResponse {
  @ApiProperty({ type: [PendingClusterResponse] }) items: PendingClusterResponse[];
}

export class ExplainResponse {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: [String] }) clusters: string[];
  @ApiProperty() included: boolean;
  @ApiProperty({ enum: ['page_in_trash', 'system_page', 'page_override', 'cluster_policy', 'default'] }) reason: string;
  @ApiProperty({ example: 'excluded: cluster `personal` has policy exclude, set by ada on 2026-01-02 ("private notes")' }) explanation: string;
  @ApiProperty({ nullable: true, type: String, description: 'The cluster whose policy row decided.' }) policyCluster: string | null;
  @ApiProperty({ description: 'kg_excluded_pages agrees with this decision (false only while a reconciliation is running).' }) reconciled: boolean;
}

export class VisibilityChangeResponse {
  @ApiProperty({ enum: ['pages', 'chunks', 'mentions', 'proposals', 'nodes', 'edges'] }) kind: string;
  @ApiProperty() hide: number;
  @ApiProperty() reveal: number;
}

export class EstimateResponse {
  @ApiProperty() cluster: string;
  @ApiProperty({ enum: ESTIMATE_ACTIONS }) action: string;
  @ApiProperty({ nullable: true, type: String }) currentAction: string | null;
  @ApiProperty({ type: [VisibilityChangeResponse] }) changes: VisibilityChangeResponse[];
  @ApiProperty({ example: 'would hide 12 pages, 40 chunks, 3 proposals, 2 nodes and 1 edge; reveal nothing' }) summary: string;
}

export class PurgeCountResponse {
  @ApiProperty() table: string;
  @ApiProperty() rows: number;
}

export class PurgeResponse {
  @ApiProperty() cluster: string;
  @ApiProperty() dryRun: boolean;
  @ApiProperty({ description: 'Excluded pages of the cluster whose derived rows go.' }) pages: number;
  @ApiProperty({ description: 'Pages of the cluster that are included (kg_include: true, or a sub-cluster included): kept.' }) includedPagesKept: number;
  @ApiProperty({ type: [PurgeCountResponse] }) deleted: PurgeCountResponse[];
  @ApiProperty() summary: string;
}

export class BootstrapResponse {
  @ApiProperty({ type: [ClusterResponse] }) items: ClusterResponse[];
}
