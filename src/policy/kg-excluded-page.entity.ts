import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PageEntity } from '../pages/page.entity.js';
import type { ExclusionReason } from './inclusion-decision.js';

/** A page that may not feed the knowledge graph, and the rule that decided it. Kept current by reconciliation. */
@Entity('kg_excluded_pages')
@Check('kg_excluded_pages_reason_check', "reason IN ('page_in_trash', 'system_page', 'page_override', 'cluster_policy', 'default')")
export class KgExcludedPageEntity {
  @PrimaryColumn('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'kg_excluded_pages_page_id_fkey' })
  page?: PageEntity;

  @Column('text')
  reason: ExclusionReason;

  /** For cluster_policy: the cluster whose row decided (the page's cluster or its parent). */
  @Column('text', { name: 'policy_cluster', nullable: true })
  policyCluster: string | null;

  @Column('timestamptz', { name: 'decided_at', default: () => 'now()' })
  decidedAt: Date;
}
