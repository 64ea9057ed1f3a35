import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

export const POLICY_ACTIONS = ['include', 'exclude'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** What the extractor may read from one cluster (and its sub-clusters without a row of their own). */
@Entity('kg_cluster_policy')
@Check('kg_cluster_policy_action_check', "action IN ('include', 'exclude')")
@Check('kg_cluster_policy_reason_check', "btrim(reason) <> ''")
export class KgClusterPolicyEntity {
  @PrimaryColumn('text')
  cluster: string;

  @Column('text')
  action: PolicyAction;

  @Column('text')
  reason: string;

  @Column('text', { name: 'set_by' })
  setBy: string;

  @Column('timestamptz', { name: 'set_at', default: () => 'now()' })
  setAt: Date;

  /** Setting a policy counts as reviewing it. */
  @Column('timestamptz', { name: 'reviewed_at', default: () => 'now()' })
  reviewedAt: Date;

  @Column('text', { name: 'reviewed_by' })
  reviewedBy: string;
}
