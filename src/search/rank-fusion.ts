/** The signals hybrid search fuses, in the order their ranks are reported. */
export const SEARCH_LISTS = ['lexical', 'vector', 'graph'] as const;
export type SearchList = (typeof SEARCH_LISTS)[number];

export interface RankedList {
  list: SearchList;
  weight: number;
  /** Keys (page ids) best first; a key appears once. */
  keys: readonly string[];
}

export interface FusionSettings {
  /** 1 / (k + rank): k damps the difference between the first ranks. */
  k: number;
  /** Only each list's first N keys contribute. */
  topN: number;
}

export interface FusedItem {
  key: string;
  score: number;
  /** The 1-based rank in each list that contributed (a list that did not rank the key, or ranked it below N, is absent). */
  ranks: Partial<Record<SearchList, number>>;
  /** What each list added to `score`. */
  contributions: Partial<Record<SearchList, number>>;
}

/**
 * Weighted reciprocal-rank fusion: score(key) = Σ over lists of weight / (k + rank), counting each list's first
 * `topN` keys only. Ties are broken by the best single contribution, then by the order of the lists given (the
 * first list decides), then by key, so that the order is total and repeatable.
 */
export function fuseRankings(lists: readonly RankedList[], settings: FusionSettings): FusedItem[] {
  const items = new Map<string, FusedItem & { best: number; firstList: number }>();
  lists.forEach((ranked, listIndex) => {
    if (ranked.weight <= 0) return;
    ranked.keys.slice(0, settings.topN).forEach((key, i) => {
      const rank = i + 1;
      const contribution = ranked.weight / (settings.k + rank);
      let item = items.get(key);
      if (!item) {
        item = { key, score: 0, ranks: {}, contributions: {}, best: 0, firstList: listIndex * 1_000_000 + rank };
        items.set(key, item);
      }
      if (item.ranks[ranked.list] !== undefined) return;
      item.ranks[ranked.list] = rank;
      item.contributions[ranked.list] = contribution;
      item.score += contribution;
      item.best = Math.max(item.best, contribution);
      item.firstList = Math.min(item.firstList, listIndex * 1_000_000 + rank);
    });
  });
  return [...items.values()]
    .sort((a, b) => b.score - a.score || b.best - a.best || a.firstList - b.firstList || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ key, score, ranks, contributions }) => ({ key, score, ranks, contributions }));
}

/** The list that added most to a fused item (the first of the given order on a tie): "found by". */
export function strongestList(item: FusedItem): SearchList {
  let best: SearchList = 'lexical';
  let value = -1;
  for (const list of SEARCH_LISTS) {
    const c = item.contributions[list];
    if (c !== undefined && c > value) {
      best = list;
      value = c;
    }
  }
  return best;
}

/**
 * Chunks to pages: each page scores the sum of its `best` highest chunk similarities (a page with several close
 * sections beats one lucky sentence), and keeps its closest chunk for the snippet and the deep link.
 */
export function groupChunksToPages<C extends { pageId: string; similarity: number }>(chunks: readonly C[], best = 3): { pageId: string; score: number; bestChunk: C }[] {
  const byPage = new Map<string, C[]>();
  for (const chunk of chunks) {
    const list = byPage.get(chunk.pageId);
    if (list) list.push(chunk);
    else byPage.set(chunk.pageId, [chunk]);
  }
  return [...byPage.entries()]
    .map(([pageId, list]) => {
      const sorted = [...list].sort((a, b) => b.similarity - a.similarity);
      return { pageId, score: sorted.slice(0, best).reduce((sum, c) => sum + c.similarity, 0), bestChunk: sorted[0] };
    })
    .sort((a, b) => b.score - a.score || (a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0));
}
