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
 * CTE `visible`: the live pages not soft-excluded that mention entity $1, with how many of their chunks do: the rule
 * of the policy views for mentions (a mention on an excluded page is not there for a reader).
 */
const VISIBLE_PAGES_OF_ENTITY = `per_page AS MATERIALIZED (
         SELECT m.page_id, count(*)::int AS mentions FROM kg_mentions m WHERE m.node_id = $1 GROUP BY m.page_id),
       visible AS MATERIALIZED (
         SELECT p.page_id, p.mentions FROM per_page p
          WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.page_id)
            AND NOT EXISTS (SELECT 1 FROM pages t WHERE t.id = p.page_id AND t.deleted_at IS NOT NULL))`;

/**
 * What a reader may see of the approved knowledge graph, one entity at a time. Every read goes through the
 * policy-filtered views (kg_visible_*), or for the mentions of an entity's pages their rule (VISIBLE_PAGES_OF_ENTITY): an
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
      `WITH ${VISIBLE_PAGES_OF_ENTITY} SELECT count(*)::int AS n FROM visible`,
      [id],
    );
    return rows[0].n;
  }

  /**
   * Live pages that mention the entity in a visible passage, most mentions first (then by title), with the first such
   * passage of each, and how many there are in all (no row past the last page: mentioningPageCount says then).
   * The pages and their counts come from the mentions' (node, page) index (migration 0029). Only the pages whose count
   * can reach the page asked for are read to be ordered by title: those whose count lies between the counts at the
   * page's first and last place when ordered by count alone; the passages are read for the pages shown only. Joining
   * every mention to its chunk had taken 75–150 ms for an entity on half of 10,000 pages.
   */
  mentioningPages(id: string, limit: number, offset: number, db: EntityManager): Promise<MentioningPageRow[]> {
    return preparedQuery(
      db,
      `WITH ${VISIBLE_PAGES_OF_ENTITY},
       bounds AS (SELECT max(b.mentions) AS hi, min(b.mentions) AS lo FROM (SELECT v.mentions FROM visible v ORDER BY v.mentions DESC LIMIT $2 OFFSET $3) b),
       shown AS (
         SELECT pg.id, pg.slug, pg.title, v.mentions
           FROM bounds, visible v JOIN pages pg ON pg.id = v.page_id
          WHERE v.mentions BETWEEN bounds.lo AND bounds.hi
          ORDER BY v.mentions DESC, lower(pg.title), pg.slug
         OFFSET (SELECT $3 - count(*) FROM bounds, visible v WHERE v.mentions > bounds.hi) LIMIT $2)
       SELECT s.slug, s.title, s.mentions, f.surface, c.heading_path AS "headingPath", c.anchor, c.text, (SELECT count(*) FROM visible)::int AS total
         FROM shown s
         CROSS JOIN LATERAL (SELECT m.surface, m.chunk_id FROM kg_mentions m JOIN kg_content_chunks mc ON mc.id = m.chunk_id
                              WHERE m.node_id = $1 AND m.page_id = s.id ORDER BY mc.position, m.id LIMIT 1) f
         JOIN kg_content_chunks c ON c.id = f.chunk_id
        ORDER BY s.mentions DESC, lower(s.title), s.slug`,
      [id, limit, offset],
    );
  }
}
