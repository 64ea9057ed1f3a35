import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type KgProposalKind = 'node' | 'edge';
export type KgProposalStatus = 'pending' | 'approved' | 'rejected' | 'retired';

/** Something an extractor proposed; nothing enters the graph until an admin approves it. */
@Entity('kg_proposals')
// A partial unique index (one pending proposal per signature): declared so TypeORM leaves it alone.
@Index('kg_proposals_pending_signature_key', { synchronize: false })
@Index('kg_proposals_status_idx', ['status', 'id'])
@Check('kg_proposals_kind_check', "kind IN ('node', 'edge')")
@Check('kg_proposals_status_check', "status IN ('pending', 'approved', 'rejected', 'retired')")
@Check('kg_proposals_confidence_check', 'confidence >= 0 AND confidence <= 1')
@Check('kg_proposals_raw_confidence_check', 'raw_confidence IS NULL OR (raw_confidence >= 0 AND raw_confidence <= 1)')
// Partial indexes of earlier rejections (migration 0021): declared so TypeORM leaves them alone.
@Index('kg_proposals_rejected_stem_idx', { synchronize: false })
@Index('kg_proposals_rejected_pattern_idx', { synchronize: false })
@Check(
  'kg_proposals_shape_check',
  "(kind = 'node' AND name IS NOT NULL AND node_type IS NOT NULL) OR (kind = 'edge' AND source_signature IS NOT NULL AND predicate IS NOT NULL AND target_signature IS NOT NULL)",
)
export class KgProposalEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('text')
  kind: KgProposalKind;

  /** Nodes: normalised name + type; edges: source signature + predicate + target signature. */
  @Column('text')
  signature: string;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('text', { name: 'node_type', nullable: true })
  nodeType: string | null;

  @Column('text', { name: 'source_signature', nullable: true })
  sourceSignature: string | null;

  @Column('text', { name: 'source_name', nullable: true })
  sourceName: string | null;

  @Column('text', { nullable: true })
  predicate: string | null;

  @Column('text', { name: 'target_signature', nullable: true })
  targetSignature: string | null;

  @Column('text', { name: 'target_name', nullable: true })
  targetName: string | null;

  @Column('text', { default: '' })
  description: string;

  /** The chance that an admin approves it: the extractor's score, calibrated (src/kg/calibration.ts). */
  @Column('real')
  confidence: number;

  /** The extractor's own score (its best support's), kept so the calibration can be refitted. */
  @Column('real', { name: 'raw_confidence', nullable: true })
  rawConfidence: number | null;

  /** Why it was proposed: the extractor's signals for its best support (`link`, `repeat×2`, `sentence-pattern`). */
  @Column('text', { array: true, default: () => "'{}'" })
  signals: string[];

  /** The signals' names without counts, sorted, joined by `+`: which earlier rejections it resembles. */
  @Column('text', { name: 'signal_pattern', default: '' })
  signalPattern: string;

  /** Nodes: the name without case, `-`/`_` and a plural on its last word (src/kg/signal-pattern.ts). */
  @Column('text', { name: 'name_stem', nullable: true })
  nameStem: string | null;

  /** Nodes: other names the extractor gave it (an LLM's aliases, the chunks' other spellings); approval adds them to the entity's. */
  @Column('text', { array: true, default: () => "'{}'" })
  aliases: string[];

  /** The best quote seen; every quote is in kg_proposal_support. */
  @Column('text', { name: 'evidence_quote', nullable: true })
  evidenceQuote: string | null;

  @Column('integer', { name: 'support_count', default: 0 })
  supportCount: number;

  @Column('text', { default: 'pending' })
  status: KgProposalStatus;

  @Column('text')
  extractor: string;

  @Column('text', { nullable: true })
  model: string | null;

  @Column('text', { name: 'reviewed_by', nullable: true })
  reviewedBy: string | null;

  @Column('timestamptz', { name: 'reviewed_at', nullable: true })
  reviewedAt: Date | null;

  @Column('text', { name: 'review_note', nullable: true })
  reviewNote: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
