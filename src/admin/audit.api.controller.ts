import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { AuditPageResponse, AuditQueryDto, auditEntryResponse, auditRange } from './audit.dto.js';
import { AuditService } from '../audit/audit.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@Controller('api/admin/audit')
@Access('admin')
export class AuditApiController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({ summary: 'The audit log, newest first, filtered by actor, action and date' })
  @ApiOkResponse({ type: AuditPageResponse })
  async list(@Query() query: AuditQueryDto): Promise<AuditPageResponse> {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? 50;
    const [items, total] = await this.audit.list({ actor: query.actor, action: query.action, ...auditRange(query), limit: perPage, offset: (page - 1) * perPage });
    return { items: items.map(auditEntryResponse), total, page, perPage };
  }
}
