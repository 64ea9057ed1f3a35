import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';

/** The append-only audit log: AuditService.record() for every module (the admin module reads it at /admin/audit and /api/admin/audit). */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
