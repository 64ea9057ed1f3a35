import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { KgNodeEntity } from './kg-node.entity.js';
import type { KgOrigin } from './kg-origin.js';

export type KgEdgeKind = 'co_mention' | 'typed';

/** An approved relation between two nodes: typed (from a proposal) or a co-mention (derived from shared chunks). */
@Entity('kg_edges')
@Index('kg_edges_source_target_kind_predicate_key', ['sourceNodeId', 'targetNodeId', 'kind', 'predicate'], { unique: true })
@Index('kg_edges_target_idx', ['targetNodeId'])
@Check('kg_edges_kind_check', "kind IN ('co_mention', 'typed')")
@Check('kg_edges_origin_check', "origin IN ('extracted', 'manual', 'import')")
// A co-mention is an unordered pair, stored from the smaller id to the larger (so (b, a) cannot join (a, b)).
@Check('kg_edges_co_mention_order_check', "kind <> 'co_mention' OR source_node_id < target_node_id")
// No edge joins a node to itself ("B uses B" says nothing; migration 0032).
@Check('kg_edges_no_self_loop_check', 'source_node_id <> target_node_id')
export class KgEdgeEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('bigint', { name: 'source_node_id' })
  sourceNodeId: string;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_node_id', foreignKeyConstraintName: 'kg_edges_source_node_id_fkey' })
  sourceNode?: KgNodeEntity;

  @Column('bigint', { name: 'target_node_id' })
  targetNodeId: string;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_node_id', foreignKeyConstraintName: 'kg_edges_target_node_id_fkey' })
  targetNode?: KgNodeEntity;

  @Column('text')
  kind: KgEdgeKind;

  /** A predicate of the closed list for typed edges; 'co_mention' (with source id < target id) for co-mentions. */
  @Column('text')
  predicate: string;

  @Column('real', { default: 1 })
  weight: number;

  @Column('text', { default: 'extracted' })
  origin: KgOrigin;

  @Column('text', { name: 'created_by' })
  createdBy: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
