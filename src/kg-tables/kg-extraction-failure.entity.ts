import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PageEntity } from '../pages/page.entity.js';

/** An extraction job that failed for good, with its reason; resolved when the page is later extracted (migration 0004). */
@Entity('kg_extraction_failures')
@Index('kg_extraction_failures_job_key', ['jobId'], { unique: true })
// A partial index (open failures only): declared so TypeORM leaves it alone.
@Index('kg_extraction_failures_open_idx', { synchronize: false })
@Index('kg_extraction_failures_failed_at_idx', ['failedAt'])
export class KgExtractionFailureEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'kg_extraction_failures_page_id_fkey' })
  page?: PageEntity;

  /** The pg-boss job (pgboss.job / pgboss.archive). */
  @Column('uuid', { name: 'job_id' })
  jobId: string;

  @Column('text', { name: 'source_hash' })
  sourceHash: string;

  /** builtin, ollama or anthropic. */
  @Column('text')
  backend: string;

  @Column('text', { nullable: true })
  model: string | null;

  @Column('text')
  reason: string;

  @Column('integer')
  attempts: number;

  @Column('timestamptz', { name: 'failed_at', default: () => 'now()' })
  failedAt: Date;

  @Column('timestamptz', { name: 'resolved_at', nullable: true })
  resolvedAt: Date | null;
}
