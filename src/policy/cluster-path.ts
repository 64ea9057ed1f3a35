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
