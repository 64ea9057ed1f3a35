import { Body, Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation,
  ApiParam, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ApproveDto, BulkDto, EditApproveDto, ProposalListQueryDto, RejectDto } from './dto/review.dto.js';
import { ReviewIdPipe } from '../admin/review-id.pipe.js';
import { ReviewQueueService } from './review-queue.service.js';
import { ReviewService } from './review.service.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';

const ID = { name: 'id', description: 'A proposal id.' };
const CONFLICT = 'Already reviewed by someone else (body: status, reviewedBy, reviewedAt), or an edge whose endpoint is missing or rejected.';

/**
 * The review queue as JSON (admins only). HTML lives beside it at GET /admin/knowledge-graph and
 * /admin/knowledge-graph/ui/* (kg-review.web.controller.ts); everything else under the prefix is JSON.
 */
@ApiTags('knowledge-graph review')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph/proposals')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class ProposalsApiController {
  constructor(
    private readonly queue: ReviewQueueService,
    private readonly review: ReviewService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The review queue: filtered, sorted, keyset-paginated (pass nextCursor as `after`, prevCursor as `before`)',
    description: 'Each proposal comes with its best evidence (quote highlighted in its chunk, heading, link), every supporting page, its endpoints (edges) and possible duplicates (nodes).',
  })
  @ApiOkResponse({ description: '{items, total, capped, nextCursor, prevCursor, sort, direction}' })
  @ApiBadRequestResponse({ description: 'A filter outside the vocabulary, or a cursor from another sort.' })
  list(@Query() q: ProposalListQueryDto) {
    const { sort, direction, after, before, limit, ...filter } = q;
    return this.queue.list({ filter, sort, direction, after, before, limit: limit ?? 50 });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One proposal with all its evidence, endpoints, and possible duplicates (same name, similar name, close embedding)' })
  @ApiParam(ID)
  @ApiNotFoundResponse({ description: 'No such proposal, or only excluded pages support it.' })
  get(@Param('id', ReviewIdPipe) id: string) {
    return this.queue.get(id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approves as proposed: a node becomes an entity (with provenance and its mentions); an edge, with its pending endpoints' })
  @ApiParam(ID)
  @ApiConflictResponse({ description: CONFLICT })
  approve(@Param('id', ReviewIdPipe) id: string, @Body() dto: ApproveDto, @Origin() origin: RequestOrigin) {
    return this.review.approve(id, {}, dto.note ?? null, origin);
  }

  @Post(':id/edit-approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Edits, then approves: rename, change type, approve into an existing entity; change predicate, swap direction' })
  @ApiParam(ID)
  @ApiConflictResponse({ description: CONFLICT })
  editApprove(@Param('id', ReviewIdPipe) id: string, @Body() dto: EditApproveDto, @Origin() origin: RequestOrigin) {
    const { note, ...edits } = dto;
    return this.review.approve(id, edits, note ?? null, origin);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rejects, with an optional reason; the signature is remembered (kg_rejections) and not proposed again' })
  @ApiParam(ID)
  @ApiConflictResponse({ description: CONFLICT })
  reject(@Param('id', ReviewIdPipe) id: string, @Body() dto: RejectDto, @Origin() origin: RequestOrigin) {
    return this.review.reject(id, dto.reason ?? null, origin);
  }

  @Post(':id/reopen')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Takes a rejection back: the proposal is pending again (retired if no page supports it any more) and its signature may be proposed again',
    description: 'One undoable action, in the audit trail like approve and reject.',
  })
  @ApiParam(ID)
  @ApiConflictResponse({ description: 'The proposal is not rejected, or another pending proposal has its signature.' })
  reopen(@Param('id', ReviewIdPipe) id: string, @Origin() origin: RequestOrigin) {
    return this.review.reopen(id, origin);
  }

  @Post('bulk')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approves or rejects a selection (ids), or every pending proposal matching a filter at or above minConfidence',
    description: 'One transaction and one undoable action; proposals already reviewed meanwhile are skipped and listed. At most `limit` (default 1,000, max 5,000) per request.',
  })
  @ApiBadRequestResponse({ description: 'Neither ids nor minConfidence, or more ids than the limit.' })
  bulk(@Body() dto: BulkDto, @Origin() origin: RequestOrigin) {
    return this.review.bulk(dto, origin);
  }
}
