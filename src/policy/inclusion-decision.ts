import { clusterAncestry, policyClusters, ROOT_CLUSTER } from './cluster-path.js';
import type { PolicyAction } from './kg-cluster-policy.entity.js';

/** Why a page may not feed the knowledge graph. `page_override` and `cluster_policy` can also explain an inclusion. */
export type ExclusionReason = 'page_in_trash' | 'system_page' | 'page_override' | 'cluster_policy' | 'default';
export type DecisionReason = ExclusionReason;

/** What the decision needs to know about a page. */
export interface PageFacts {
  slug: string;
  /** The `system: true` frontmatter flag as the pages module stored it (pages.is_system). */
  isSystem: boolean;
  /** Only `kg_include` and `system` are read. */
  frontmatter: { kg_include?: unknown; system?: unknown };
  /** In frontmatter order; the first is the primary cluster. */
  clusters: readonly string[];
  inTrash: boolean;
}

export interface PolicyFacts {
  cluster: string;
  action: PolicyAction;
  reason: string;
  setBy: string;
  setAt: Date;
}

export interface DecisionOptions {
  /** KURATE_SYSTEM_PAGE_PATTERN: slugs it matches are system pages. */
  systemPagePattern: RegExp | null;
}

export interface InclusionDecision {
  included: boolean;
  reason: DecisionReason;
  /** One sentence an admin can read: "excluded: cluster `personal` has policy exclude, set by ada on 2026-01-02 …". */
  explanation: string;
  /** The policy row that decided (reason cluster_policy). */
  policy?: PolicyFacts;
  /** The page's cluster that row applies to (the row may be its parent's). */
  viaCluster?: string;
}

/**
 * Whether a page may feed the knowledge graph. First match wins:
 * 0. a page in the trash → excluded;
 * 1. a system page (frontmatter `system: true`, or its slug matches the configured pattern) → excluded, always;
 * 2. frontmatter `kg_include: false` → excluded; 3. `kg_include: true` → included;
 * 4. the clusters' policy rows, the most specific ancestor of each cluster first (`a/b` before `a`); with several
 *    clusters any exclude wins (fail closed), otherwise any include includes;
 * 5. no row → excluded (default-exclude).
 * A page in no cluster counts as in the cluster `root` (ROOT_CLUSTER).
 * The same rule runs in SQL for reconciliation (excluded-pages.repository.ts); an e2e test holds the two together.
 */
export function decideInclusion(
  page: PageFacts,
  policies: ReadonlyMap<string, PolicyFacts>,
  options: DecisionOptions,
): InclusionDecision {
  if (page.inTrash) {
    return { included: false, reason: 'page_in_trash', explanation: 'excluded: the page is in the trash' };
  }
  if (page.isSystem || page.frontmatter.system === true) {
    return { included: false, reason: 'system_page', explanation: 'excluded: it is a system page (frontmatter `system: true`)' };
  }
  if (options.systemPagePattern?.test(page.slug)) {
    return {
      included: false,
      reason: 'system_page',
      explanation: `excluded: it is a system page (its slug matches KURATE_SYSTEM_PAGE_PATTERN ${options.systemPagePattern.source})`,
    };
  }
  if (page.frontmatter.kg_include === false) {
    return { included: false, reason: 'page_override', explanation: 'excluded: its frontmatter says `kg_include: false`' };
  }
  if (page.frontmatter.kg_include === true) {
    return { included: true, reason: 'page_override', explanation: 'included: its frontmatter says `kg_include: true`' };
  }

  // A page in no cluster is in the root cluster, which a policy row can include like any other.
  const clusters = [...new Set(policyClusters(page.clusters))];
  const applicable = clusters
    .map((cluster) => ({ cluster, policy: mostSpecificPolicy(cluster, policies) }))
    .filter((entry): entry is { cluster: string; policy: PolicyFacts } => entry.policy !== undefined);
  const excluding = applicable.find((entry) => entry.policy.action === 'exclude');
  if (excluding) {
    const others = applicable.filter((entry) => entry.policy.action === 'include').map((entry) => entry.cluster);
    const tie = others.length > 0 ? ` (an exclude wins over the include of ${others.map(code).join(', ')})` : '';
    return {
      included: false,
      reason: 'cluster_policy',
      explanation: `excluded: ${describePolicy(excluding.cluster, excluding.policy)}${tie}`,
      policy: excluding.policy,
      viaCluster: excluding.cluster,
    };
  }
  const including = applicable.find((entry) => entry.policy.action === 'include');
  if (including) {
    return {
      included: true,
      reason: 'cluster_policy',
      explanation: `included: ${describePolicy(including.cluster, including.policy)}`,
      policy: including.policy,
      viaCluster: including.cluster,
    };
  }
  const why =
    page.clusters.length === 0
      ? `the page has no cluster, and no policy covers the root cluster ${code(ROOT_CLUSTER)}`
      : `no policy covers ${clusters.length === 1 ? 'cluster' : 'clusters'} ${clusters.map(code).join(', ')}`;
  return { included: false, reason: 'default', explanation: `excluded: ${why} (the default is exclude)` };
}

/** The row that applies to a cluster: its own, else its parent's. */
export function mostSpecificPolicy(cluster: string, policies: ReadonlyMap<string, PolicyFacts>): PolicyFacts | undefined {
  for (const candidate of clusterAncestry(cluster)) {
    const policy = policies.get(candidate);
    if (policy) return policy;
  }
  return undefined;
}

function describePolicy(cluster: string, policy: PolicyFacts): string {
  const setBy = `set by ${policy.setBy} on ${policy.setAt.toISOString().slice(0, 10)} ("${policy.reason}")`;
  if (policy.cluster === cluster) return `cluster ${code(cluster)} has policy ${policy.action}, ${setBy}`;
  return `cluster ${code(cluster)} follows ${code(policy.cluster)}, which has policy ${policy.action}, ${setBy}`;
}

function code(cluster: string): string {
  return `\`${cluster}\``;
}
