import { Module } from '@nestjs/common';
import { AttachmentsModule } from '../attachments/attachments.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { KgModule } from '../kg/kg.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { PolicyModule } from '../policy/policy.module.js';
import { BackupRepository } from './backup.repository.js';
import { BackupService, RestoreService } from './backup.service.js';

/** Backup and restore of a whole instance (`kurate backup`, `kurate restore`; docs/operations.md). No routes: the commands' entry point is src/backup-command.ts. */
@Module({
  imports: [AuditModule, PagesModule, PolicyModule, KgModule, AttachmentsModule],
  providers: [BackupRepository, BackupService, RestoreService],
  exports: [BackupService, RestoreService],
})
export class BackupModule {}
