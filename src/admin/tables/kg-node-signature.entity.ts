import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { KgNodeEntity } from '../../kg-tables/kg-node.entity.js';

export const NODE_SIGNATURE_REASONS = ['renamed', 'merged', 'approved_as'] as const;
export type NodeSignatureReason = (typeof NODE_SIGNATURE_REASONS)[number];

/** A signature that leads to a node besides its own (an old name, a merged entity, a proposal approved under another name). */
@Entity('kg_node_signatures')
@Index('kg_node_signatures_node_idx', ['nodeId'])
@Check('kg_node_signatures_reason_check', `reason IN (${NODE_SIGNATURE_REASONS.map((r) => `'${r}'`).join(', ')})`)
export class KgNodeSignatureEntity {
  @PrimaryColumn('text')
  signature: string;

  @Column('bigint', { name: 'node_id' })
  nodeId: string;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'node_id', foreignKeyConstraintName: 'kg_node_signatures_node_id_fkey' })
  node?: KgNodeEntity;

  @Column('text')
  reason: NodeSignatureReason;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
