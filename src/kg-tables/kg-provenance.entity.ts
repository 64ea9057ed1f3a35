import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { KgEdgeEntity } from './kg-edge.entity.js';
import { KgNodeEntity } from './kg-node.entity.js';
import { KgProposalEntity } from './kg-proposal.entity.js';

/** An approved proposal a node came from, and who approved it. */
@Entity('kg_node_provenance')
@Index('kg_node_provenance_proposal_idx', ['proposalId'])
export class KgNodeProvenanceEntity {
  @PrimaryColumn('bigint', { name: 'node_id' })
  nodeId: string;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'node_id', foreignKeyConstraintName: 'kg_node_provenance_node_id_fkey' })
  node?: KgNodeEntity;

  @PrimaryColumn('bigint', { name: 'proposal_id' })
  proposalId: string;

  @ManyToOne(() => KgProposalEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proposal_id', foreignKeyConstraintName: 'kg_node_provenance_proposal_id_fkey' })
  proposal?: KgProposalEntity;

  @Column('text', { name: 'approved_by' })
  approvedBy: string;

  @Column('timestamptz', { name: 'approved_at', default: () => 'now()' })
  approvedAt: Date;
}

/** An approved proposal an edge came from, and who approved it. */
@Entity('kg_edge_provenance')
@Index('kg_edge_provenance_proposal_idx', ['proposalId'])
export class KgEdgeProvenanceEntity {
  @PrimaryColumn('bigint', { name: 'edge_id' })
  edgeId: string;

  @ManyToOne(() => KgEdgeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'edge_id', foreignKeyConstraintName: 'kg_edge_provenance_edge_id_fkey' })
  edge?: KgEdgeEntity;

  @PrimaryColumn('bigint', { name: 'proposal_id' })
  proposalId: string;

  @ManyToOne(() => KgProposalEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proposal_id', foreignKeyConstraintName: 'kg_edge_provenance_proposal_id_fkey' })
  proposal?: KgProposalEntity;

  @Column('text', { name: 'approved_by' })
  approvedBy: string;

  @Column('timestamptz', { name: 'approved_at', default: () => 'now()' })
  approvedAt: Date;
}
