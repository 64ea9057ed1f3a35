import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

export const REVIEW_ACTIONS = [
  'approve', 'reject', 'bulk_approve', 'bulk_reject', 'reopen',
  'entity_create', 'entity_update', 'entity_delete', 'entity_merge',
  'edge_create', 'edge_update', 'edge_delete', 'import', 'undo',
] as const;
export type ReviewActionKind = (typeof REVIEW_ACTIONS)[number];

/** One review action; its journal (kg_review_journal) holds the rows it touched, before and after. */
@Entity('kg_review_actions')
@Index('kg_review_actions_undo_of_idx', ['undoOf'])
@Check(
  'kg_review_actions_action_check',
  `action IN (${REVIEW_ACTIONS.map((a) => `'${a}'`).join(', ')})`,
)
export class KgReviewActionEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('text')
  action: ReviewActionKind;

  @Column('uuid', { name: 'actor_user_id', nullable: true })
  actorUserId: string | null;

  @Column('text', { name: 'actor_name' })
  actorName: string;

  @Column('text', { nullable: true })
  target: string | null;

  @Column('text')
  summary: string;

  @Column('jsonb', { default: () => "'{}'" })
  details: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'undone_at', nullable: true })
  undoneAt: Date | null;

  @Column('text', { name: 'undone_by', nullable: true })
  undoneBy: string | null;

  @Column('bigint', { name: 'undo_of', nullable: true })
  undoOf: string | null;

  @ManyToOne(() => KgReviewActionEntity)
  @JoinColumn({ name: 'undo_of', foreignKeyConstraintName: 'kg_review_actions_undo_of_fkey' })
  undoOfAction?: KgReviewActionEntity;
}
