import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { CheckReportResponse, RepairReportResponse } from './dto/kg-check.dto.js';
import { KgConsistencyService } from './kg-consistency.service.js';

/** The consistency checker as JSON, for monitoring and `kurate kg check` (admins only). */
@ApiTags('kg-policy')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/kg-policy/health')
@Access('admin')
export class KgCheckApiController {
  constructor(private readonly checker: KgConsistencyService) {}

  @Get()
  @ApiOperation({ summary: 'Checks every invariant of the knowledge graph (read-only): per invariant, how many rows break it and a few examples' })
  @ApiOkResponse({ type: CheckReportResponse })
  check(): Promise<CheckReportResponse> {
    return this.checker.check();
  }

  @Post('repair')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Repairs what can be repaired safely (counts, unsupported pending proposals, mentions named by a variant, co-mentions; re-extraction and re-embedding enqueued), in one audited transaction',
    description: 'Never deletes approved knowledge. Answers the check before, what was done, and the check right after.',
  })
  @ApiOkResponse({ type: RepairReportResponse })
  repair(@Origin() origin: RequestOrigin): Promise<RepairReportResponse> {
    return this.checker.repair(origin);
  }
}
