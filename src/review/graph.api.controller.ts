import { Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOperation, ApiParam, ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { GapsQueryDto, ReviewAuditQueryDto } from './dto/review.dto.js';
import { EntityPagesService } from '../curation/entity-pages.service.js';
import { ReviewIdPipe } from '../admin/review-id.pipe.js';
import { ReviewJobsService } from '../admin/review-jobs.service.js';
import { ReviewSchemaService } from './review-schema.service.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { UndoService } from '../curation/undo.service.js';

/** The knowledge graph's schema, review audit trail and undo, extraction jobs, content gaps (JSON, admins only). */
@ApiTags('knowledge-graph')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class GraphApiController {
  constructor(
    private readonly schema: ReviewSchemaService,
    private readonly undo: UndoService,
    private readonly pages: EntityPagesService,
    private readonly jobs: ReviewJobsService,
  ) {}

  @Get('schema')
  @ApiOperation({ summary: 'The closed vocabularies: entity types and predicates, with how many entities, edges and pending proposals use each' })
  getSchema() {
    return this.schema.describe();
  }

  @Get('audit')
  @ApiOperation({ summary: 'Review actions, newest first (keyset: before=<id>), each with whether it can be undone' })
  async audit(@Query() q: ReviewAuditQueryDto) {
    const limit = q.limit ?? 50;
    const items = await this.undo.list({ beforeId: q.before, limit });
    return { items, nextBefore: items.length === limit ? items.at(-1)!.id : null };
  }

  @Get('audit/:id')
  @ApiOperation({ summary: 'One review action and its journal (the before- and after-image of each row it touched; first 200)' })
  @ApiParam({ name: 'id', description: 'A review action id.' })
  @ApiNotFoundResponse({ description: 'No such action.' })
  auditEntry(@Param('id', ReviewIdPipe) id: string) {
    return this.undo.get(id);
  }

  @Post('audit/:id/undo')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Undoes a review action (approve, reject, edit, delete, merge, bulk, import… or an undo: that redoes)',
    description: 'Restores exactly the rows that were there. Refused (409) when a row it touched changed since; the answer names the later actions to undo first.',
  })
  @ApiParam({ name: 'id', description: 'A review action id.' })
  @ApiConflictResponse({ description: 'Already undone, or rows changed since.' })
  undoAction(@Param('id', ReviewIdPipe) id: string, @Origin() origin: RequestOrigin) {
    return this.undo.undo(id, origin);
  }

  @Get('jobs')
  @ApiOperation({ summary: 'Extraction jobs: counts per state and queue, recent permanent failures' })
  jobsStatus() {
    return this.jobs.status();
  }

  @Post('jobs/retry-failed')
  @HttpCode(200)
  @ApiOperation({ summary: 'Queues every permanently failed extraction job again' })
  @ApiConflictResponse({ description: 'No extraction job service in this server.' })
  retryFailed(@Origin() origin: RequestOrigin) {
    return this.jobs.retryFailed(origin);
  }

  @Get('gaps')
  @ApiOperation({ summary: 'Pages worth writing: entities mentioned on several pages without a page of their own, beside the Page Graph’s wanted pages' })
  gaps(@Query() q: GapsQueryDto) {
    return this.pages.contentGaps(q.minPages ?? 2, q.limit ?? 100);
  }
}
