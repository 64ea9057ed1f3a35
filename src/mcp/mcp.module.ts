import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { CurationModule } from '../curation/curation.module.js';
import { GraphTransferModule } from '../graph-transfer/graph-transfer.module.js';
import { KgModule } from '../kg/kg.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { PolicyModule } from '../policy/policy.module.js';
import { ReviewModule } from '../review/review.module.js';
import { SearchModule } from '../search/search.module.js';
import { AdminTools } from './admin-tools.js';
import { AgentReadsRepository } from './agent-reads.repository.js';
import { KnowledgeTools } from './knowledge-tools.js';
import { McpController } from './mcp.controller.js';

/** /knowledge-mcp and /admin-mcp: the MCP servers for agents, over the services the web UI uses (docs/mcp.md). */
@Module({
  imports: [PagesModule, SearchModule, KgModule, ReviewModule, CurationModule, GraphTransferModule, PolicyModule, AuditModule],
  controllers: [McpController],
  providers: [KnowledgeTools, AdminTools, AgentReadsRepository],
})
export class McpModule {}
