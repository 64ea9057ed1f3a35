import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ForgetRejectionDto, RejectionListQueryDto } from './dto/review.dto.js';
import { ProposalsRepository } from './proposals.repository.js';
import { ReviewService } from './review.service.js';

/** The signatures extraction will not propose again (kg_rejections), and taking one back (admins only). */
@ApiTags('knowledge-graph review')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph/rejections')
@Access('admin')
export class RejectionsApiController {
  constructor(
    private readonly proposals: ProposalsRepository,
    private readonly review: ReviewService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Remembered rejections, newest first, each with the latest rejected proposal of its signature' })
  @ApiOkResponse({ description: '{items: [{kind, signature, reason, rejectedBy, rejectedAt, proposalId, label}], total}' })
  @ApiBadRequestResponse({ description: 'A kind other than node or edge, or a bad limit or offset.' })
  list(@Query() q: RejectionListQueryDto) {
    return this.proposals.rejections(q.kind, q.limit ?? 50, q.offset ?? 0);
  }

  @Post('forget')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Forgets a rejected signature, so extraction may propose it again (e.g. one rejected when an entity was deleted)',
    description: 'One undoable action. A rejected proposal is better reopened (POST /admin/knowledge-graph/proposals/:id/reopen): that also puts it back in the queue.',
  })
  @ApiNotFoundResponse({ description: 'No rejection of that kind and signature.' })
  forget(@Body() dto: ForgetRejectionDto, @Origin() origin: RequestOrigin) {
    return this.review.forgetRejection(dto.kind, dto.signature, origin);
  }
}
