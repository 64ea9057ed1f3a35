import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import {
  ExtractProgressResponse, ExtractRequestDto, ExtractResponse, ExtractionFailureListResponse, FailuresQueryDto, KgStatusResponse, RetryFailedResponse,
} from './dto/kg-admin.dto.js';
import { KgJobsService } from './kg-jobs.service.js';

/** Extraction for admins: status, estimates, enqueueing and failures (what `kurate kg …` calls). */
@ApiTags('kg-extraction')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('api/admin/kg')
@Access('admin')
export class KgAdminApiController {
  constructor(private readonly jobs: KgJobsService) {}

  @Get('status')
  @ApiOperation({ summary: 'Extraction jobs (queued, running, failed) per queue and per backend, pages, proposals and permanent failures' })
  @ApiOkResponse({ type: KgStatusResponse })
  status(): Promise<KgStatusResponse> {
    return this.jobs.status();
  }

  @Post('extract')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Estimates (dryRun: true) or enqueues extraction of every included page, a cluster, or one page',
    description: 'Only pages that are new or changed since their last extraction are enqueued; only their new chunks cost a call.',
  })
  @ApiOkResponse({ type: ExtractResponse })
  @ApiBadRequestResponse({ description: 'Not exactly one of all, cluster and page; or a malformed cluster or slug.' })
  @ApiNotFoundResponse({ description: 'No such page, or no page has the cluster.' })
  @ApiConflictResponse({ description: 'The page is excluded by the inclusion policy.' })
  extract(@Body() dto: ExtractRequestDto): Promise<ExtractResponse> {
    return this.jobs.extract(dto);
  }

  @Get('extract/:requestId')
  @ApiOperation({ summary: 'Progress of the jobs one extract request enqueued' })
  @ApiOkResponse({ type: ExtractProgressResponse })
  @ApiBadRequestResponse({ description: 'Not a request id (a UUID).' })
  progress(@Param('requestId', new ParseUUIDPipe()) requestId: string): Promise<ExtractProgressResponse> {
    return this.jobs.progress(requestId);
  }

  @Get('failures')
  @ApiOperation({ summary: 'Extraction jobs that failed for good (not resolved by a later extraction), newest first, with the reason' })
  @ApiOkResponse({ type: ExtractionFailureListResponse })
  async failures(@Query() query: FailuresQueryDto): Promise<ExtractionFailureListResponse> {
    return { items: await this.jobs.failures(query.limit ?? 50) };
  }

  @Post('failures/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Enqueues the pages of permanent failures again (those still included)' })
  @ApiOkResponse({ type: RetryFailedResponse })
  async retryFailures(): Promise<RetryFailedResponse> {
    return { retried: await this.jobs.retryFailed() };
  }
}
