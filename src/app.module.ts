import { DynamicModule, Module } from '@nestjs/common';
import { AttachmentsModule } from './attachments/attachments.module.js';
import { AdminHomeModule } from './admin-home/admin-home.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { BackupModule } from './backup/backup.module.js';
import { ConfigModule } from './config/config.module.js';
import { ConsistencyModule } from './consistency/consistency.module.js';
import { CurationModule } from './curation/curation.module.js';
import type { KurateConfig } from './config/kurate-config.js';
import { DatabaseModule } from './db/database.module.js';
import { EntitiesModule } from './entities/entities.module.js';
import { GraphTransferModule } from './graph-transfer/graph-transfer.module.js';
import { HealthModule } from './health/health.module.js';
import { KgModule } from './kg/kg.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PagesModule } from './pages/pages.module.js';
import { PolicyModule } from './policy/policy.module.js';
import { ReviewModule } from './review/review.module.js';
import { SearchModule } from './search/search.module.js';

@Module({})
export class AppModule {
  static forRoot(config: KurateConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, AuditModule, AuthModule, MetricsModule, HealthModule, PagesModule, PolicyModule, KgModule, AttachmentsModule, ConsistencyModule, SearchModule, ReviewModule, CurationModule, GraphTransferModule, EntitiesModule, McpModule, AdminHomeModule, BackupModule],
    };
  }
}
