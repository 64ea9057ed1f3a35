import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { GraphTransferApiController } from './graph-transfer.api.controller.js';
import { GraphTransferRepository } from './graph-transfer.repository.js';
import { GraphTransferService } from './graph-transfer.service.js';
import { GraphTransferWebController } from './graph-transfer.web.controller.js';

/** The approved graph's export (JSON, GraphML) and validated import (as proposals, or approved with a reason). */
@Module({
  imports: [AdminModule, KgTablesModule, AuditModule],
  controllers: [GraphTransferApiController, GraphTransferWebController],
  providers: [GraphTransferRepository, GraphTransferService],
  exports: [GraphTransferService],
})
export class GraphTransferModule {}
