import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';
import { withProbePlans } from '../db/probe-plans.js';

export interface ReaderEntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
}

export interface RelationRow {
  predicate: string;
  /** True when the edge goes from this entity to the other. */
  outgoing: boolean;
  otherId: string;
  otherName: string;
  otherType: string;
}

export interface MentioningPageRow {
  slug: string;
  title: string;
  mentions: number;
  /** The first mention on the page (in page order): what it was called there, and the passage around it. */
  surface: string;
  headingPath: string[];
  anchor: string | null;
  text: string;
  /** How many live pages mention the entity in all (the same on every row). */
  total: number;
}

/**
 * The chunk `c` is visible (its page is not soft-excluded): what `kg_visible_mentions` decides, written against the
 * chunk the mention reads join anyway. Through the view, each mention of a hub entity (thousands) looked its chunk up
 * twice.
 */
const VISIBLE_CHUNK = 'NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)';

/**
 * What a reader may see of the approved knowledge graph, one entity at a time. Every read goes through the
 * policy-filtered views (kg_visible_*), or for the mentions of an entity's pages their rule (VISIBLE_CHUNK): an
 * entity, relation or mention that stands only on soft-excluded pages is not there for a reader, exactly as for
 * search and the knowledge MCP tools.
 *
 * Each read is a prepared statement: the views nest deeply, and planning them cost 10–11 ms a statement against
 * 1 ms of execution (the relations' read, EXPLAIN ANALYZE at 10,000 pages), paid again on every search that names
 * an entity (its card) until the connection keeps the plan. They run only inside reading(), so every plan a
 * connection keeps was made under its probe settings.
 */
@Injectable()
export class EntityReadsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The reads of one entity page, planned as index probes (see probe-plans.ts: the views' ORs hash whole tables otherwise). */
  reading<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    return withProbePlans(this.dataSource, work);
  }

  async visibleEntity(id: string, db: EntityManager): Promise<ReaderEntityRow | null> {
    const rows: ReaderEntityRow[] = await preparedQuery(
      db,
      `SELECT n.id::text AS id, n.name, n.node_type AS type, n.aliases, n.description FROM kg_visible_nodes n WHERE n.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Typed relations out of and into the entity whose other end is visible too (kg_visible_edges checks both ends), at most `limit` each way. */
  relations(id: string, limit: number, db: EntityManager): Promise<RelationRow[]> {
    return preparedQuery(
      db,
      `(SELECT e.predicate, true AS outgoing, o.id::text AS "otherId", o.name AS "otherName", o.node_type AS "otherType"
          FROM kg_visible_edges e JOIN kg_nodes o ON o.id = e.target_node_id
         WHERE e.source_node_id = $1 AND e.kind = 'typed' ORDER BY e.predicate, lower(o.name), e.id LIMIT $2)
       UNION ALL
       (SELECT e.predicate, false AS outgoing, o.id::text AS "otherId", o.name AS "otherName", o.node_type AS "otherType"
          FROM kg_visible_edges e JOIN kg_nodes o ON o.id = e.source_node_id
         WHERE e.target_node_id = $1 AND e.kind = 'typed' ORDER BY e.predicate, lower(o.name), e.id LIMIT $2)`,
      [id, limit],
    );
  }

  /** How many live pages mention the entity in a visible passage. */
  async mentioningPageCount(id: string, db: EntityManager): Promise<number> {
    const rows: { n: number }[] = await preparedQuery(
      db,
      `SELECT count(DISTINCT c.page_id)::int AS n
         FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
         JOIN pages pg ON pg.id = c.page_id AND pg.deleted_at IS NULL
        WHERE m.node_id = $1 AND ${VISIBLE_CHUNK}`,
      [id],
    );
    return rows[0].n;
  }

  /**
   * Live pages that mention the entity in a visible passage, most mentions first, with the first such passage of each,
   * and how many there are in all (no row past the last page: mentioningPageCount says then). The passages' text is
   * read for the pages shown only: a hub entity has thousands of mentions, and carrying every passage's text through
   * the ranking made this the slowest statement of a search that names one (37 ms p95 at 10,000 pages,
   * eval/search-speed.eval.ts).
   */
  mentioningPages(id: string, limit: number, offset: number, db: EntityManager): Promise<MentioningPageRow[]> {
    return preparedQuery(
      db,
      `WITH m AS MATERIALIZED (
         SELECT m.id, m.surface, m.chunk_id, c.page_id, c.position
           FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
          WHERE m.node_id = $1 AND ${VISIBLE_CHUNK}),
       first_per_page AS (
         SELECT DISTINCT ON (m.page_id) m.page_id, m.surface, m.chunk_id, count(*) OVER (PARTITION BY m.page_id)::int AS mentions
           FROM m ORDER BY m.page_id, m.position, m.id),
       shown AS (
         SELECT pg.slug, pg.title, f.mentions, f.surface, f.chunk_id, (count(*) OVER ())::int AS total
           FROM first_per_page f JOIN pages pg ON pg.id = f.page_id AND pg.deleted_at IS NULL
          ORDER BY f.mentions DESC, lower(pg.title), pg.slug
          LIMIT $2 OFFSET $3)
       SELECT s.slug, s.title, s.mentions, s.surface, c.heading_path AS "headingPath", c.anchor, c.text, s.total
         FROM shown s JOIN kg_content_chunks c ON c.id = s.chunk_id
        ORDER BY s.mentions DESC, lower(s.title), s.slug`,
      [id, limit, offset],
    );
  }
}
