import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { KgTablesModule } from '../kg-tables/kg-tables.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { ClusterPolicyRepository } from './cluster-policy.repository.js';
import { ExcludedPagesRepository } from './excluded-pages.repository.js';
import { KgClusterPolicyEntity } from './kg-cluster-policy.entity.js';
import { KgDerivationRepository } from './kg-derivation.repository.js';
import { KgExcludedPageEntity } from './kg-excluded-page.entity.js';
import { KgHealthPanel } from './kg-health-panel.js';
import { KgPolicyApiController } from './kg-policy.api.controller.js';
import { KgPolicyAuditEntity } from './kg-policy-audit.entity.js';
import { KgPolicyWebController } from './kg-policy.web.controller.js';
import { PolicyImpactService } from './policy-impact.service.js';
import { PolicyReconciler } from './policy-reconciler.service.js';
import { PolicyService } from './policy.service.js';

/**
 * Which pages may feed the knowledge graph: cluster policies, the per-page decision, kg_excluded_pages, soft exclude
 * (the kg_visible_* views) and hard exclude (purge). PagesModule is imported for PageSaveHooks only; the policy
 * reads the pages table in its own repositories (read-only, set-based) rather than page by page through PagesService.
 */
@Module({
  imports: [TypeOrmModule.forFeature([KgClusterPolicyEntity, KgPolicyAuditEntity, KgExcludedPageEntity]), KgTablesModule, PagesModule, AuditModule],
  controllers: [KgPolicyApiController, KgPolicyWebController],
  providers: [ClusterPolicyRepository, ExcludedPagesRepository, KgDerivationRepository, PolicyReconciler, PolicyService, PolicyImpactService, KgHealthPanel],
  exports: [PolicyService, PolicyReconciler, PolicyImpactService, KgHealthPanel],
})
export class PolicyModule {}
