import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { pager } from '../web/pager.js';
import { AuditQueryDto, auditRange } from './audit.dto.js';
import { AuditService } from '../audit/audit.service.js';

const ROWS_PER_PAGE = 50;

/** /admin/audit: the audit log for admins, filterable by actor, action and date. */
@ApiExcludeController()
@Controller('admin/audit')
@Access('admin')
export class AuditWebController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  async list(@Query() query: AuditQueryDto, @Res() res: Response) {
    const page = query.page ?? 1;
    const [items, total] = await this.audit.list({ actor: query.actor, action: query.action, ...auditRange(query), limit: ROWS_PER_PAGE, offset: (page - 1) * ROWS_PER_PAGE });
    const filter = { actor: query.actor ?? '', action: query.action ?? '', from: query.from ?? '', to: query.to ?? '' };
    res.render('admin/audit', {
      title: 'Audit log',
      filter,
      filtered: Object.values(filter).some(Boolean),
      total,
      entries: items.map((e) => ({
        at: e.at,
        actorName: e.actorName,
        action: e.action,
        target: e.target,
        details: Object.keys(e.details ?? {}).length > 0 ? JSON.stringify(e.details) : '',
        ip: e.ip,
      })),
      pager: pager('/admin/audit', filter, page, ROWS_PER_PAGE, total),
    });
  }
}
