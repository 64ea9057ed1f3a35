import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { KgReviewActionEntity } from './kg-review-action.entity.js';

/** The KG tables an action may touch, parents first: the order an undo inserts in (and deletes in reverse). */
export const JOURNALED_TABLES = [
  'kg_proposals', 'kg_rejections', 'kg_nodes', 'kg_node_signatures', 'kg_node_embeddings', 'kg_node_provenance',
  'kg_edges', 'kg_edge_provenance', 'kg_mentions',
] as const;
export type JournaledTable = (typeof JOURNALED_TABLES)[number];

/** The before- and after-image (to_jsonb of the row) of one row one action touched. */
@Entity('kg_review_journal')
@Index('kg_review_journal_row_key', ['actionId', 'tableName', 'rowKey'], { unique: true })
@Check('kg_review_journal_table_check', `table_name IN (${JOURNALED_TABLES.map((t) => `'${t}'`).join(', ')})`)
export class KgReviewJournalEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('bigint', { name: 'action_id' })
  actionId: string;

  @ManyToOne(() => KgReviewActionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'action_id', foreignKeyConstraintName: 'kg_review_journal_action_id_fkey' })
  action?: KgReviewActionEntity;

  @Column('text', { name: 'table_name' })
  tableName: JournaledTable;

  @Column('jsonb', { name: 'row_key' })
  rowKey: Record<string, unknown>;

  @Column('jsonb', { nullable: true })
  before: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  after: Record<string, unknown> | null;
}
