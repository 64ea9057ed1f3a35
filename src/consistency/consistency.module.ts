import { Module, type OnModuleInit } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { KgModule } from '../kg/kg.module.js';
import { KgHealthPanel } from '../policy/kg-health-panel.js';
import { PolicyModule } from '../policy/policy.module.js';
import { KgCheckApiController } from './kg-check.api.controller.js';
import { KgCheckWebController } from './kg-check.web.controller.js';
import { KgConsistencyRepository } from './kg-consistency.repository.js';
import { KgConsistencyService } from './kg-consistency.service.js';

/**
 * The consistency checker of the knowledge graph (`kurate kg check`, /admin/kg-policy/health, the health panel of
 * /admin/kg-policy). Above extraction: its repairs enqueue extraction and re-embedding jobs.
 */
@Module({
  imports: [AuditModule, PolicyModule, KgModule],
  controllers: [KgCheckApiController, KgCheckWebController],
  providers: [KgConsistencyRepository, KgConsistencyService],
  exports: [KgConsistencyService],
})
export class ConsistencyModule implements OnModuleInit {
  constructor(
    private readonly panel: KgHealthPanel,
    private readonly checker: KgConsistencyService,
  ) {}

  onModuleInit(): void {
    this.panel.register({ health: () => this.checker.check() });
  }
}
