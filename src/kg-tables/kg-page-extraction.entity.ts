import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PageEntity } from '../pages/page.entity.js';

/** What a page's knowledge-graph rows were derived from, at its last successful extraction (migration 0004). */
@Entity('kg_page_extractions')
@Check('kg_page_extractions_counts_check', 'chunk_count >= 0 AND extraction_calls >= 0')
export class KgPageExtractionEntity {
  @PrimaryColumn('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'kg_page_extractions_page_id_fkey' })
  page?: PageEntity;

  /** Hash of the page's title, primary cluster and Markdown body (src/kg/extraction-source.ts). */
  @Column('text', { name: 'source_hash' })
  sourceHash: string;

  /** pages.content_hash when last checked; a page whose hash moved on may need extraction. */
  @Column('text', { name: 'page_content_hash' })
  pageContentHash: string;

  /** Title and primary cluster, hashed: part of every chunk's embedded text. */
  @Column('text', { name: 'context_hash' })
  contextHash: string;

  @Column('integer', { name: 'chunk_count' })
  chunkCount: number;

  /** Extraction calls made for this page so far (all runs); unchanged chunks cost none. */
  @Column('integer', { name: 'extraction_calls', default: 0 })
  extractionCalls: number;

  @Column('text')
  extractor: string;

  @Column('text', { nullable: true })
  model: string | null;

  @Column('text', { name: 'embedding_model', nullable: true })
  embeddingModel: string | null;

  @Column('timestamptz', { name: 'extracted_at', default: () => 'now()' })
  extractedAt: Date;
}
