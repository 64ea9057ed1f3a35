import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { PageEntity } from '../pages/page.entity.js';

/** A heading-aware piece of a page: what the extractor reads and what vector search finds. */
@Entity('kg_content_chunks')
// One chunk per place in a page; deferrable, because kept chunks are renumbered in one UPDATE (moveChunks).
@Unique('kg_content_chunks_page_position_key', ['pageId', 'position'], { deferrable: 'INITIALLY IMMEDIATE' })
@Index('kg_content_chunks_page_hash_idx', ['pageId', 'contentHash'])
// TypeORM cannot describe GIN indexes: declared so it leaves this one alone; the schema test checks it.
@Index('kg_content_chunks_search_idx', { synchronize: false })
@Check('kg_content_chunks_embedding_check', 'embedding IS NULL OR (embedding_model IS NOT NULL AND embedding_dims = vector_dims(embedding))')
export class KgContentChunkEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'kg_content_chunks_page_id_fkey' })
  page?: PageEntity;

  @Column('integer')
  position: number;

  /** e.g. ['Setup', 'Linux'] for "Setup › Linux". */
  @Column('text', { name: 'heading_path', array: true, default: () => "'{}'" })
  headingPath: string[];

  @Column('text')
  text: string;

  /** The id of its section's heading on the rendered page (`setup-2` for a second "Setup"); null at the top. */
  @Column('text', { nullable: true })
  anchor: string | null;

  @Column('text', { name: 'content_hash' })
  contentHash: string;

  @Column('integer', { name: 'token_estimate', default: 0 })
  tokenEstimate: number;

  /** No fixed dimension: the model and its size are recorded beside the vector. */
  @Column('vector', { nullable: true, select: false })
  embedding: number[] | null;

  @Column('text', { name: 'embedding_model', nullable: true })
  embeddingModel: string | null;

  @Column('integer', { name: 'embedding_dims', nullable: true })
  embeddingDims: number | null;

  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  search: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
