import { Injectable } from '@nestjs/common';
import { PagesService } from '../pages/pages.service.js';

export interface SearchHit {
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  /** Safe HTML: escaped text with the matched words in <mark>. */
  snippetHtml: string;
  score: number;
  url: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes the snippet text, then turns the database's match markers into <mark> elements. */
export function snippetToHtml(snippet: string): string {
  return snippet
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replace(/⟦/g, '<mark>')
    .replace(/⟧/g, '</mark>');
}

/** The reader's search box: PostgreSQL full-text search over titles and bodies, ranked, with highlighted snippets. */
@Injectable()
export class SearchService {
  constructor(private readonly pages: PagesService) {}

  async search(query: string, page: number, perPage: number): Promise<{ query: string; hits: SearchHit[]; total: number; page: number; perPage: number }> {
    const q = query.trim();
    if (!q) return { query: q, hits: [], total: 0, page, perPage };
    const { hits, total } = await this.pages.fullTextSearch(q, perPage, (page - 1) * perPage);
    return {
      query: q,
      total,
      page,
      perPage,
      hits: hits.map((hit) => ({
        slug: hit.slug,
        title: hit.title,
        cluster: hit.cluster,
        tags: hit.tags,
        snippetHtml: snippetToHtml(hit.snippet),
        score: Number(hit.rank),
        url: `/page/${encodeURIComponent(hit.slug)}`,
      })),
    };
  }
}
