import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import type { KgProposalKind } from './kg-proposal.entity.js';

/** Negative knowledge: a rejected signature is not proposed again until an admin clears it. */
@Entity('kg_rejections')
@Check('kg_rejections_kind_check', "kind IN ('node', 'edge')")
export class KgRejectionEntity {
  @PrimaryColumn('text')
  kind: KgProposalKind;

  @PrimaryColumn('text')
  signature: string;

  @Column('text', { nullable: true })
  reason: string | null;

  @Column('text', { name: 'rejected_by' })
  rejectedBy: string;

  @Column('timestamptz', { name: 'rejected_at', default: () => 'now()' })
  rejectedAt: Date;
}
