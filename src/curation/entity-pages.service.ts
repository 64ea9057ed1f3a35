import { Injectable } from '@nestjs/common';
import { PageGraphService } from '../pages/page-graph.service.js';
import { slugify } from '../pages/markdown/slug.js';
import { EntitiesRepository, type EdgeRow, type EntityListFilter, type EntityRow, type MentionPageRow, type ProvenanceRow } from './entities.repository.js';
import { headingText, highlightQuote, passageHref, type Highlight } from '../pages/evidence.js';
import { ReviewErrors } from '../admin/review-errors.js';

export const PASSAGES_PER_PAGE = 20;
/** The strongest co-mentions an entity page lists (an entity mentioned everywhere has thousands). */
export /** The furthest page of passages asked for (each page shows PASSAGES_PER_PAGE; an entity has far fewer). */
const MAX_PASSAGE_PAGE = 1_000_000;
const CO_MENTIONS_SHOWN = 50;

export interface PassageView {
  mentionId: string;
  surface: string;
  slug: string;
  title: string;
  href: string;
  heading: string;
  highlight: Highlight;
}

export interface EntityPage {
  entity: EntityRow;
  provenance: ProvenanceRow[];
  provenanceTotal: number;
  pages: (MentionPageRow & { href: string })[];
  pageCount: number;
  mentionCount: number;
  passages: PassageView[];
  passagePage: number;
  passagePages: number;
  out: EdgeRow[];
  in: EdgeRow[];
  coMentions: (EdgeRow & { otherId: string; otherName: string; otherType: string })[];
}

export interface NeighbourhoodGraph {
  center: string;
  nodes: { id: string; name: string; type: string; center: boolean }[];
  edges: { id: string; source: string; target: string; kind: 'typed' | 'co_mention'; predicate: string; weight: number }[];
}

export interface ContentGap {
  title: string;
  key: string;
  /** From the knowledge graph: the entity and on how many pages it is mentioned. */
  entity: { id: string; name: string; type: string; pages: number; mentions: number } | null;
  /** From the Page Graph: how many pages link to this missing page. */
  wantedBy: number;
  fromPages: { slug: string; title: string }[];
  createHref: string;
}

/** What curation reads: the entity list and page, an edge, the neighbourhood graph, and the content gaps. */
@Injectable()
export class EntityPagesService {
  constructor(
    private readonly entities: EntitiesRepository,
    private readonly pageGraph: PageGraphService,
  ) {}

  async list(filter: EntityListFilter) {
    return this.entities.reading(async (db) => {
      const { rows, total } = await this.entities.list(filter, db);
      return { rows, total, types: await this.entities.typeCounts(db) };
    });
  }

  async entity(id: string): Promise<EntityRow> {
    const entity = await this.entities.get(id);
    if (!entity) throw ReviewErrors.notFound(`Entity ${id}`);
    return entity;
  }

  async page(id: string, passagePage = 1): Promise<EntityPage> {
    return this.entities.reading(async (db) => {
      const entity = await this.entities.get(id, db);
      if (!entity) throw ReviewErrors.notFound(`Entity ${id}`);
      const provenance = await this.entities.provenance('node', id, 50, db);
      // Any number a reader types: past the end shows the last page (below), and a huge one never reaches SQL as one.
      const wanted = Number.isFinite(passagePage) ? Math.min(MAX_PASSAGE_PAGE, Math.max(1, Math.floor(passagePage))) : 1;
      const mentions = await this.entities.mentionsOf(id, 100, PASSAGES_PER_PAGE, (wanted - 1) * PASSAGES_PER_PAGE, db);
      const passagePages = Math.max(1, Math.ceil(mentions.mentionCount / PASSAGES_PER_PAGE));
      const current = Math.min(wanted, passagePages);
      // A page number past the end shows the last page.
      const passages = current === wanted ? mentions.passages : (await this.entities.mentionsOf(id, 0, PASSAGES_PER_PAGE, (current - 1) * PASSAGES_PER_PAGE, db)).passages;
      const edges = await this.entities.edgesOf(id, 200, CO_MENTIONS_SHOWN, db);
      return {
        entity,
        provenance: provenance.rows,
        provenanceTotal: provenance.total,
        pages: mentions.pages.map((p) => ({ ...p, href: `/page/${encodeURIComponent(p.slug)}` })),
        pageCount: mentions.pageCount,
        mentionCount: mentions.mentionCount,
        passages: passages.map((p) => ({
          mentionId: p.mentionId,
          surface: p.surface,
          slug: p.slug,
          title: p.title,
          href: passageHref(p.slug, p),
          heading: headingText(p.headingPath),
          highlight: highlightQuote(p.text, p.surface, 200),
        })),
        passagePage: current,
        passagePages,
        out: edges.out,
        in: edges.in,
        coMentions: edges.coMentions.map((e) => {
          const other = e.sourceId === id ? { otherId: e.targetId, otherName: e.targetName, otherType: e.targetType } : { otherId: e.sourceId, otherName: e.sourceName, otherType: e.sourceType };
          return { ...e, ...other };
        }),
      };
    });
  }

  async edge(id: string): Promise<{ edge: EdgeRow; provenance: ProvenanceRow[] }> {
    return this.entities.reading(async (db) => {
      const edge = await this.entities.getEdge(id, db);
      if (!edge) throw ReviewErrors.notFound(`Edge ${id}`);
      return { edge, provenance: (await this.entities.provenance('edge', id, 50, db)).rows };
    });
  }

  /** The entity, its typed edges and strongest co-mentions (at most `limit` edges), and the typed edges among those neighbours. */
  async graph(id: string, limit = 150): Promise<NeighbourhoodGraph> {
    return this.entities.reading(async (db) => {
      const entity = await this.entities.get(id, db);
      if (!entity) throw ReviewErrors.notFound(`Entity ${id}`);
      const typed = await this.entities.edgesOf(id, limit, 0, db);
      const own = [...typed.out, ...typed.in].slice(0, limit);
      const co = own.length < limit ? await this.entities.coMentions(id, limit - own.length, db) : [];
      const mine = [...own, ...co];
      const near = [...new Set(mine.flatMap((e) => [e.sourceId, e.targetId]))];
      const edges = [...mine, ...(await this.entities.typedEdgesAmong(near, mine.map((e) => e.id), limit, db))];
      const nodes = new Map<string, NeighbourhoodGraph['nodes'][number]>([[id, { id, name: entity.name, type: entity.type, center: true }]]);
      for (const e of edges) {
        if (!nodes.has(e.sourceId)) nodes.set(e.sourceId, { id: e.sourceId, name: e.sourceName, type: e.sourceType, center: false });
        if (!nodes.has(e.targetId)) nodes.set(e.targetId, { id: e.targetId, name: e.targetName, type: e.targetType, center: false });
      }
      return {
        center: id,
        nodes: [...nodes.values()],
        edges: edges.map((e) => ({ id: e.id, source: e.sourceId, target: e.targetId, kind: e.kind, predicate: e.predicate, weight: e.weight })),
      };
    });
  }

  /**
   * Pages worth writing: entities mentioned on at least `minPages` pages that no page answers to (by slug, title or
   * alias, as wikilinks resolve), beside the Page Graph's wanted pages (links to pages that do not exist), merged
   * when they name the same page. Most pages first.
   */
  async contentGaps(minPages: number, limit: number): Promise<{ items: ContentGap[]; entities: number; wanted: number }> {
    const candidates = await this.entities.mentionedAcrossPages(minPages, 1000);
    const keysOf = (c: { name: string; aliases: string[] }) => [...new Set([c.name, ...c.aliases].map(slugify).filter(Boolean))];
    const taken = await this.entities.takenPageKeys([...new Set(candidates.flatMap(keysOf))]);
    const gaps = new Map<string, ContentGap>();
    for (const c of candidates) {
      const keys = keysOf(c);
      if (keys.length === 0 || keys.some((k) => taken.has(k)) || gaps.has(keys[0])) continue;
      gaps.set(keys[0], {
        title: c.name, key: keys[0], entity: { id: c.id, name: c.name, type: c.type, pages: c.pages, mentions: c.mentions },
        wantedBy: 0, fromPages: [], createHref: `/page/new?title=${encodeURIComponent(c.name)}`,
      });
    }
    const entityGaps = gaps.size;
    const wanted = await this.pageGraph.wanted(limit, 0);
    for (const w of wanted.items) {
      const key = w.targetKey;
      const fromPages = w.fromPages.map((p) => ({ slug: p.slug, title: p.title }));
      const existing = gaps.get(key);
      if (existing) Object.assign(existing, { wantedBy: w.wantedBy, fromPages });
      else gaps.set(key, { title: w.target, key, entity: null, wantedBy: w.wantedBy, fromPages, createHref: `/page/new?title=${encodeURIComponent(w.target)}` });
    }
    const score = (g: ContentGap) => Math.max(g.entity?.pages ?? 0, g.wantedBy) + (g.entity && g.wantedBy ? 0.5 : 0);
    const items = [...gaps.values()].sort((a, b) => score(b) - score(a) || a.title.localeCompare(b.title)).slice(0, limit);
    return { items, entities: entityGaps, wanted: wanted.total };
  }
}
