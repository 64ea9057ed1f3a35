import type { Pager } from '../web/pager.js';
import type { SearchHit, SearchResult } from './search.service.js';

const LIST_LABELS = { lexical: 'words', vector: 'meaning', graph: 'knowledge graph' } as const;

/** "Why this result", in words a reader follows: each list's rank, the matched terms, the entities and their distance. */
export function whyLines(hit: SearchHit): string[] {
  const e = hit.explain;
  if (!e) return [];
  if (e.source === 'fuzzy-title') return ['No word of the search matched; the title resembles it (a typo?).'];
  const lines: string[] = [];
  for (const list of ['lexical', 'vector', 'graph'] as const) {
    const r = e.lists[list];
    if (r) lines.push(`#${r.rank} by ${LIST_LABELS[list]} (score ${r.score}).`);
  }
  if (e.linkedFrom.length > 0) lines.push(`Linked from result${e.linkedFrom.length === 1 ? '' : 's'} ${e.linkedFrom.map((r) => `#${r}`).join(', ')}: the answer may sit one link away.`);
  if (e.namedBy) lines.push(`The search names it: “${e.namedBy}”.`);
  if (e.describedBy) lines.push(`Other pages describe its subject with your words: ${e.describedBy.words.join(', ')} (approved knowledge).`);
  if (e.terms.length > 0) lines.push(`Matched words: ${e.terms.map((t) => `${t.term} (+${t.contribution})`).join(', ')}.`);
  if (e.entities.length > 0) {
    lines.push(`Mentions: ${e.entities.map((x) => `${x.name} (${x.type}, ${x.hops === 0 ? 'named in the search' : `${x.hops} hop${x.hops === 1 ? '' : 's'} away`})`).join(', ')}.`);
  }
  if (hit.section.length > 0) lines.push(`Best section: ${hit.section.join(' › ')}.`);
  return lines;
}

/** The view model of views/search.hbs. */
export function searchPageModel(result: SearchResult, pages: Pager | null) {
  const { filters } = result;
  return {
    title: result.query ? `Search: ${result.query}` : 'Search',
    extraCss: ['/static/css/search.css'],
    // Fills the header's search box.
    searchQuery: result.query,
    query: result.query,
    filters,
    filtered: Boolean(filters.cluster || filters.tag || filters.type),
    notices: result.notices,
    hits: result.hits.map((hit) => ({
      ...hit,
      tags: hit.tags.map((name) => ({ name, href: `/search?${new URLSearchParams({ q: result.query, tag: name })}` })),
      clusterHref: hit.cluster ? `/search?${new URLSearchParams({ q: result.query, cluster: hit.cluster })}` : null,
      sectionLabel: hit.section.length > 0 ? hit.section[hit.section.length - 1] : null,
      why: whyLines(hit),
    })),
    relatedEntities: result.relatedEntities,
    entity: result.entity
      ? { ...result.entity, related: result.entity.related.map((r) => ({ ...r, label: r.direction === 'out' ? r.predicate.replace(/_/g, ' ') : `${r.predicate.replace(/_/g, ' ')} (from)` })) }
      : null,
    total: result.total,
    page: result.page,
    firstRank: (result.page - 1) * result.perPage + 1,
    noResults: Boolean(result.query) && result.hits.length === 0,
    beyondLastPage: result.page > 1 && result.hits.length === 0 && result.total === 0,
    createHref: `/page/new?${new URLSearchParams({ title: result.query })}`,
    didYouMean: result.didYouMean,
    pager: pages,
  };
}
