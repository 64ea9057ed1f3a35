import { Injectable } from '@nestjs/common';
import { parseSearchQuery } from './search-query.js';
import { SearchRepository } from './search.repository.js';

export interface SearchHit {
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  /** Safe HTML: escaped text with the matched words in <mark>. */
  snippetHtml: string;
  score: number;
  url: string;
  /** With `explain`: how the hit was found and what each matched term added. */
  explain?: SearchHitExplanation;
}

export interface SearchHitExplanation {
  /** `lexical`: BM25 over titles, aliases/tags and text; `fuzzy-title`: a title resembling the query (no word matched). */
  source: 'lexical' | 'fuzzy-title';
  rank: number;
  terms: { term: string; contribution: number }[];
}

export interface TitleLink {
  slug: string;
  title: string;
  url: string;
}

export interface SearchResult {
  query: string;
  hits: SearchHit[];
  total: number;
  page: number;
  perPage: number;
  /** Titles resembling the query (typo tolerance), offered when it finds few pages. */
  didYouMean: TitleLink[];
}

export interface SearchOptions {
  explain?: boolean;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// Fewer hits than this and the reader probably mistyped: offer titles that look like the query.
const FEW_RESULTS = 3;
const SUGGESTIONS = 3;

/** Escapes the snippet text, then turns the database's match markers into <mark> elements. */
export function snippetToHtml(snippet: string): string {
  return snippet
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replace(/⟦/g, '<mark>')
    .replace(/⟧/g, '</mark>');
}

const pageUrl = (slug: string) => `/page/${encodeURIComponent(slug)}`;

/**
 * The reader's search box: a BM25-like lexical ranker in PostgreSQL (any word may match; rare words, titles and
 * aliases count more; long pages do not win by length), with fuzzy titles when the words find nothing.
 */
@Injectable()
export class SearchService {
  constructor(private readonly repository: SearchRepository) {}

  async search(query: string, page: number, perPage: number, options: SearchOptions = {}): Promise<SearchResult> {
    const q = query.trim();
    if (!q) return { query: q, hits: [], total: 0, page, perPage, didYouMean: [] };
    const { words, excluded } = parseSearchQuery(q);
    const offset = (page - 1) * perPage;
    const lexical = await this.repository.lexicalSearch(words, excluded, perPage, offset);
    let hits: SearchHit[] = lexical.hits.map((hit, i) => ({
      slug: hit.slug,
      title: hit.title,
      cluster: hit.cluster,
      tags: hit.tags,
      snippetHtml: snippetToHtml(hit.snippet),
      score: Number(hit.score),
      url: pageUrl(hit.slug),
      ...(options.explain ? { explain: { source: 'lexical' as const, rank: offset + i + 1, terms: hit.terms } } : {}),
    }));
    let total = lexical.total;
    let didYouMean: TitleLink[] = [];
    if (total < FEW_RESULTS && words) {
      const similar = await this.repository.similarTitles(words, SUGGESTIONS);
      const found = new Set(hits.map((hit) => hit.slug));
      didYouMean = similar.filter((s) => !found.has(s.slug)).map((s) => ({ slug: s.slug, title: s.title, url: pageUrl(s.slug) }));
      // Nothing matched a word: the titles that look like the query are the results (a typo in a title).
      if (total === 0 && page === 1 && similar.length > 0) {
        hits = similar.map((s, i) => ({
          slug: s.slug,
          title: s.title,
          cluster: null,
          tags: [],
          snippetHtml: '',
          score: Number(s.similarity),
          url: pageUrl(s.slug),
          ...(options.explain ? { explain: { source: 'fuzzy-title' as const, rank: i + 1, terms: [] } } : {}),
        }));
        total = hits.length;
      }
    }
    return { query: q, total, page, perPage, hits, didYouMean };
  }

  /** Page titles for the search box as the reader types. */
  suggest(prefix: string, limit = 8): Promise<{ slug: string; title: string }[]> {
    const text = prefix.trim();
    return text ? this.repository.titlesStartingWith(text, limit) : Promise.resolve([]);
  }
}
