import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { KgContentChunkEntity } from './kg-content-chunk.entity.js';
import { KgNodeEntity } from './kg-node.entity.js';

/** An entity named in a chunk; `nodeId` is set once an entity with that signature is approved. */
@Entity('kg_mentions')
@Index('kg_mentions_chunk_signature_key', ['chunkId', 'signature'], { unique: true })
@Index('kg_mentions_node_idx', ['nodeId', 'chunkId'])
@Index('kg_mentions_node_page_idx', ['nodeId', 'pageId'])
@Index('kg_mentions_signature_idx', ['signature'])
export class KgMentionEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('bigint', { name: 'chunk_id' })
  chunkId: string;

  @ManyToOne(() => KgContentChunkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'chunk_id', foreignKeyConstraintName: 'kg_mentions_chunk_id_fkey' })
  chunk?: KgContentChunkEntity;

  @Column('text')
  signature: string;

  @Column('bigint', { name: 'node_id', nullable: true })
  nodeId: string | null;

  @ManyToOne(() => KgNodeEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'node_id', foreignKeyConstraintName: 'kg_mentions_node_id_fkey' })
  node?: KgNodeEntity;

  /** The chunk's page, set by migration 0029's trigger from the chunk: an entity's pages are read from (node_id, page_id). */
  @Column({ type: 'uuid', name: 'page_id', insert: false, update: false })
  pageId: string;

  /** The words as the page wrote them. */
  @Column('text')
  surface: string;

  @Column('real', { nullable: true })
  confidence: number | null;

  /** The words of the chunk's sentences that hold the surface (migration 0020's trigger writes it): search's entity context. */
  @Column({ type: 'tsvector', select: false, insert: false, update: false })
  context: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
