import { z } from 'zod';
import { ID_PATTERN } from '../admin/review-errors.js';
import { entityHref as adminEntityHref, edgeHref, proposalHref } from '../admin/web-helpers.js';
import { entityHref } from '../web/reader-urls.js';
import type { PageEntity } from '../pages/page.entity.js';

/** Absolute links into the wiki, from the address the client used to reach this server. */
export class WikiUrls {
  constructor(private readonly baseUrl: string) {}

  page(slug: string): string {
    return `${this.baseUrl}/page/${encodeURIComponent(slug)}`;
  }

  /** A relative wiki path ("/page/x#h") made absolute. */
  absolute(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** The reader's page of an approved entity: any reader (or a reader's agent) may follow it. */
  entity(id: string): string {
    return `${this.baseUrl}${entityHref(id)}`;
  }

  /** The admin's curation page of an entity (the admin tools link there). */
  adminEntity(id: string): string {
    return `${this.baseUrl}${adminEntityHref(id)}`;
  }

  edge(id: string): string {
    return `${this.baseUrl}${edgeHref(id)}`;
  }

  proposal(id: string): string {
    return `${this.baseUrl}${proposalHref(id)}`;
  }

  pagesWith(filter: { cluster?: string; tag?: string }): string {
    return `${this.baseUrl}/pages?${new URLSearchParams(filter as Record<string, string>)}`;
  }
}

export const slugInput = z.string().min(1).max(300).describe('The page’s slug (as in its URL /page/<slug>), e.g. "graph-visualization".');

export const entityIdInput = (what = 'entity') =>
  z.string().regex(ID_PATTERN, `An ${what} id is a positive whole number written as a string, e.g. "42".`).describe(`The ${what} id (a number as a string).`);

export const pageRef = {
  id: z.string().describe('Stable page id (UUID).'),
  slug: z.string(),
  title: z.string(),
  url: z.string().describe('The page in the wiki.'),
};

export const pageSummary = z.object({
  ...pageRef,
  cluster: z.string().nullable(),
  tags: z.array(z.string()),
  type: z.string().nullable(),
  version: z.number().int().describe('Send it back as baseVersion when updating the page.'),
  updatedAt: z.string(),
});

export const pageFull = pageSummary.extend({
  clusters: z.array(z.string()),
  aliases: z.array(z.string()),
  frontmatter: z.record(z.string(), z.unknown()),
  body: z.string().describe('The full source: YAML frontmatter and Markdown.'),
  createdAt: z.string(),
  updatedBy: z.string(),
});

export const linkedPage = z.object({ slug: z.string(), title: z.string(), url: z.string() });

export const nodeSchema = z.object({
  id: z.string().describe('Stable entity id.'),
  name: z.string(),
  type: z.string(),
  aliases: z.array(z.string()),
  description: z.string(),
  origin: z.string().describe('extracted (approved from proposals), manual (made by an admin) or import.'),
  url: z.string(),
});

export const edgeSchema = z.object({
  id: z.string().describe('Stable edge id.'),
  kind: z.enum(['typed', 'co_mention']),
  predicate: z.string(),
  weight: z.number(),
  source: z.object({ id: z.string(), name: z.string(), type: z.string() }),
  target: z.object({ id: z.string(), name: z.string(), type: z.string() }),
});

export function summaryOf(page: PageEntity, urls: WikiUrls): z.input<typeof pageSummary> {
  return {
    id: page.id, slug: page.slug, title: page.title, url: urls.page(page.slug), cluster: page.cluster, tags: page.tags,
    type: page.pageType, version: page.version, updatedAt: page.updatedAt.toISOString(),
  };
}

export function fullOf(page: PageEntity, urls: WikiUrls): z.input<typeof pageFull> {
  return {
    ...summaryOf(page, urls), clusters: page.clusters, aliases: page.aliases, frontmatter: page.frontmatter, body: page.body,
    createdAt: page.createdAt.toISOString(), updatedBy: page.updatedBy,
  };
}

export function edgeOf(row: { id: string; kind: 'typed' | 'co_mention'; predicate: string; weight: number; sourceId: string; sourceName: string; sourceType: string; targetId: string; targetName: string; targetType: string }): z.input<typeof edgeSchema> {
  return {
    id: row.id, kind: row.kind, predicate: row.predicate, weight: Number(row.weight),
    source: { id: row.sourceId, name: row.sourceName, type: row.sourceType },
    target: { id: row.targetId, name: row.targetName, type: row.targetType },
  };
}
