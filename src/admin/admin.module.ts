import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { CurationWritesRepository } from './curation-writes.repository.js';
import { CurationService } from '../curation/curation.service.js';
import { EntitiesApiController } from '../curation/entities.api.controller.js';
import { EntitiesRepository } from '../curation/entities.repository.js';
import { EntityPagesService } from '../curation/entity-pages.service.js';
import { GraphApiController } from '../review/graph.api.controller.js';
import { GraphTransferRepository } from '../graph-transfer/graph-transfer.repository.js';
import { GraphTransferService } from '../graph-transfer/graph-transfer.service.js';
import { KgEntitiesWebController } from '../curation/kg-entities.web.controller.js';
import { KgReviewWebController } from '../review/kg-review.web.controller.js';
import { ProposalsApiController } from '../review/proposals.api.controller.js';
import { RejectionsApiController } from '../review/rejections.api.controller.js';
import { ProposalsRepository } from '../review/proposals.repository.js';
import { ReviewJobsService } from './review-jobs.service.js';
import { ReviewJournalRepository } from './review-journal.repository.js';
import { ReviewQueueService } from '../review/review-queue.service.js';
import { ReviewSchemaService } from '../review/review-schema.service.js';
import { ReviewWritesRepository } from './review-writes.repository.js';
import { ReviewService } from '../review/review.service.js';
import { KgNodeSignatureEntity } from './tables/kg-node-signature.entity.js';
import { KgReviewActionEntity } from './tables/kg-review-action.entity.js';
import { KgReviewJournalEntity } from './tables/kg-review-journal.entity.js';
import './tables/review-indexes.js';
import { UndoService } from '../curation/undo.service.js';

/**
 * /admin/knowledge-graph: the review queue, curation (entities, edges, merge), undo from the journal, export and
 * import, content gaps. HTML at /admin/knowledge-graph and /admin/knowledge-graph/ui/*, JSON everywhere else under
 * the prefix (docs/review.md). Optional providers from the extraction side: NODE_EMBEDDING_HOOK and
 * EXTRACTION_JOBS_HOOK (review-hooks.ts).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([KgReviewActionEntity, KgReviewJournalEntity, KgNodeSignatureEntity]),
    KgTablesModule,
    PagesModule,
    AuditModule,
  ],
  controllers: [ProposalsApiController, RejectionsApiController, EntitiesApiController, GraphApiController, KgReviewWebController, KgEntitiesWebController],
  providers: [
    ProposalsRepository, ReviewWritesRepository, CurationWritesRepository, EntitiesRepository, GraphTransferRepository, ReviewJournalRepository,
    ReviewQueueService, ReviewService, CurationService, UndoService, EntityPagesService, GraphTransferService, ReviewSchemaService, ReviewJobsService,
  ],
  exports: [ReviewService, CurationService, UndoService, ReviewQueueService, EntityPagesService, ReviewSchemaService, GraphTransferService],
})
export class KgAdminModule {}
