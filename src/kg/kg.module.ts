import { Global, Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { LlmModule } from '../llm/llm.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { PolicyModule } from '../policy/policy.module.js';
import { KgAdminApiController } from './kg-admin.api.controller.js';
import { KgCalibrationRepository } from './kg-calibration.repository.js';
import { KgCalibrationService } from './kg-calibration.service.js';
import { KgEmbeddingRepository } from './kg-embedding.repository.js';
import { KgEmbeddingService } from './kg-embedding.service.js';
import { KgExtractionQueue } from './kg-extraction-queue.service.js';
import { KgExtractionRepository } from './kg-extraction.repository.js';
import { KgJobsService } from './kg-jobs.service.js';
import { KgPlanningRepository } from './kg-planning.repository.js';
import { KG_REVIEW_HOOK_PROVIDERS } from './kg-review-hooks.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { PageExtractionService } from './page-extraction.service.js';

/**
 * Extraction: chunks, proposals, mentions, co-mentions and embeddings, from the pages the policy includes, in
 * background jobs (docs/extraction.md). Global so that the review module finds the hooks it asks for
 * (NODE_EMBEDDING_HOOK, EXTRACTION_JOBS_HOOK) without importing this module.
 */
@Global()
@Module({
  imports: [KgTablesModule, JobsModule, LlmModule, PagesModule, PolicyModule],
  controllers: [KgAdminApiController],
  providers: [
    KgExtractionRepository, KgPlanningRepository, KgEmbeddingRepository, PageExtractionService, KgEmbeddingService, KgExtractionQueue, KgJobsService,
    KgCalibrationRepository, KgCalibrationService,
    ...KG_REVIEW_HOOK_PROVIDERS,
  ],
  exports: [KgEmbeddingService, KgJobsService, KgExtractionQueue, PageExtractionService, KgCalibrationService, ...KG_REVIEW_HOOK_PROVIDERS.map((p) => (p as { provide: symbol }).provide)],
})
export class KgModule {}
