/** How the lexical ranking and the pages the query names are blended, and what fusion must keep, as pure functions. */

export interface BlendedPage {
  pageId: string;
  score: number;
  /** BM25 score (0: no word matched). */
  lexical: number;
  /** How strongly the query names this page (its title or an alias; 0: not at all). */
  named: number;
}

/**
 * score = BM25 / the best BM25 + namedBoost · named: a page whose title or alias is the whole query (named = 1)
 * comes first, one named by part of it moves up by that share. Pages named but matching no word are added.
 */
export function blendNamed(lexical: readonly { pageId: string; score: number }[], named: ReadonlyMap<string, number>, namedBoost: number): BlendedPage[] {
  const best = lexical.reduce((m, h) => Math.max(m, h.score), 0) || 1;
  const pages = new Map<string, BlendedPage>();
  for (const h of lexical) pages.set(h.pageId, { pageId: h.pageId, score: h.score / best, lexical: h.score, named: 0 });
  for (const [pageId, strength] of named) {
    const page = pages.get(pageId) ?? { pageId, score: 0, lexical: 0, named: 0 };
    page.named = strength;
    page.score += namedBoost * strength;
    pages.set(pageId, page);
  }
  return [...pages.values()].sort((a, b) => b.score - a.score || b.lexical - a.lexical || (a.pageId < b.pageId ? -1 : 1));
}

/**
 * The graph signal added to the blend: each page's graph score, relative to the best, times `weight`. It moves
 * candidates that mention the query's entities and their neighbours up; it brings in no page of its own.
 */
export function withGraphBonus(blended: readonly BlendedPage[], graph: readonly { pageId: string; score: number }[], weight: number): BlendedPage[] {
  const best = graph.reduce((m, g) => Math.max(m, g.score), 0);
  if (best <= 0 || weight <= 0) return [...blended];
  const bonus = new Map(graph.map((g) => [g.pageId, (weight * g.score) / best]));
  return blended
    .map((b) => ({ ...b, score: b.score + (bonus.get(b.pageId) ?? 0) }))
    .sort((a, b) => b.score - a.score || b.lexical - a.lexical || (a.pageId < b.pageId ? -1 : 1));
}

/**
 * What other pages say about the entities whose names pages bear (entity-context.ts), added to the blend: each
 * page's context score relative to the best (or to `fullWeightAt`, when the best falls short of it), times `weight`.
 * Unlike the graph bonus it may bring in a page no word of the query matched: the page the wiki's other pages
 * describe in the query's words.
 */
export function withContext(blended: readonly BlendedPage[], context: readonly { pageId: string; score: number }[], weight: number, fullWeightAt = 0): BlendedPage[] {
  const best = Math.max(fullWeightAt, context.reduce((m, c) => Math.max(m, c.score), 0));
  if (best <= 0 || weight <= 0) return [...blended];
  const pages = new Map(blended.map((b) => [b.pageId, { ...b }]));
  for (const c of context) {
    const page = pages.get(c.pageId) ?? { pageId: c.pageId, score: 0, lexical: 0, named: 0 };
    page.score += (weight * c.score) / best;
    pages.set(c.pageId, page);
  }
  return [...pages.values()].sort((a, b) => b.score - a.score || b.lexical - a.lexical || (a.pageId < b.pageId ? -1 : 1));
}

/**
 * The ranking with the `kept` pages inside its first `top` ranks (in their order there), the others shifted down:
 * other lists may reorder and add, but never push a page the query names out of the top.
 */
export function keepInTop(ranking: readonly string[], kept: readonly string[], top = 3): string[] {
  const keep = [...new Set(kept)].slice(0, top);
  const head = ranking.slice(0, top);
  const missing = keep.filter((id) => !head.includes(id));
  if (missing.length === 0) return [...ranking];
  const mustKeep = new Set(keep);
  const displaced: string[] = [];
  for (let i = 0; i < missing.length; i++) {
    const last = head.map((id, at) => ({ id, at })).filter((x) => !mustKeep.has(x.id)).pop();
    if (!last) break;
    head.splice(last.at, 1);
    displaced.unshift(last.id);
  }
  const newHead = [...head, ...missing];
  const placed = new Set([...newHead, ...displaced]);
  return [...newHead, ...displaced, ...ranking.filter((id) => !placed.has(id))];
}
