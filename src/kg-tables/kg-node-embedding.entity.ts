import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { KgNodeEntity } from './kg-node.entity.js';

/** A node's vector for one embedding model; old and new models coexist while re-embedding. */
@Entity('kg_node_embeddings')
@Check('kg_node_embeddings_dims_check', 'dims = vector_dims(embedding)')
export class KgNodeEmbeddingEntity {
  @PrimaryColumn('bigint', { name: 'node_id' })
  nodeId: string;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'node_id', foreignKeyConstraintName: 'kg_node_embeddings_node_id_fkey' })
  node?: KgNodeEntity;

  @PrimaryColumn('text')
  model: string;

  @Column('integer')
  dims: number;

  @Column('vector', { select: false })
  embedding: number[];

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
