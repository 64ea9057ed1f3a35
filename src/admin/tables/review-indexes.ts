import { Index } from 'typeorm';
import { KgNodeEntity } from '../../kg-tables/kg-node.entity.js';
import { KgProposalEntity } from '../../kg-tables/kg-proposal.entity.js';

/**
 * migrations/0005_review.sql adds indexes to two tables the kg module describes. TypeORM drops indexes an entity
 * does not declare (the schema-drift test would flag them), so they are declared here, left alone (synchronize:
 * false), beside the review code that needs them rather than in the kg module's entity files.
 */
export const REVIEW_INDEXES = {
  kg_proposals: [
    'kg_proposals_queue_confidence_idx', 'kg_proposals_queue_support_idx', 'kg_proposals_queue_age_idx',
    'kg_proposals_queue_type_idx', 'kg_proposals_queue_predicate_idx', 'kg_proposals_pending_source_idx',
    'kg_proposals_pending_target_idx',
  ],
  kg_nodes: ['kg_nodes_lower_name_idx', 'kg_nodes_name_trgm_idx', 'kg_nodes_type_idx'],
} as const;

for (const name of REVIEW_INDEXES.kg_proposals) Index(name, { synchronize: false })(KgProposalEntity);
for (const name of REVIEW_INDEXES.kg_nodes) Index(name, { synchronize: false })(KgNodeEntity);
