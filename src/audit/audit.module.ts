import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditApiController } from '../admin/audit.api.controller.js';
import { AuditEntryEntity } from './audit-entry.entity.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { AuditWebController } from '../admin/audit.web.controller.js';

/** The append-only audit log: AuditService.record() for every module, and /admin/audit + /api/admin/audit to read it. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  controllers: [AuditApiController, AuditWebController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
