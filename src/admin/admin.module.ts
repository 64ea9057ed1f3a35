import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { AuditApiController } from './audit.api.controller.js';
import { AuditWebController } from './audit.web.controller.js';
import { CurationWritesRepository } from './curation-writes.repository.js';
import { ReviewJobsService } from './review-jobs.service.js';
import { ReviewJournalRepository } from './review-journal.repository.js';
import { ReviewWritesRepository } from './review-writes.repository.js';
import { KgNodeSignatureEntity } from './tables/kg-node-signature.entity.js';
import { KgReviewActionEntity } from './tables/kg-review-action.entity.js';
import { KgReviewJournalEntity } from './tables/kg-review-journal.entity.js';
import './tables/review-indexes.js';

/**
 * What the admin screens share. The knowledge graph's three admin areas build on it: review (src/review), curation
 * (src/curation) and graph transfer (src/graph-transfer), each a module of its own. Here: the review journal every
 * change to the graph is written to and undone from (kg_review_actions, kg_review_journal), the journaled writes
 * that approving and curating share, the extraction jobs' status (from the optional EXTRACTION_JOBS_HOOK), and the
 * audit log's screens (/admin/audit, /api/admin/audit).
 */
@Module({
  imports: [TypeOrmModule.forFeature([KgReviewActionEntity, KgReviewJournalEntity, KgNodeSignatureEntity]), KgTablesModule, AuditModule],
  controllers: [AuditApiController, AuditWebController],
  providers: [ReviewJournalRepository, ReviewWritesRepository, CurationWritesRepository, ReviewJobsService],
  exports: [ReviewJournalRepository, ReviewWritesRepository, CurationWritesRepository, ReviewJobsService],
})
export class AdminModule {}
