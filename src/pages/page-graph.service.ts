import { Injectable } from '@nestjs/common';
import { PageLinksRepository } from './page-links.repository.js';
import { PagesService } from './pages.service.js';

/** The Page Graph: links authors wrote, exact and immediate. Never mixed with the knowledge graph. */
@Injectable()
export class PageGraphService {
  constructor(
    private readonly pages: PagesService,
    private readonly links: PageLinksRepository,
  ) {}

  async backlinks(slug: string) {
    const page = await this.pages.get(slug);
    return this.links.backlinks(page.id);
  }

  /** Backlinks of a page already loaded (no second lookup by slug). */
  backlinksOf(page: { id: string }) {
    return this.links.backlinks(page.id);
  }

  async outbound(slug: string) {
    const page = await this.pages.get(slug);
    return this.links.outbound(page.id);
  }

  wanted(limit: number, offset: number) {
    return this.links.wanted(limit, offset);
  }

  orphans(limit: number, offset: number) {
    return this.links.orphans(limit, offset);
  }

  hubs(limit: number) {
    return this.links.hubs(limit);
  }

  linkCounts() {
    return this.links.counts();
  }

  /** A page's neighbourhood for the graph view: live pages within `hops` links, either direction. */
  async neighbourhood(slug: string, hops: number) {
    const page = await this.pages.get(slug);
    const { nodes, edges } = await this.links.neighbourhood(page.id, hops, 300);
    return {
      center: page.slug,
      nodes: nodes.map(({ id: _id, ...node }) => node),
      edges,
    };
  }
}
