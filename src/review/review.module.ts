import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { CurationModule } from '../curation/curation.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { GraphApiController } from './graph.api.controller.js';
import { KgReviewWebController } from './kg-review.web.controller.js';
import { ProposalsApiController } from './proposals.api.controller.js';
import { ProposalsRepository } from './proposals.repository.js';
import { ReviewMetrics } from './review-metrics.js';
import { RejectionsApiController } from './rejections.api.controller.js';
import { ReviewQueueService } from './review-queue.service.js';
import { ReviewSchemaService } from './review-schema.service.js';
import { ReviewService } from './review.service.js';
import { TriageApiController } from './triage.api.controller.js';
import { TriageRepository } from './triage.repository.js';
import { TriageService } from './triage.service.js';
import { CalibrationApiController } from './calibration.api.controller.js';

/**
 * The review queue: proposals listed, approved (as they are or edited), rejected, reopened, one by one or in bulk,
 * with the keyboard; remembered rejections; the review history (the journal) with undo; the schema; content gaps.
 * HTML at /admin/knowledge-graph and /admin/knowledge-graph/ui/*, JSON elsewhere under the prefix (docs/review.md).
 */
@Module({
  imports: [AdminModule, CurationModule, KgTablesModule, AuditModule],
  controllers: [ProposalsApiController, RejectionsApiController, GraphApiController, TriageApiController, CalibrationApiController, KgReviewWebController],
  providers: [ProposalsRepository, ReviewQueueService, ReviewService, ReviewSchemaService, ReviewMetrics, TriageRepository, TriageService],
  exports: [ReviewService, ReviewQueueService, ReviewSchemaService],
})
export class ReviewModule {}
