import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { CurationService } from './curation.service.js';
import { EntitiesApiController } from './entities.api.controller.js';
import { EntitiesRepository } from './entities.repository.js';
import { EntityPagesService } from './entity-pages.service.js';
import { KgEntitiesWebController } from './kg-entities.web.controller.js';
import { UndoService } from './undo.service.js';

/**
 * Curation of the approved graph: entities and edges created, edited, deleted, merged and split by hand, and undo
 * of any journaled action (/admin/knowledge-graph/entities…, /admin/knowledge-graph/ui/entities…; docs/review.md).
 */
@Module({
  imports: [AdminModule, KgTablesModule, PagesModule, AuditModule],
  controllers: [EntitiesApiController, KgEntitiesWebController],
  providers: [EntitiesRepository, EntityPagesService, CurationService, UndoService],
  exports: [EntitiesRepository, EntityPagesService, CurationService, UndoService],
})
export class CurationModule {}
