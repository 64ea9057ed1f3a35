/** The graph signal of hybrid search, as pure functions: the service fetches edges and mentions, these rank. */

export interface GraphEdge {
  sourceId: string;
  targetId: string;
  kind: 'typed' | 'co_mention';
  weight: number;
}

export interface EntityReach {
  /** How close to the query: 1 for an entity the query names, less with each hop. */
  proximity: number;
  hops: number;
  /** The entity named by the query this one was reached from. */
  fromId: string;
}

/** Each hop keeps this share of the proximity; a co-mention edge (two names in one chunk) is weaker than a typed relation. */
export const HOP_DECAY = 0.5;
export const CO_MENTION_STRENGTH = 0.5;
/** At most this many entities are walked on from per hop (the closest): a hub cannot drag in the whole graph. */
export const FRONTIER_LIMIT = 200;

const WORD = /[\p{L}\p{N}]+(?:['’.+#-][\p{L}\p{N}]+)*/gu;
const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i if in into is it its me my no not of on or so that the their them this to up was we what when where which who why will with you your'.split(' '),
);

/**
 * The 1- to `maxWords`-word windows of a query, lower-cased, as entity names and aliases are looked up: "open the
 * daily note" → "open", "daily", "note", "open the", "the daily", … A single stop word is not a window.
 */
export function queryWindows(text: string, maxWords = 3): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  const windows = new Set<string>();
  for (let size = 1; size <= maxWords; size++) {
    for (let i = 0; i + size <= words.length; i++) {
      const window = words.slice(i, i + size);
      if (size === 1 && STOPWORDS.has(window[0])) continue;
      if (STOPWORDS.has(window[0]) || STOPWORDS.has(window[size - 1])) continue;
      windows.add(window.join(' '));
    }
  }
  return [...windows];
}

/** How much of the proximity an edge passes on. */
export function edgeStrength(edge: GraphEdge): number {
  return edge.kind === 'typed' ? 1 : CO_MENTION_STRENGTH * Math.min(1, Math.max(0, edge.weight));
}

/**
 * One hop of a multi-source breadth-first search: the entities one edge away from `frontier` that are not reached
 * yet, each with the best proximity any edge gives it (edges are walked both ways).
 */
export function nextHop(reached: ReadonlyMap<string, EntityReach>, frontier: readonly string[], edges: readonly GraphEdge[], hops: number): Map<string, EntityReach> {
  const inFrontier = new Set(frontier);
  const found = new Map<string, EntityReach>();
  const offer = (from: string, to: string, edge: GraphEdge) => {
    if (!inFrontier.has(from) || reached.has(to)) return;
    const origin = reached.get(from)!;
    const proximity = origin.proximity * HOP_DECAY * edgeStrength(edge);
    const current = found.get(to);
    if (proximity > 0 && (!current || proximity > current.proximity)) found.set(to, { proximity, hops, fromId: origin.fromId });
  };
  for (const edge of edges) {
    offer(edge.sourceId, edge.targetId, edge);
    offer(edge.targetId, edge.sourceId, edge);
  }
  return found;
}

/** The closest entities of a hop, the ones walked on from next. */
export function closestFirst(found: ReadonlyMap<string, EntityReach>, limit = FRONTIER_LIMIT): string[] {
  return [...found.entries()]
    .sort((a, b) => b[1].proximity - a[1].proximity || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id]) => id);
}

export interface EntityMention {
  pageId: string;
  nodeId: string;
  /** In how many chunks the entity is mentioned (its document frequency). */
  pages: number;
}

/**
 * Pages ranked by the entities they mention: Σ proximity · ln(1 + totalPages / pages mentioning the entity). The
 * rarity factor keeps an entity named on every page (a hub, the product's own name) from lifting them all.
 */
export function rankPagesByEntities(mentions: readonly EntityMention[], reached: ReadonlyMap<string, EntityReach>, totalPages: number): { pageId: string; score: number; nodeIds: string[] }[] {
  const pages = new Map<string, { score: number; nodeIds: Set<string> }>();
  for (const m of mentions) {
    const reach = reached.get(m.nodeId);
    if (!reach) continue;
    let page = pages.get(m.pageId);
    if (!page) pages.set(m.pageId, (page = { score: 0, nodeIds: new Set() }));
    if (page.nodeIds.has(m.nodeId)) continue;
    page.nodeIds.add(m.nodeId);
    page.score += reach.proximity * Math.log(1 + Math.max(1, totalPages) / Math.max(1, m.pages));
  }
  return [...pages.entries()]
    .map(([pageId, p]) => ({ pageId, score: p.score, nodeIds: [...p.nodeIds] }))
    .sort((a, b) => b.score - a.score || (a.pageId < b.pageId ? -1 : 1));
}

/** One approved edge as seen from one end: the in-process neighbour lists (src/search/search-names.service.ts). */
export interface NeighbourEdge {
  nodeId: string;
  kind: 'typed' | 'co_mention';
  predicate: string;
  /** Typed: the best confidence it was approved at. Co-mention: its informativeness (normalised PMI, 0–1). */
  strength: number;
}

/**
 * How much a typed relation passes on, by predicate: `related_to` says least (the built-in extractor's only
 * predicate, from sharing a sentence); a definition or a part says most.
 */
export const PREDICATE_WEIGHTS: Readonly<Record<string, number>> = {
  related_to: 0.5,
  is_a: 1,
  part_of: 1,
  alternative_to: 1,
  replaces: 0.9,
  implements: 0.9,
  extends: 0.9,
  describes: 0.8,
  uses: 0.8,
  requires: 0.8,
  enables: 0.8,
};
const OTHER_PREDICATE = 0.7;

/** How much of the proximity one edge passes on. */
export function neighbourStrength(edge: NeighbourEdge): number {
  if (edge.kind === 'typed') return (PREDICATE_WEIGHTS[edge.predicate] ?? OTHER_PREDICATE) * Math.min(1, Math.max(0, edge.strength));
  return CO_MENTION_STRENGTH * Math.min(1, Math.max(0, edge.strength));
}

/**
 * Normalised pointwise mutual information of two entities mentioned together in `shared` of `total` chunks, one in
 * `a` chunks and the other in `b`: 1 when they only ever appear together, 0 when no more often than by chance (or
 * less). Two hubs that share many chunks by sheer frequency score low; two rare names that always go together, high.
 */
export function coMentionInformativeness(shared: number, a: number, b: number, total: number): number {
  if (shared <= 0 || a <= 0 || b <= 0 || total <= 0) return 0;
  const pab = Math.min(1, shared / total);
  if (pab >= 1) return 1;
  const pmi = Math.log(pab / ((Math.min(total, a) / total) * (Math.min(total, b) / total)));
  return Math.max(0, Math.min(1, pmi / -Math.log(pab)));
}

/**
 * From the entities the query names, up to `maxHops` over the in-process neighbour lists: each hop keeps
 * HOP_DECAY of the proximity times the edge's strength; at most `frontierLimit` entities are walked on from per
 * hop (the closest), so a hub cannot pull in the whole graph. No database work: the lists are kept per process.
 */
export function walkNeighbours(
  seeds: ReadonlyMap<string, number>,
  neighbours: ReadonlyMap<string, readonly NeighbourEdge[]>,
  maxHops: number,
  frontierLimit = FRONTIER_LIMIT,
): Map<string, EntityReach> {
  const reached = new Map<string, EntityReach>([...seeds].map(([id, proximity]) => [id, { proximity, hops: 0, fromId: id }]));
  let frontier = [...seeds.keys()];
  for (let hops = 1; hops <= maxHops && frontier.length > 0; hops++) {
    const found = new Map<string, EntityReach>();
    for (const from of frontier) {
      const origin = reached.get(from)!;
      for (const edge of neighbours.get(from) ?? []) {
        if (reached.has(edge.nodeId)) continue;
        const proximity = origin.proximity * HOP_DECAY * neighbourStrength(edge);
        const current = found.get(edge.nodeId);
        if (proximity > 0 && (!current || proximity > current.proximity)) found.set(edge.nodeId, { proximity, hops, fromId: origin.fromId });
      }
    }
    for (const [id, reach] of found) reached.set(id, reach);
    frontier = closestFirst(found, frontierLimit);
  }
  return reached;
}
