import { isSafeSlug } from '../pages/markdown/slug.js';

/** A cluster is a slug, or `parent/child` (one level of nesting), exactly as the frontmatter `cluster:` allows. */
export function isClusterPath(value: string): boolean {
  const segments = value.split('/');
  return segments.length <= 2 && segments.every(isSafeSlug);
}

/** The cluster itself, then its parent: the order in which policy rows apply to it (most specific first). */
export function clusterAncestry(cluster: string): string[] {
  const slash = cluster.indexOf('/');
  return slash === -1 ? [cluster] : [cluster, cluster.slice(0, slash)];
}

/** True when `cluster` is `root` or one of its sub-clusters. */
export function isWithinCluster(cluster: string, root: string): boolean {
  return cluster === root || cluster.startsWith(`${root}/`);
}

/**
 * The cluster of pages in no cluster (a vault's root), so that the inclusion policy can include them like any other.
 * SQL reads it through kurate_policy_clusters (migrations/0013_root_cluster.sql).
 */
export const ROOT_CLUSTER = 'root';

/** A page's clusters as the inclusion policy sees them: its own, or the root cluster when it has none. */
export function policyClusters(clusters: readonly string[]): readonly string[] {
  return clusters.length > 0 ? clusters : [ROOT_CLUSTER];
}
