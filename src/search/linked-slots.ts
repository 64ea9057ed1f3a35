/** Reserving result slots for pages the best hits link to (the Page Graph), as pure functions. */

export interface PageLink {
  fromId: string;
  toId: string;
  /** How many pages link to `toId`: a hub linked from everywhere is a weak hint. */
  inlinks: number;
}

export interface LinkedCandidate {
  pageId: string;
  score: number;
  /** 1-based ranks of the hits that link to it. */
  linkedFrom: number[];
}

/**
 * Pages linked from the first `fromTop` of the ranking, not already among its first `window`: each linking hit adds
 * 1 / its rank, divided by ln(e + the page's inlinks) so that hub pages do not flood the slots.
 */
export function linkedCandidates(ranking: readonly string[], links: readonly PageLink[], fromTop: number, window: number): LinkedCandidate[] {
  const rankOf = new Map(ranking.slice(0, fromTop).map((id, i) => [id, i + 1]));
  const shown = new Set(ranking.slice(0, window));
  const found = new Map<string, LinkedCandidate>();
  for (const link of links) {
    const rank = rankOf.get(link.fromId);
    if (rank === undefined || shown.has(link.toId)) continue;
    let c = found.get(link.toId);
    if (!c) found.set(link.toId, (c = { pageId: link.toId, score: 0, linkedFrom: [] }));
    if (c.linkedFrom.includes(rank)) continue;
    c.linkedFrom.push(rank);
    c.score += 1 / rank / Math.log(Math.E + link.inlinks);
  }
  // Equal scores (linked from the same hits, as many inlinks): the page that ranks higher for the query's own words
  // first, so that the choice follows the query, not the pages' ids.
  const position = new Map(ranking.map((id, i) => [id, i]));
  const at = (id: string) => position.get(id) ?? Number.MAX_SAFE_INTEGER;
  return [...found.values()]
    .map((c) => ({ ...c, linkedFrom: c.linkedFrom.sort((a, b) => a - b) }))
    .sort((a, b) => b.score - a.score || at(a.pageId) - at(b.pageId) || (a.pageId < b.pageId ? -1 : 1));
}

/**
 * The ranking with the best `slots` candidates placed at ranks 4, 7, 10, … (every third rank after the first three,
 * which stay the ranking's own); a candidate further down the ranking moves up, the rest shift down by one.
 */
export function withLinkedSlots(ranking: readonly string[], candidates: readonly LinkedCandidate[], slots: number): string[] {
  const chosen = candidates.slice(0, slots).map((c) => c.pageId);
  if (chosen.length === 0) return [...ranking];
  const picked = new Set(chosen);
  const rest = ranking.filter((id) => !picked.has(id));
  const out: string[] = [];
  let next = 0;
  while (next < chosen.length || rest.length > 0) {
    if (next < chosen.length && out.length === 3 * (next + 1)) out.push(chosen[next++]);
    else if (rest.length > 0) out.push(rest.shift()!);
    else out.push(chosen[next++]);
  }
  return out;
}
