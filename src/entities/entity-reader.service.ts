import { Injectable } from '@nestjs/common';
import { headingText, highlightQuote, passageHref, type Highlight } from '../pages/evidence.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { entityHref } from '../web/reader-urls.js';
import { EntityReadsRepository, type ReaderEntityRow } from './entity-reads.repository.js';

/** Typed relations listed each way (a hub has hundreds; the admin page and the MCP tools have the rest). */
export const RELATIONS_SHOWN = 200;
export const PAGES_PER_PAGE = 20;
const QUOTE_CONTEXT = 160;

export interface EntityRef {
  id: string;
  name: string;
  type: string;
  url: string;
}

export interface EntityRelation {
  predicate: string;
  direction: 'out' | 'in';
  entity: EntityRef;
}

export interface MentioningPage {
  slug: string;
  title: string;
  url: string;
  mentions: number;
  /** The first passage of the page that mentions the entity, cut around the mention. */
  quote: Highlight & { heading: string; url: string };
}

/** What a reader sees of one approved, visible entity: the same for the HTML page and the JSON. */
export interface EntityReading {
  entity: ReaderEntityRow & { url: string };
  relations: EntityRelation[];
  pages: { items: MentioningPage[]; total: number; page: number; perPage: number };
}

/** An approved entity as a reader may see it, or a 404 (missing, deleted and hidden alike: a hidden entity is not there). */
@Injectable()
export class EntityReaderService {
  constructor(private readonly reads: EntityReadsRepository) {}

  read(id: string, page = 1): Promise<EntityReading> {
    return this.reads.reading(async (db) => {
      const entity = await this.reads.visibleEntity(id, db);
      if (!entity) throw new DomainException(DomainErrorCode.NotFound, `There is no entity ${id} in the knowledge graph.`);
      const relations = await this.reads.relations(id, RELATIONS_SHOWN, db);
      // One pass over the entity's mentions gives the page asked for and the count; a page number past the end
      // (no row) shows the last page.
      let current = Math.max(1, Math.floor(page));
      let rows = await this.reads.mentioningPages(id, PAGES_PER_PAGE, (current - 1) * PAGES_PER_PAGE, db);
      let total = rows[0]?.total ?? 0;
      if (rows.length === 0 && current > 1) {
        total = await this.reads.mentioningPageCount(id, db);
        current = Math.max(1, Math.ceil(total / PAGES_PER_PAGE));
        rows = total === 0 ? [] : await this.reads.mentioningPages(id, PAGES_PER_PAGE, (current - 1) * PAGES_PER_PAGE, db);
      }
      return {
        entity: { ...entity, url: entityHref(entity.id) },
        relations: relations.map((r) => ({
          predicate: r.predicate,
          direction: r.outgoing ? 'out' : 'in',
          entity: { id: r.otherId, name: r.otherName, type: r.otherType, url: entityHref(r.otherId) },
        })),
        pages: {
          items: rows.map((p) => ({
            slug: p.slug,
            title: p.title,
            url: `/page/${encodeURIComponent(p.slug)}`,
            mentions: p.mentions,
            quote: { ...highlightQuote(p.text, p.surface, QUOTE_CONTEXT), heading: headingText(p.headingPath), url: passageHref(p.slug, p) },
          })),
          total,
          page: current,
          perPage: PAGES_PER_PAGE,
        },
      };
    });
  }
}
