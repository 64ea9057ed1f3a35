import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const POLICY_AUDIT_EVENTS = ['set', 'clear', 'review', 'bootstrap', 'purge'] as const;
export type PolicyAuditEvent = (typeof POLICY_AUDIT_EVENTS)[number];

/** One policy write: who, what, when and why. Append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). */
@Entity('kg_policy_audit')
@Index('kg_policy_audit_cluster_idx', ['cluster', 'id'])
@Check('kg_policy_audit_event_check', "event IN ('set', 'clear', 'review', 'bootstrap', 'purge')")
export class KgPolicyAuditEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('text')
  actor: string;

  @Column('text')
  event: PolicyAuditEvent;

  @Column('text', { nullable: true })
  cluster: string | null;

  @Column('text', { name: 'previous_action', nullable: true })
  previousAction: string | null;

  @Column('text', { nullable: true })
  action: string | null;

  @Column('text', { nullable: true })
  reason: string | null;

  @Column('jsonb', { default: () => "'{}'" })
  details: Record<string, unknown>;
}
