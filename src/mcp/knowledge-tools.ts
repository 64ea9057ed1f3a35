import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { EntityPagesService } from '../curation/entity-pages.service.js';
import { headingText, passageHref } from '../pages/evidence.js';
import { ReviewSchemaService } from '../review/review-schema.service.js';
import { KgEmbeddingService } from '../kg/kg-embedding.service.js';
import { PageGraphService } from '../pages/page-graph.service.js';
import { sourceWithoutComments } from '../pages/markdown/obsidian-syntax.js';
import { plainText } from '../pages/markdown/plain-text.js';
import { PageRenderService } from '../pages/page-render.service.js';
import type { PageEntity } from '../pages/page.entity.js';
import { PagesService } from '../pages/pages.service.js';
import { SearchService } from '../search/search.service.js';
import type { EdgeRow } from '../curation/entities.repository.js';
import { AgentReadsRepository } from './agent-reads.repository.js';
import { nextCursor, pageOf, pagingInput, pagingOutput, readCursor } from './mcp-cursor.js';
import {
  edgeOf, edgeSchema, entityIdInput, fullOf, linkedPage, nodeSchema, pageFull, pageRef, pageSummary, slugInput, summaryOf, WikiUrls,
} from './mcp-schemas.js';
import { defineTool, invalidArgument } from './mcp-tool.js';
import { fitToBudget, passagesOf, questionWords } from './page-passages.js';
import { vectorText } from '../db/vector-text.js';

export const KNOWLEDGE_SERVER_NAME = 'kurate-knowledge';
const VERSION = '0.1.0';
const MAX_READ_PAGES = 20;
const MAX_TRAVERSE_NODES = 200;

const passageSchema = z.object({
  page: z.object(pageRef),
  headingPath: z.array(z.string()),
  heading: z.string().describe('The heading path as one line ("Section › Subsection"); empty before the first heading.'),
  url: z.string().describe('The place in the page (its heading anchor).'),
  text: z.string(),
  tokens: z.number().int().describe('Estimated tokens (about 4 characters each).'),
  score: z.number(),
});

/** What an agent sees as a search hit: plain text, no HTML. */
function plainSnippet(html: string): string {
  return html.replace(/<\/?mark>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/**
 * The read-only knowledge server (/knowledge-mcp and `kurate mcp`): the same services as the web UI, so an agent
 * sees what a reader sees, and the knowledge graph only through the policy-filtered views.
 */
@Injectable()
export class KnowledgeTools {
  constructor(
    private readonly pages: PagesService,
    private readonly graph: PageGraphService,
    private readonly renderer: PageRenderService,
    private readonly search: SearchService,
    private readonly entities: EntityPagesService,
    private readonly schema: ReviewSchemaService,
    private readonly embeddings: KgEmbeddingService,
    private readonly reads: AgentReadsRepository,
  ) {}

  /** A server with every tool; one per request (stateless Streamable HTTP). */
  server(baseUrl: string): McpServer {
    const server = new McpServer(
      { name: KNOWLEDGE_SERVER_NAME, version: VERSION },
      { instructions: 'Kurate is a wiki with a human-approved knowledge graph. Start with `search` or `retrieve_context`; read pages with `get_page_for_agent` (trimmed) or `get_page` (whole); explore the graph with `discover_schema`, `query_nodes`, `get_node` and `traverse`. Every result links back into the wiki.' },
    );
    this.register(server, new WikiUrls(baseUrl));
    return server;
  }

  private register(server: McpServer, urls: WikiUrls): void {
    defineTool(server, {
      name: 'search',
      title: 'Search the wiki',
      description: 'Ranked search over every page (titles, aliases, tags, text), the same search readers use. Any word may match; "-word" excludes pages. Returns pages with a plain-text snippet and score; `explain: true` adds why each ranks where it does. Use `retrieve_context` instead when you need the passages themselves.',
      effect: 'read',
      input: {
        query: z.string().trim().min(1, 'query must not be empty').max(500).describe('Words or a question.'),
        explain: z.boolean().optional().describe('Add how each hit was found and what each term contributed.'),
        ...pagingInput,
      },
      output: {
        query: z.string(),
        hits: z.array(z.object({
          id: z.string().describe('Stable page id (UUID).'), slug: z.string(), title: z.string(), url: z.string(), cluster: z.string().nullable(), tags: z.array(z.string()),
          snippet: z.string(), score: z.number(), explain: z.record(z.string(), z.unknown()).optional(),
        })),
        didYouMean: z.array(linkedPage).describe('Titles resembling the query, when it finds few pages.'),
        entity: z.object({
          id: z.string(), name: z.string(), type: z.string(), aliases: z.array(z.string()), description: z.string(), url: z.string(),
          related: z.array(z.object({ predicate: z.string(), direction: z.enum(['out', 'in']), entities: z.array(z.object({ id: z.string(), name: z.string(), type: z.string(), url: z.string() })) })),
          pages: z.array(linkedPage), totalPages: z.number().int(),
        }).nullable().describe('The approved entity the query names (most of its words), on the first page: its type, other names, a line about it, related entities by predicate and its pages. Null: none.'),
        ...pagingOutput,
      },
    }, async ({ query, explain, cursor, limit }) => {
      const list = `search:${query}`;
      const window = readCursor(list, cursor, limit);
      const page = Math.floor(window.offset / window.limit) + 1;
      const result = await this.search.search(query, page, window.limit, { explain: explain === true });
      const start = { offset: (page - 1) * window.limit, limit: window.limit };
      const live = await this.pages.findLiveMany(result.hits.map((hit) => hit.slug));
      return {
        query: result.query,
        hits: result.hits.filter((hit) => live.has(hit.slug)).map((hit) => ({
          id: live.get(hit.slug)!.id, slug: hit.slug, title: hit.title, url: urls.page(hit.slug), cluster: hit.cluster, tags: hit.tags,
          snippet: plainSnippet(hit.snippetHtml), score: hit.score,
          ...(hit.explain ? { explain: { ...hit.explain } } : {}),
        })),
        didYouMean: result.didYouMean.map((t) => ({ slug: t.slug, title: t.title, url: urls.page(t.slug) })),
        entity: result.entity
          ? {
              ...result.entity,
              url: urls.entity(result.entity.id),
              related: result.entity.related.map((r) => ({ ...r, entities: r.entities.map((e) => ({ ...e, url: urls.entity(e.id) })) })),
              pages: result.entity.pages.map((p) => ({ slug: p.slug, title: p.title, url: urls.page(p.slug) })),
            }
          : null,
        total: result.total,
        nextCursor: nextCursor(list, start, result.hits.length, result.total),
      };
    });

    defineTool(server, {
      name: 'retrieve_context',
      title: 'Passages that answer a question',
      description: 'Finds the pages that best match a question, cuts them into heading-aware passages, and returns the passages most relevant to the question, best first, within a token budget. Each passage carries its page, heading path and a link to that place. Use it to ground an answer; quote from `text`.',
      effect: 'read',
      input: {
        question: z.string().trim().min(1, 'question must not be empty').max(1000),
        tokenBudget: z.number().int().min(100).max(8000).optional().describe('At most this many tokens of passages in all (default 1500).'),
        maxPages: z.number().int().min(1).max(10).optional().describe('Look at this many of the best-matching pages (default 5).'),
      },
      output: {
        question: z.string(),
        passages: z.array(passageSchema),
        tokensUsed: z.number().int(),
        tokenBudget: z.number().int(),
      },
    }, async ({ question, tokenBudget, maxPages }) => {
      const budget = tokenBudget ?? 1500;
      const words = questionWords(question);
      const found = await this.search.search(question, 1, maxPages ?? 5);
      const live = await this.pages.findLiveMany(found.hits.map((hit) => hit.slug));
      const candidates = [];
      for (const [rank, hit] of found.hits.entries()) {
        const page = live.get(hit.slug);
        if (!page) continue;
        // A passage of a page the search ranks higher weighs up to half as much again.
        const pageWeight = 1 + (0.5 * (found.hits.length - rank)) / found.hits.length;
        for (const passage of passagesOf(page.body, words)) candidates.push({ page, passage: { ...passage, score: passage.score * pageWeight } });
      }
      const chosen = fitToBudget(candidates.map((c) => c.passage), budget, { inPageOrder: false, needMatch: words.length > 0 });
      const pageOfPassage = new Map(candidates.map((c) => [c.passage, c.page]));
      const passages = chosen.map((passage) => this.passageView(pageOfPassage.get(passage)!, passage, urls));
      return { question, passages, tokensUsed: passages.reduce((n, p) => n + p.tokens, 0), tokenBudget: budget };
    });

    defineTool(server, {
      name: 'get_page',
      title: 'Read a page',
      description: 'One page, whole: its Markdown source with frontmatter (the author\'s %%comments%% left out), metadata (cluster, tags, type, aliases) and version. An old slug that was renamed is followed (redirectedFrom says so). For long pages prefer `get_page_for_agent`.',
      effect: 'read',
      input: { slug: slugInput },
      output: { page: pageFull, redirectedFrom: z.string().nullable() },
    }, async ({ slug }) => {
      const { page, redirectedFrom } = await this.livePage(slug);
      return { page: readerFullOf(page, urls), redirectedFrom };
    });

    defineTool(server, {
      name: 'read_pages',
      title: 'Read several pages',
      description: `Several pages at once (at most ${MAX_READ_PAGES}), whole, in the order asked. Slugs that name no page are listed in \`missing\` with the reason; the others are still returned.`,
      effect: 'read',
      input: { slugs: z.array(slugInput).min(1).max(MAX_READ_PAGES, `read at most ${MAX_READ_PAGES} pages per call`) },
      output: { pages: z.array(pageFull), missing: z.array(z.object({ slug: z.string(), reason: z.string() })) },
    }, async ({ slugs }) => {
      const pages: z.input<typeof pageFull>[] = [];
      const missing: { slug: string; reason: string }[] = [];
      for (const slug of [...new Set(slugs)]) {
        const found = await this.livePage(slug).catch((error: Error) => error);
        if (found instanceof Error) missing.push({ slug, reason: found.message });
        else pages.push(readerFullOf(found.page, urls));
      }
      return { pages, missing };
    });

    defineTool(server, {
      name: 'get_page_for_agent',
      title: 'Read a page within a token budget',
      description: 'A page trimmed for a model: a short summary, the outline of its headings (with links), and the sections that matter most (to `focus` when given, else from the top) that fit in the token budget, in page order. `omittedSections` says how much was left out; call `get_page` for everything.',
      effect: 'read',
      input: {
        slug: slugInput,
        tokenBudget: z.number().int().min(100).max(8000).optional().describe('At most this many tokens of sections (default 1000).'),
        focus: z.string().max(500).optional().describe('What you are looking for in the page: sections about it come first.'),
      },
      output: {
        page: pageSummary,
        summary: z.string(),
        outline: z.array(z.object({ level: z.number().int(), heading: z.string(), url: z.string() })).describe('Every heading of the page, with a link to it.'),
        sections: z.array(passageSchema.omit({ page: true })),
        omittedSections: z.number().int(),
        tokensUsed: z.number().int(),
        tokenBudget: z.number().int(),
      },
    }, async ({ slug, tokenBudget, focus }) => {
      const budget = tokenBudget ?? 1000;
      const { page } = await this.livePage(slug);
      const words = questionWords(focus ?? '');
      const all = passagesOf(page.body, words);
      // Without a focus, earlier sections matter more (the introduction first).
      const ranked = words.length > 0 ? all : all.map((p) => ({ ...p, score: 1 / (1 + p.position) }));
      const chosen = fitToBudget(ranked, budget, { inPageOrder: true, needMatch: false });
      const sections = chosen.map((p) => {
        const { page: _page, ...view } = this.passageView(page, p, urls);
        return view;
      });
      const description = typeof page.frontmatter.description === 'string' ? page.frontmatter.description : typeof page.frontmatter.summary === 'string' ? page.frontmatter.summary : null;
      const firstParagraph = all[0]?.text.split(/\n\s*\n/).find((block) => !/^\s*#/.test(block)) ?? '';
      return {
        page: summaryOf(page, urls),
        summary: (description ?? plainText(firstParagraph)).trim().slice(0, 600),
        outline: (await this.renderer.render(page)).toc.map((h) => ({ level: h.level, heading: h.text, url: `${urls.page(page.slug)}#${h.anchor}` })),
        sections,
        omittedSections: all.length - sections.length,
        tokensUsed: sections.reduce((n, s) => n + s.tokens, 0),
        tokenBudget: budget,
      };
    });

    defineTool(server, {
      name: 'list_pages',
      title: 'List all pages',
      description: 'Every live page, by title or most recently updated first, a page of results at a time (pass nextCursor back as cursor).',
      effect: 'read',
      input: { sort: z.enum(['title', 'updated']).optional().describe('title (default) or updated (newest first).'), ...pagingInput },
      output: { pages: z.array(pageSummary), ...pagingOutput },
    }, async ({ sort, cursor, limit }) => {
      const list = `pages:${sort ?? 'title'}`;
      const window = readCursor(list, cursor, limit);
      const [items, total] = await this.pages.list({ sort: sort ?? 'title', limit: window.limit, offset: window.offset });
      return { pages: items.map((p) => summaryOf(p, urls)), total, nextCursor: nextCursor(list, window, items.length, total) };
    });

    defineTool(server, {
      name: 'list_pages_by_filter',
      title: 'List pages by cluster, tag, type or date',
      description: 'Live pages matching every filter given: a cluster (its sub-clusters included), a tag, a frontmatter type, and/or updated at or after a date-time. Newest first. Use `list_clusters`, `list_tags` and `list_metadata_values` (key "type") to find the values.',
      effect: 'read',
      input: {
        cluster: z.string().max(200).optional(),
        tag: z.string().max(200).optional(),
        type: z.string().max(200).optional(),
        updatedSince: z.iso.datetime({ offset: true, message: 'updatedSince must be an ISO 8601 date-time, e.g. "2026-01-31T00:00:00Z"' }).optional(),
        ...pagingInput,
      },
      output: { pages: z.array(pageSummary), ...pagingOutput },
    }, async ({ cluster, tag, type, updatedSince, cursor, limit }) => {
      const list = `filter:${JSON.stringify([cluster, tag, type, updatedSince])}`;
      const window = readCursor(list, cursor, limit);
      const { rows, total } = await this.reads.pages({ cluster, tag, type, updatedSince: updatedSince ? new Date(updatedSince) : undefined, ...window });
      return {
        pages: rows.map((r) => ({ id: r.id, slug: r.slug, title: r.title, url: urls.page(r.slug), cluster: r.cluster, tags: r.tags, type: r.type, version: r.version, updatedAt: new Date(r.updatedAt).toISOString() })),
        total,
        nextCursor: nextCursor(list, window, rows.length, total),
      };
    });

    const facets = [
      { name: 'list_clusters', key: 'clusters', title: 'List clusters', description: 'The clusters pages belong to (a page’s frontmatter `cluster:`; "parent/child" nests), with how many pages each has, most pages first.' },
      { name: 'list_tags', key: 'tags', title: 'List tags', description: 'The tags used on pages (frontmatter `tags:`), with how many pages use each, most used first.' },
    ] as const;
    for (const facet of facets) {
      defineTool(server, {
        name: facet.name,
        title: facet.title,
        description: facet.description,
        effect: 'read',
        input: { ...pagingInput },
        output: { [facet.key]: z.array(z.object({ name: z.string(), pages: z.number().int(), url: z.string() })), ...pagingOutput },
      }, async ({ cursor, limit }) => {
        const all = (await this.pages.facets())[facet.key];
        const page = pageOf(facet.key, all, cursor, limit);
        const filter = (name: string) => (facet.key === 'clusters' ? { cluster: name } : { tag: name });
        return { [facet.key]: page.items.map((f) => ({ name: f.name, pages: f.count, url: urls.pagesWith(filter(f.name)) })), total: page.total, nextCursor: page.nextCursor };
      });
    }

    defineTool(server, {
      name: 'list_metadata_values',
      title: 'List frontmatter keys or values',
      description: 'Without `key`: the frontmatter keys pages use, with how many pages use each. With `key` (e.g. "type", "tags", "status"): the values it takes, each item of a list counted, with how many pages have each.',
      effect: 'read',
      input: { key: z.string().min(1).max(200).optional(), ...pagingInput },
      output: { key: z.string().nullable(), values: z.array(z.object({ value: z.string(), pages: z.number().int() })), ...pagingOutput },
    }, async ({ key, cursor, limit }) => {
      const values = key ? await this.reads.metadataValues(key) : await this.reads.metadataKeys();
      const page = pageOf(`metadata:${key ?? ''}`, values, cursor, limit);
      return { key: key ?? null, values: page.items, total: page.total, nextCursor: page.nextCursor };
    });

    defineTool(server, {
      name: 'get_backlinks',
      title: 'Pages linking to a page',
      description: 'The pages whose text links to this page (the links authors wrote: [[wikilinks]] and Markdown links), the Page Graph, not the knowledge graph.',
      effect: 'read',
      input: { slug: slugInput, ...pagingInput },
      output: { page: linkedPage, backlinks: z.array(linkedPage.extend({ cluster: z.string().nullable() })), ...pagingOutput },
    }, async ({ slug, cursor, limit }) => {
      const { page } = await this.livePage(slug);
      const backlinks = await this.graph.backlinksOf(page);
      const window = pageOf(`backlinks:${page.id}`, backlinks, cursor, limit);
      return {
        page: { slug: page.slug, title: page.title, url: urls.page(page.slug) },
        backlinks: window.items.map((b) => ({ slug: b.slug, title: b.title, cluster: b.cluster, url: urls.page(b.slug) })),
        total: window.total,
        nextCursor: window.nextCursor,
      };
    });

    defineTool(server, {
      name: 'get_outbound_links',
      title: 'Links from a page',
      description: 'The links a page’s text makes, in order: each with its target as written, the heading it points at, and the page it resolves to (null when that page does not exist: a broken link).',
      effect: 'read',
      input: { slug: slugInput, ...pagingInput },
      output: {
        page: linkedPage,
        links: z.array(z.object({ kind: z.string(), target: z.string(), heading: z.string().nullable(), resolved: z.boolean(), page: linkedPage.nullable() })),
        ...pagingOutput,
      },
    }, async ({ slug, cursor, limit }) => {
      const { page } = await this.livePage(slug);
      const links = await this.graph.outbound(page.slug);
      const window = pageOf(`outbound:${page.id}`, links, cursor, limit);
      return {
        page: { slug: page.slug, title: page.title, url: urls.page(page.slug) },
        links: window.items.map((l) => ({
          kind: l.kind, target: l.target, heading: l.heading, resolved: l.page !== null,
          page: l.page ? { slug: l.page.slug, title: l.page.title, url: urls.page(l.page.slug) } : null,
        })),
        total: window.total,
        nextCursor: window.nextCursor,
      };
    });

    defineTool(server, {
      name: 'get_broken_links',
      title: 'Broken links (wanted pages)',
      description: 'Links to pages that do not exist. Without `slug`: every wanted page in the wiki, most wanted first, with the pages that link to it. With `slug`: the broken links of that one page.',
      effect: 'read',
      input: { slug: slugInput.optional(), ...pagingInput },
      output: {
        links: z.array(z.object({ target: z.string(), targetKey: z.string(), wantedBy: z.number().int(), fromPages: z.array(linkedPage), createUrl: z.string() })),
        ...pagingOutput,
      },
    }, async ({ slug, cursor, limit }) => {
      const createUrl = (title: string) => urls.absolute(`/page/new?title=${encodeURIComponent(title)}`);
      if (slug) {
        const { page } = await this.livePage(slug);
        const broken = (await this.graph.outbound(page.slug)).filter((l) => l.page === null);
        const window = pageOf(`broken:${page.id}`, broken, cursor, limit);
        const from = { slug: page.slug, title: page.title, url: urls.page(page.slug) };
        return {
          links: window.items.map((l) => ({ target: l.target, targetKey: l.targetKey, wantedBy: 1, fromPages: [from], createUrl: createUrl(l.target) })),
          total: window.total,
          nextCursor: window.nextCursor,
        };
      }
      const window = readCursor('wanted', cursor, limit);
      const wanted = await this.graph.wanted(window.limit, window.offset);
      return {
        links: wanted.items.map((w) => ({
          target: w.target, targetKey: w.targetKey, wantedBy: w.wantedBy,
          fromPages: w.fromPages.map((p) => ({ slug: p.slug, title: p.title, url: urls.page(p.slug) })), createUrl: createUrl(w.target),
        })),
        total: wanted.total,
        nextCursor: nextCursor('wanted', window, wanted.items.length, wanted.total),
      };
    });

    defineTool(server, {
      name: 'discover_schema',
      title: 'The knowledge graph’s schema',
      description: 'What the knowledge graph can hold and holds: the entity types and relation predicates (closed vocabularies) with how many approved entities and edges use each, and totals. Call it first to know which `type` and `predicates` values `query_nodes` and `traverse` accept.',
      effect: 'read',
      input: {},
      output: {
        entityTypes: z.array(z.object({ name: z.string(), entities: z.number().int() })),
        predicates: z.array(z.object({ name: z.string(), edges: z.number().int() })),
        totals: z.object({ entities: z.number().int(), typedEdges: z.number().int(), coMentionEdges: z.number().int() }),
      },
    }, async () => {
      const [schema, counts] = [await this.schema.describe(), await this.reads.graphCounts()];
      return {
        entityTypes: schema.types.map((t) => ({ name: t.name, entities: t.entities })),
        predicates: schema.predicates.map((p) => ({ name: p.name, edges: p.edges })),
        totals: { entities: counts.nodes, typedEdges: counts.typedEdges, coMentionEdges: counts.coMentionEdges },
      };
    });

    defineTool(server, {
      name: 'query_nodes',
      title: 'Find entities',
      description: 'Approved entities of the knowledge graph matching every filter given: a type (see `discover_schema`), words in the name or an alias, words in the description, an origin. By name.',
      effect: 'read',
      input: {
        type: z.string().max(100).optional(),
        name: z.string().max(200).optional().describe('Part of the name or of an alias (case-insensitive).'),
        description: z.string().max(200).optional().describe('Part of the description (case-insensitive).'),
        origin: z.enum(['extracted', 'manual', 'import']).optional(),
        ...pagingInput,
      },
      output: { nodes: z.array(nodeSchema), ...pagingOutput },
    }, async ({ type, name, description, origin, cursor, limit }) => {
      const list = `nodes:${JSON.stringify([type, name, description, origin])}`;
      const window = readCursor(list, cursor, limit);
      const { rows, total } = await this.reads.queryNodes({ type, name, description, origin, ...window });
      return { nodes: rows.map((n) => ({ ...n, url: urls.entity(n.id) })), total, nextCursor: nextCursor(list, window, rows.length, total) };
    });

    defineTool(server, {
      name: 'get_node',
      title: 'An entity with its edges, mentions and provenance',
      description: 'One entity: its typed relations out and in, its strongest co-mentions, the pages and passages that mention it, and its provenance (the proposals it was approved from, by whom, with which extractor).',
      effect: 'read',
      input: { id: entityIdInput() },
      output: {
        node: nodeSchema,
        out: z.array(edgeSchema),
        in: z.array(edgeSchema),
        coMentions: z.array(edgeSchema),
        pages: z.array(linkedPage.extend({ mentions: z.number().int() })),
        mentions: z.object({
          total: z.number().int(),
          passages: z.array(z.object({ surface: z.string(), page: linkedPage, heading: z.string(), url: z.string(), excerpt: z.string() })),
        }),
        provenance: z.array(z.object({
          proposalId: z.string(), approvedBy: z.string(), approvedAt: z.string(), extractor: z.string(), model: z.string().nullable(), confidence: z.number(),
        })),
      },
    }, async ({ id }) => {
      const view = await this.entities.page(id);
      const e = view.entity;
      return {
        node: { id: e.id, name: e.name, type: e.type, aliases: e.aliases, description: e.description, origin: e.origin, url: urls.entity(e.id) },
        out: view.out.map(edgeOf),
        in: view.in.map(edgeOf),
        coMentions: view.coMentions.map(edgeOf),
        pages: view.pages.map((p) => ({ slug: p.slug, title: p.title, url: urls.page(p.slug), mentions: p.mentions })),
        mentions: {
          total: view.mentionCount,
          passages: view.passages.map((p) => ({
            surface: p.surface, page: { slug: p.slug, title: p.title, url: urls.page(p.slug) }, heading: p.heading, url: urls.absolute(p.href),
            excerpt: `${p.highlight.before}${p.highlight.match}${p.highlight.after}`,
          })),
        },
        provenance: view.provenance.map((p) => ({
          proposalId: p.proposalId, approvedBy: p.approvedBy, approvedAt: new Date(p.approvedAt).toISOString(), extractor: p.extractor, model: p.model, confidence: Number(p.confidence),
        })),
      };
    });

    defineTool(server, {
      name: 'traverse',
      title: 'Walk the knowledge graph from an entity',
      description: `Breadth-first from an entity over approved typed relations (co-mentions too with includeCoMentions), up to \`depth\` hops (1–3), optionally only some predicates and one direction. Returns the entities reached with their distance and the edges walked; at most \`maxNodes\` (≤ ${MAX_TRAVERSE_NODES}) entities, \`truncated\` says when more were there.`,
      effect: 'read',
      input: {
        from: entityIdInput(),
        depth: z.number().int().min(1).max(3).optional().describe('Hops (default 2).'),
        predicates: z.array(z.string().max(100)).max(20).optional().describe('Only these predicates (see discover_schema).'),
        direction: z.enum(['out', 'in', 'both']).optional().describe('Follow edges out of, into, or both ways (default both).'),
        includeCoMentions: z.boolean().optional().describe('Also walk co-mention edges (entities named in the same passage).'),
        maxNodes: z.number().int().min(1).max(MAX_TRAVERSE_NODES).optional().describe('Stop after this many entities (default 50).'),
      },
      output: {
        start: nodeSchema,
        nodes: z.array(nodeSchema.extend({ depth: z.number().int() })),
        edges: z.array(edgeSchema),
        truncated: z.boolean(),
      },
    }, async ({ from, depth, predicates, direction, includeCoMentions, maxNodes }) => {
      const [start] = await this.reads.nodes([from]);
      if (!start) throw invalidArgument(`There is no entity ${from} (or the inclusion policy hides it): find ids with query_nodes.`);
      const max = maxNodes ?? 50;
      const depthOf = new Map<string, number>([[start.id, 0]]);
      const edges = new Map<string, EdgeRow>();
      let frontier = [start.id];
      let truncated = false;
      for (let hop = 1; hop <= (depth ?? 2) && frontier.length > 0 && !truncated; hop++) {
        const step = await this.reads.edgesTouching(frontier, { predicates, coMentions: includeCoMentions === true, direction: direction ?? 'both', limit: max * 4 });
        const next: string[] = [];
        const current = new Set(frontier);
        const way = direction ?? 'both';
        for (const edge of step) {
          const other = current.has(edge.sourceId) && way !== 'in' ? edge.targetId : current.has(edge.targetId) && way !== 'out' ? edge.sourceId : null;
          if (other !== null && !depthOf.has(other)) {
            if (depthOf.size > max) {
              truncated = true;
              continue;
            }
            depthOf.set(other, hop);
            next.push(other);
          }
          if (depthOf.has(edge.sourceId) && depthOf.has(edge.targetId)) edges.set(edge.id, edge);
        }
        frontier = next;
      }
      const reached = await this.reads.nodes([...depthOf.keys()].filter((id) => id !== start.id));
      return {
        start: { ...start, url: urls.entity(start.id) },
        nodes: reached.map((n) => ({ ...n, url: urls.entity(n.id), depth: depthOf.get(n.id)! })).sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name)),
        edges: [...edges.values()].map(edgeOf),
        truncated,
      };
    });

    defineTool(server, {
      name: 'find_similar',
      title: 'Entities similar to an entity or a name',
      description: 'The approved entities nearest by embedding (cosine similarity, 1 = same): to an entity (`id`), or to a name and type you give (`name` + `type`), e.g. to check whether something already exists under another name.',
      effect: 'read',
      input: {
        id: entityIdInput().optional(),
        name: z.string().min(1).max(200).optional(),
        type: z.string().min(1).max(100).optional().describe('With name: its entity type (default concept).'),
        limit: z.number().int().min(1).max(50).optional().describe('How many (default 10).'),
      },
      output: {
        model: z.string().describe('The embedding model compared in.'),
        similar: z.array(nodeSchema.extend({ similarity: z.number() })),
      },
    }, async ({ id, name, type, limit }) => {
      if ((id === undefined) === (name === undefined)) throw invalidArgument('Give either `id` (an entity) or `name` (with an optional `type`), not both and not neither.');
      const model = this.embeddings.model;
      let vector: string | null;
      if (id !== undefined) {
        if ((await this.reads.nodes([id])).length === 0) throw invalidArgument(`There is no entity ${id} (or the inclusion policy hides it): find ids with query_nodes.`);
        vector = await this.reads.nodeVector(id, model);
        if (!vector) return { model, similar: [] };
      } else {
        vector = vectorText((await this.embeddings.embedName(name!, type ?? 'concept')).vector);
      }
      const rows = await this.reads.nearestNodes(vector, model, id ?? null, limit ?? 10);
      return { model, similar: rows.map((n) => ({ ...n, similarity: Number(n.similarity), url: urls.entity(n.id) })) };
    });

    defineTool(server, {
      name: 'related_pages',
      title: 'Pages related through the knowledge graph',
      description: 'Pages connected to a page through approved entities: pages that mention the entities it mentions (or their direct relations), best connected first, with the entities that connect them. Complements `get_backlinks`, which follows the links authors wrote.',
      effect: 'read',
      input: { slug: slugInput, limit: z.number().int().min(1).max(50).optional().describe('How many (default 10).') },
      output: { page: linkedPage, related: z.array(linkedPage.extend({ score: z.number(), via: z.array(z.string()) })) },
    }, async ({ slug, limit }) => {
      const { page } = await this.livePage(slug);
      const related = await this.reads.relatedPages(page.id, limit ?? 10);
      return {
        page: { slug: page.slug, title: page.title, url: urls.page(page.slug) },
        related: related.map((r) => ({ slug: r.slug, title: r.title, url: urls.page(r.slug), score: Number(r.score), via: r.via })),
      };
    });
  }

  /** The live page with this slug, following a rename's redirect once. */
  private async livePage(slug: string): Promise<{ page: PageEntity; redirectedFrom: string | null }> {
    const found = await this.pages.lookup(slug);
    if (found && 'redirectTo' in found) return { page: await this.pages.get(found.redirectTo), redirectedFrom: slug };
    return { page: found?.page ?? (await this.pages.get(slug)), redirectedFrom: null };
  }

  private passageView(page: PageEntity, passage: { headingPath: string[]; anchor: string | null; text: string; tokens: number; score: number }, urls: WikiUrls): z.input<typeof passageSchema> {
    return {
      page: { id: page.id, slug: page.slug, title: page.title, url: urls.page(page.slug) },
      headingPath: passage.headingPath,
      heading: headingText(passage.headingPath),
      url: urls.absolute(passageHref(page.slug, passage)),
      // As a reader sees it: no Markdown syntax (the source is one get_page away).
      text: plainText(passage.text),
      tokens: passage.tokens,
      score: Math.round(passage.score * 1000) / 1000,
    };
  }
}

/** A page for the read tools: the source without the author's %%comments%% (the curation tools keep them). */
function readerFullOf(page: PageEntity, urls: WikiUrls): ReturnType<typeof fullOf> {
  return { ...fullOf(page, urls), body: sourceWithoutComments(page.body) };
}
