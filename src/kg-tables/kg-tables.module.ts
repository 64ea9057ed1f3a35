import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KgContentChunkEntity } from './kg-content-chunk.entity.js';
import { KgEdgeEntity } from './kg-edge.entity.js';
import { KgExtractionFailureEntity } from './kg-extraction-failure.entity.js';
import { KgMentionEntity } from './kg-mention.entity.js';
import { KgNodeEmbeddingEntity } from './kg-node-embedding.entity.js';
import { KgNodeEntity } from './kg-node.entity.js';
import { KgPageExtractionEntity } from './kg-page-extraction.entity.js';
import { KgProposalSupportEntity } from './kg-proposal-support.entity.js';
import { KgProposalEntity } from './kg-proposal.entity.js';
import { KgEdgeProvenanceEntity, KgNodeProvenanceEntity } from './kg-provenance.entity.js';
import { KgRejectionEntity } from './kg-rejection.entity.js';

export const KG_ENTITIES = [
  KgContentChunkEntity, KgProposalEntity, KgProposalSupportEntity, KgNodeEntity, KgNodeEmbeddingEntity, KgEdgeEntity,
  KgNodeProvenanceEntity, KgEdgeProvenanceEntity, KgMentionEntity, KgRejectionEntity, KgPageExtractionEntity, KgExtractionFailureEntity,
];

/** The knowledge-graph tables (migrations/0003_knowledge_graph.sql, 0004_extraction.sql) as entities; the kg feature module builds on it. */
@Module({
  imports: [TypeOrmModule.forFeature(KG_ENTITIES)],
  exports: [TypeOrmModule],
})
export class KgTablesModule {}
