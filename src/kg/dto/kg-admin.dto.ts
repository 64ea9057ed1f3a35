import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { toBoolean, toNumber } from '../../common/dto-transforms.js';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Exactly one of all, cluster and page says what to extract (checked by the service, with a sentence). */
export class ExtractRequestDto {
  @ApiPropertyOptional({ description: 'Every included page.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'all must be true or false' })
  all?: boolean;

  @ApiPropertyOptional({ example: 'user/features', description: 'The included pages of this cluster and its sub-clusters.' })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MaxLength(250)
  cluster?: string;

  @ApiPropertyOptional({ example: 'getting-started', description: 'One page, by slug (it must be included).' })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MaxLength(250)
  @Matches(/^[^\s/?#]+$/, { message: 'page must be a page slug, e.g. getting-started' })
  page?: string;

  @ApiPropertyOptional({ default: false, description: 'true: only estimate (pages and extraction calls); nothing is enqueued.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;
}

export class FailuresQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 50 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(1000)
  limit?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses (documented for OpenAPI; the services build plain objects of these shapes).
// ---------------------------------------------------------------------------------------------------------------

export class ExtractResponse {
  @ApiProperty({ enum: ['all', 'cluster', 'page'] }) scope: string;
  @ApiProperty({ nullable: true, type: String, description: 'The cluster or page slug.' }) target: string | null;
  @ApiProperty() dryRun: boolean;
  @ApiProperty({ enum: ['builtin', 'ollama', 'anthropic'] }) backend: string;
  @ApiProperty() model: string;
  @ApiProperty({ description: 'Live pages in scope.' }) pages: number;
  @ApiProperty() includedPages: number;
  @ApiProperty({ description: 'In scope but excluded by the inclusion policy: never extracted.' }) excludedPages: number;
  @ApiProperty({ description: 'Included pages that are new or changed since their last extraction.' }) pagesToExtract: number;
  @ApiProperty() upToDatePages: number;
  @ApiProperty({ description: 'Chunks of the pages to extract.' }) chunks: number;
  @ApiProperty({ description: 'Of those, chunks whose content is new: one extraction call each (the estimate).' }) estimatedCalls: number;
  @ApiProperty({ nullable: true, type: String, description: 'Follow the jobs at GET /api/admin/kg/extract/{requestId}.' }) requestId: string | null;
  @ApiProperty({ description: 'Jobs enqueued by this request.' }) enqueued: number;
  @ApiProperty({ description: 'Pages that already had a job waiting or running (not enqueued twice).' }) alreadyQueued: number;
  @ApiProperty({ example: 'About 37 extraction calls (builtin) for 12 of 86 pages; 74 are up to date.' }) summary: string;
}

export class ExtractProgressResponse {
  @ApiProperty() requestId: string;
  @ApiProperty() total: number;
  @ApiProperty() queued: number;
  @ApiProperty() retrying: number;
  @ApiProperty() running: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
  @ApiProperty({ description: 'No job of the request is waiting or running any more.' }) done: boolean;
}

export class JobCountsResponse {
  @ApiProperty() queued: number;
  @ApiProperty() retrying: number;
  @ApiProperty() running: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
}

export class QueueStatusResponse extends JobCountsResponse {
  @ApiProperty({ example: 'kg-extract-page' }) queue: string;
}

export class BackendStatusResponse extends JobCountsResponse {
  @ApiProperty({ example: 'ollama' }) backend: string;
  @ApiProperty({ description: 'Pages whose last extraction used this backend.' }) pagesExtracted: number;
  @ApiProperty({ description: 'Extraction calls those extractions made.' }) calls: number;
}

export class BackendConfigResponse {
  @ApiProperty() extractor: string;
  @ApiProperty() model: string;
  @ApiProperty() embedder: string;
  @ApiProperty() embeddingModel: string;
  @ApiProperty({ description: 'KURATE_EXTRACT_CONCURRENCY' }) concurrency: number;
  @ApiProperty({ description: 'KURATE_EXTRACT_RATE_PER_MINUTE (0: no limit)' }) ratePerMinute: number;
  @ApiProperty({ description: 'KURATE_KG_CONFIDENCE_THRESHOLD' }) confidenceThreshold: number;
}

export class ExtractionFailureResponse {
  @ApiProperty() id: string;
  @ApiProperty() pageId: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() jobId: string;
  @ApiProperty() backend: string;
  @ApiProperty({ nullable: true, type: String }) model: string | null;
  @ApiProperty({ example: 'Ollama answered 500: model runner crashed' }) reason: string;
  @ApiProperty() attempts: number;
  @ApiProperty() failedAt: Date;
}

export class ExtractionFailureListResponse {
  @ApiProperty({ type: [ExtractionFailureResponse] }) items: ExtractionFailureResponse[];
}

export class ExtractionPagesResponse {
  @ApiProperty({ description: 'Live pages the policy includes.' }) included: number;
  @ApiProperty({ description: 'Of those, pages with an extraction record.' }) extracted: number;
  @ApiProperty({ description: 'Extracted pages saved since (most changes need a new extraction).' }) changedSinceExtraction: number;
  @ApiProperty({ description: 'Included pages never extracted.' }) neverExtracted: number;
}

export class ProposalCountsResponse {
  @ApiProperty() pending: number;
  @ApiProperty() approved: number;
  @ApiProperty() rejected: number;
  @ApiProperty() retired: number;
}

export class KgStatusResponse {
  @ApiProperty({ type: BackendConfigResponse }) backend: BackendConfigResponse;
  @ApiProperty({ enum: ['web', 'worker', 'all'], description: 'KURATE_ROLE of the process that answered.' }) role: string;
  @ApiProperty({ description: 'Jobs the answering process is running (a web process runs none).' }) runningHere: number;
  @ApiProperty({ type: [QueueStatusResponse] }) queues: QueueStatusResponse[];
  @ApiProperty({ type: [BackendStatusResponse] }) backends: BackendStatusResponse[];
  @ApiProperty({ type: ExtractionPagesResponse }) pages: ExtractionPagesResponse;
  @ApiProperty({ type: ProposalCountsResponse }) proposals: ProposalCountsResponse;
  @ApiProperty({ description: 'Permanent failures not resolved by a later extraction.' }) openFailures: number;
  @ApiProperty({ type: [ExtractionFailureResponse], description: 'The 20 most recent of them.' }) failures: ExtractionFailureResponse[];
}

export class RetryFailedResponse {
  @ApiProperty({ description: 'Pages enqueued again.' }) retried: number;
}
