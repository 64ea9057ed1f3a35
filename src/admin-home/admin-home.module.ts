import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { ConsistencyModule } from '../consistency/consistency.module.js';
import { KgModule } from '../kg/kg.module.js';
import { PolicyModule } from '../policy/policy.module.js';
import { AdminHomeService } from './admin-home.service.js';
import { AdminHomeWebController } from './admin-home.web.controller.js';

/** The admin home (/admin), composed from the rooms below it; nothing imports it but the app. */
@Module({
  imports: [AuditModule, PolicyModule, KgModule, ConsistencyModule],
  controllers: [AdminHomeWebController],
  providers: [AdminHomeService],
})
export class AdminHomeModule {}
