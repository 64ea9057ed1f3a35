import { ConflictException, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { ClusterPolicyRepository, type ClusterPageCounts } from './cluster-policy.repository.js';
import { clusterAncestry, isClusterPath } from './cluster-path.js';
import type {
  AuditEntryResponse, ClusterDetailResponse, ClusterResponse, ExplainResponse, PendingClusterResponse, PolicyChangeResponse,
} from './dto/kg-policy.dto.js';
import { ExcludedPagesRepository } from './excluded-pages.repository.js';
import { decideInclusion, type PolicyFacts } from './inclusion-decision.js';
import type { KgClusterPolicyEntity, PolicyAction } from './kg-cluster-policy.entity.js';
import type { KgPolicyAuditEntity, PolicyAuditEvent } from './kg-policy-audit.entity.js';
import { PolicyReconciler } from './policy-reconciler.service.js';

const DAY_MS = 86_400_000;
const RECENT_AUDIT_ROWS = 20;

/**
 * The inclusion policy: per-cluster rows (set, clear, review, bootstrap), what each page's decision is and why,
 * and the audit trail. Every write is audited in the same transaction, then the affected pages are reconciled.
 */
@Injectable()
export class PolicyService {
  constructor(
    private readonly policies: ClusterPolicyRepository,
    private readonly excludedPages: ExcludedPagesRepository,
    private readonly reconciler: PolicyReconciler,
    private readonly audit: AuditService,
    private readonly config: KurateConfig,
  ) {}

  get reviewDays(): number {
    return this.config.policy.reviewDays;
  }

  async listClusters(filter: { staleOnly?: boolean } = {}): Promise<ClusterResponse[]> {
    const [counts, rows] = await Promise.all([this.policies.pageCountsByCluster(), this.policies.findAll()]);
    const byCluster = policyMap(rows);
    const names = [...new Set([...counts.map((c) => c.cluster), ...rows.map((r) => r.cluster)])].sort();
    const countOf = new Map(counts.map((c) => [c.cluster, c]));
    const clusters = names.map((name) => this.clusterView(name, countOf.get(name), byCluster));
    return filter.staleOnly ? clusters.filter((c) => c.stale) : clusters;
  }

  async getCluster(cluster: string): Promise<ClusterDetailResponse> {
    const view = await this.requireKnownCluster(cluster);
    const audit = await this.policies.listAudit({ cluster, limit: RECENT_AUDIT_ROWS });
    return { ...view, audit: audit.map(auditEntryView) };
  }

  /** Clusters that live pages name and that no policy row covers (neither their own nor their parent's). */
  async pending(): Promise<PendingClusterResponse[]> {
    const [counts, rows] = await Promise.all([this.policies.pageCountsByCluster(), this.policies.findAll()]);
    const byCluster = policyMap(rows);
    return counts
      .filter((c) => c.namedDirectly && clusterAncestry(c.cluster).every((name) => !byCluster.has(name)))
      .map((c) => ({ cluster: c.cluster, pages: c.pages }));
  }

  async setPolicy(cluster: string, input: { action: PolicyAction; reason: string }, origin: RequestOrigin): Promise<PolicyChangeResponse> {
    await this.requireKnownCluster(cluster);
    await this.policies.writeTransaction(async (tx) => {
      const previous = await this.policies.findForUpdate(cluster, tx);
      await this.policies.upsert({ cluster, action: input.action, reason: input.reason, actor: origin.actor.name }, tx);
      await this.record(origin, 'set', cluster, { previousAction: previous?.action ?? null, action: input.action, reason: input.reason }, tx);
    });
    return this.afterWrite(cluster);
  }

  /** The same policy for several clusters in one transaction (each audited), then each cluster's pages reconciled. */
  async setPolicies(clusters: readonly string[], input: { action: PolicyAction; reason: string }, origin: RequestOrigin): Promise<PolicyChangeResponse[]> {
    for (const cluster of clusters) await this.requireKnownCluster(cluster);
    await this.policies.writeTransaction(async (tx) => {
      for (const cluster of clusters) {
        const previous = await this.policies.findForUpdate(cluster, tx);
        await this.policies.upsert({ cluster, action: input.action, reason: input.reason, actor: origin.actor.name }, tx);
        await this.record(origin, 'set', cluster, { previousAction: previous?.action ?? null, action: input.action, reason: input.reason }, tx);
      }
    });
    const changes: PolicyChangeResponse[] = [];
    for (const cluster of clusters) changes.push(await this.afterWrite(cluster));
    return changes;
  }

  async clearPolicy(cluster: string, reason: string, origin: RequestOrigin): Promise<PolicyChangeResponse> {
    assertClusterName(cluster);
    await this.policies.writeTransaction(async (tx) => {
      const previous = await this.policies.findForUpdate(cluster, tx);
      if (!previous) throw noPolicy(cluster);
      await this.policies.delete(cluster, tx);
      await this.record(origin, 'clear', cluster, { previousAction: previous.action, action: null, reason }, tx);
    });
    return this.afterWrite(cluster);
  }

  async markReviewed(cluster: string, note: string | undefined, origin: RequestOrigin): Promise<ClusterResponse> {
    assertClusterName(cluster);
    await this.policies.writeTransaction(async (tx) => {
      const current = await this.policies.findForUpdate(cluster, tx);
      if (!current) throw noPolicy(cluster);
      await this.policies.markReviewed(cluster, origin.actor.name, tx);
      await this.record(origin, 'review', cluster, { previousAction: current.action, action: current.action, reason: note ?? null }, tx);
    });
    return this.requireKnownCluster(cluster);
  }

  /** The first policies, all at once (e.g. before importing a vault); refused once any policy exists. */
  async bootstrap(input: { cluster: string; action: PolicyAction; reason: string }[], origin: RequestOrigin): Promise<ClusterResponse[]> {
    const seen = new Set<string>();
    for (const { cluster } of input) {
      assertClusterName(cluster);
      if (seen.has(cluster)) throw new DomainException(DomainErrorCode.InvalidInput, `The cluster "${cluster}" is named twice.`);
      seen.add(cluster);
    }
    await this.policies.writeTransaction(async (tx) => {
      const existing = await this.policies.count(tx);
      if (existing > 0) {
        throw new ConflictException(`Bootstrap only sets the first policies, and ${existing} already exist; change clusters one by one instead.`);
      }
      for (const row of input) {
        await this.policies.upsert({ ...row, actor: origin.actor.name }, tx);
        await this.record(origin, 'bootstrap', row.cluster, { previousAction: null, action: row.action, reason: row.reason }, tx);
      }
    });
    await this.reconciler.reconcileAll('bootstrap');
    const clusters = await this.listClusters();
    return clusters.filter((c) => seen.has(c.cluster));
  }

  /** Why a page is in or out, in words, with the stored row for comparison. */
  async explain(slug: string): Promise<ExplainResponse> {
    const page = await this.excludedPages.findPageBySlug(slug);
    if (!page) throw new DomainException(DomainErrorCode.NotFound, `There is no page "${slug}".`);
    const decision = decideInclusion(page, policyMap(await this.policies.findAll()), { systemPagePattern: this.config.policy.systemPagePattern });
    const stored = page.excluded;
    const reconciled = decision.included
      ? stored === null
      : stored !== null && stored.reason === decision.reason && stored.policyCluster === (decision.reason === 'cluster_policy' ? decision.policy!.cluster : null);
    return {
      slug: page.slug,
      title: page.title,
      clusters: [...page.clusters],
      included: decision.included,
      reason: decision.reason,
      explanation: decision.explanation,
      policyCluster: decision.policy?.cluster ?? null,
      reconciled,
    };
  }

  async auditTrail(filter: { cluster?: string; limit?: number }): Promise<AuditEntryResponse[]> {
    if (filter.cluster !== undefined) assertClusterName(filter.cluster);
    const rows = await this.policies.listAudit({ cluster: filter.cluster, limit: filter.limit ?? 50 });
    return rows.map(auditEntryView);
  }

  /** For extraction: may this page feed the knowledge graph? Pass the save's transaction when inside one. */
  async isPageIncluded(pageId: string, tx?: EntityManager): Promise<boolean> {
    return !(await this.excludedPages.isExcluded(pageId, tx));
  }

  /** The cluster as the list shows it; 404 when no page names it and it has no policy (a typo, most likely). */
  async requireKnownCluster(cluster: string): Promise<ClusterResponse> {
    assertClusterName(cluster);
    const found = await this.findCluster(cluster);
    if (!found) {
      throw new DomainException(
        DomainErrorCode.NotFound,
        `No page has the cluster "${cluster}" and it has no policy. Check the spelling; to set policies before the pages exist, use bootstrap.`,
      );
    }
    return found;
  }

  /**
   * Inside a transaction, the cluster's policy as committed now, held until the transaction ends: no policy change can
   * commit in between (a purge checks it is still excluded where it deletes).
   */
  async holdEffectivePolicy(cluster: string, tx: EntityManager): Promise<{ effectiveAction: string; inheritedFrom: string | null }> {
    await this.policies.holdAgainstChanges(tx);
    const view = this.clusterView(cluster, undefined, policyMap(await this.policies.findAll(tx)));
    return { effectiveAction: view.effectiveAction, inheritedFrom: view.inheritedFrom };
  }

  /** Writes to both trails: kg_policy_audit (the policy's own, with the action) and the site-wide audit log. */
  async record(
    origin: RequestOrigin,
    event: PolicyAuditEvent,
    cluster: string,
    facts: { previousAction: string | null; action: string | null; reason: string | null; details?: Record<string, unknown> },
    tx: EntityManager,
  ): Promise<void> {
    await this.policies.appendAudit({ actor: origin.actor.name, event, cluster, ...facts }, tx);
    const details = { cluster, previousAction: facts.previousAction, action: facts.action, reason: facts.reason, ...facts.details };
    await this.audit.record(origin.actor, `kg_policy.${event}`, `cluster:${cluster}`, details, origin.ip, tx);
  }

  /** One cluster, counted on its own (listing all clusters reads every page). */
  private async findCluster(cluster: string): Promise<ClusterResponse | null> {
    const [counts, rows] = await Promise.all([this.policies.pageCountsOf(cluster), this.policies.findAll()]);
    const byCluster = policyMap(rows);
    return counts || byCluster.has(cluster) ? this.clusterView(cluster, counts ?? undefined, byCluster) : null;
  }

  private async afterWrite(cluster: string): Promise<PolicyChangeResponse> {
    const summary = await this.reconciler.reconcileCluster(cluster);
    const view = await this.findCluster(cluster);
    const reconciled = { scanned: summary.scanned, nowIncluded: summary.nowIncluded, nowExcluded: summary.nowExcluded };
    return { ...(view ?? this.clusterView(cluster, undefined, new Map())), reconciled };
  }

  private clusterView(cluster: string, counts: ClusterPageCounts | undefined, policies: ReadonlyMap<string, KgClusterPolicyEntity>): ClusterResponse {
    const own = policies.get(cluster) ?? null;
    const inherited = own ? null : clusterAncestry(cluster).slice(1).map((name) => policies.get(name)).find(Boolean) ?? null;
    const ageMs = own ? Date.now() - own.reviewedAt.getTime() : null;
    const pages = counts?.pages ?? 0;
    const excludedPages = counts?.excludedPages ?? 0;
    return {
      cluster,
      pages,
      excludedPages,
      includedPages: pages - excludedPages,
      action: own?.action ?? null,
      effectiveAction: (own ?? inherited)?.action ?? 'default-exclude',
      inheritedFrom: inherited?.cluster ?? null,
      reason: own?.reason ?? null,
      setBy: own?.setBy ?? null,
      setAt: own?.setAt ?? null,
      reviewedBy: own?.reviewedBy ?? null,
      reviewedAt: own?.reviewedAt ?? null,
      stale: ageMs !== null && ageMs > this.config.policy.reviewDays * DAY_MS,
      daysSinceReview: ageMs === null ? null : Math.floor(ageMs / DAY_MS),
    };
  }
}

export function assertClusterName(cluster: string): void {
  if (!isClusterPath(cluster)) {
    throw new DomainException(
      DomainErrorCode.InvalidInput,
      `"${cluster.slice(0, 80)}" is not a cluster name: use a slug such as "personal", or "parent/child" (URL-encode the slash as %2F).`,
    );
  }
}

function noPolicy(cluster: string): DomainException {
  return new DomainException(DomainErrorCode.NotFound, `The cluster "${cluster}" has no policy of its own.`);
}

function policyMap(rows: KgClusterPolicyEntity[]): Map<string, KgClusterPolicyEntity & PolicyFacts> {
  return new Map(rows.map((row) => [row.cluster, row]));
}

function auditEntryView(row: KgPolicyAuditEntity): AuditEntryResponse {
  return {
    id: String(row.id),
    at: row.createdAt,
    actor: row.actor,
    event: row.event,
    cluster: row.cluster,
    previousAction: row.previousAction,
    action: row.action,
    reason: row.reason,
    details: row.details,
  };
}
