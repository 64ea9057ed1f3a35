import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { TriageActionDto } from './dto/review.dto.js';
import { TRIAGE_GROUPS, TriageService } from './triage.service.js';

const GROUP = { name: 'group', enum: TRIAGE_GROUPS, description: 'A triage group.' };

/** Triage of the review queue as JSON (admins only): groups, their previews (dry runs), and their one action each. */
@ApiTags('knowledge-graph review')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph/triage')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class TriageApiController {
  constructor(private readonly triage: TriageService) {}

  @Get()
  @ApiOperation({
    summary: 'The pending proposals grouped by reason: same as an approved entity, typed relation between approved entities, relations the wiki’s own links state, likely noise (generic word)',
    description: 'Each group with its count, why its proposals are together and what its one action does. A proposal is in the first group that takes it.',
  })
  @ApiOkResponse({ description: '[{id, label, why, action, actionLabel, count, capped}]' })
  groups() {
    return this.triage.groups();
  }

  @Get(':group')
  @ApiOperation({ summary: 'A group’s dry run: every proposal its action would take (up to 1,000), and what it would change for each' })
  @ApiParam(GROUP)
  @ApiOkResponse({ description: '{id, label, why, action, count, capped, items: [{proposalId, kind, label, confidence, change, intoEntityId}]}' })
  @ApiNotFoundResponse({ description: 'No such group.' })
  preview(@Param('group') group: string) {
    return this.triage.preview(group);
  }

  @Post(':group')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Runs a group’s action on the proposals its preview listed (or, with dryRun, previews exactly those)',
    description: 'One transaction, one undoable bulk action (POST /admin/knowledge-graph/audit/:id/undo), audited as kg.proposal.bulk_approve or bulk_reject. Proposals no longer in the group are skipped and listed.',
  })
  @ApiParam(GROUP)
  @ApiOkResponse({ description: 'The action: {group, actionId, status, summary, items, skipped}; a dry run: the preview of those ids.' })
  @ApiBadRequestResponse({ description: 'No ids, or more than 1,000.' })
  @ApiNotFoundResponse({ description: 'No such group.' })
  act(@Param('group') group: string, @Body() dto: TriageActionDto, @Origin() origin: RequestOrigin) {
    if (dto.dryRun) return this.triage.preview(group, dto.ids);
    return this.triage.apply(group, dto.ids, dto.note ?? null, origin);
  }
}
