import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PageEntity } from '../pages/page.entity.js';
import { KgContentChunkEntity } from './kg-content-chunk.entity.js';
import { KgProposalEntity } from './kg-proposal.entity.js';

/** One chunk that said what a proposal says, with its verbatim quote. `pageId` is the chunk's page, kept for the index. */
@Entity('kg_proposal_support')
@Index('kg_proposal_support_page_idx', ['pageId'])
@Index('kg_proposal_support_chunk_idx', ['chunkId'])
export class KgProposalSupportEntity {
  @PrimaryColumn('bigint', { name: 'proposal_id' })
  proposalId: string;

  @ManyToOne(() => KgProposalEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proposal_id', foreignKeyConstraintName: 'kg_proposal_support_proposal_id_fkey' })
  proposal?: KgProposalEntity;

  @PrimaryColumn('bigint', { name: 'chunk_id' })
  chunkId: string;

  @ManyToOne(() => KgContentChunkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'chunk_id', foreignKeyConstraintName: 'kg_proposal_support_chunk_id_fkey' })
  chunk?: KgContentChunkEntity;

  @Column('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'kg_proposal_support_page_id_fkey' })
  page?: PageEntity;

  @Column('text')
  quote: string;

  @Column('real', { nullable: true })
  confidence: number | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
