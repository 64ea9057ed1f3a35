import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { KgOrigin } from '../kg-tables/kg-origin.js';
import { withProbePlans } from '../db/probe-plans.js';

export interface EntityListFilter {
  q?: string;
  type?: string;
  limit: number;
  offset: number;
}

export interface EntityListRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  origin: KgOrigin;
  updatedAt: Date;
  mentions: number;
  pages: number;
  typedEdges: number;
}

export interface EntityRow {
  id: string;
  signature: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
  origin: KgOrigin;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProvenanceRow {
  proposalId: string;
  approvedBy: string;
  approvedAt: Date;
  kind: 'node' | 'edge';
  name: string | null;
  type: string | null;
  extractor: string;
  model: string | null;
  confidence: number;
  supportCount: number;
}

export interface MentionPageRow {
  pageId: string;
  slug: string;
  title: string;
  mentions: number;
}

export interface PassageRow {
  mentionId: string;
  surface: string;
  chunkId: string;
  headingPath: string[];
  anchor: string | null;
  text: string;
  slug: string;
  title: string;
}

export interface EdgeRow {
  id: string;
  kind: 'typed' | 'co_mention';
  predicate: string;
  weight: number;
  origin: KgOrigin;
  createdBy: string;
  sourceId: string;
  sourceName: string;
  sourceType: string;
  targetId: string;
  targetName: string;
  targetType: string;
}

export interface GapCandidateRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  pages: number;
  mentions: number;
}

const ENTITY_COLUMNS = `n.id::text AS id, n.signature, n.name, n.node_type AS type, n.aliases, n.description, n.origin,
  n.created_by AS "createdBy", n.created_at AS "createdAt", n.updated_at AS "updatedAt"`;

const EDGE_COLUMNS = `e.id::text AS id, e.kind, e.predicate, e.weight, e.origin, e.created_by AS "createdBy",
  s.id::text AS "sourceId", s.name AS "sourceName", s.node_type AS "sourceType",
  t.id::text AS "targetId", t.name AS "targetName", t.node_type AS "targetType"`;

/**
 * Reads of the approved graph for curation, over the policy-filtered views (kg_visible_*). Reads `pages` (slug,
 * title, link keys) to name the pages that mention an entity and to find entities without a page of their own.
 */
@Injectable()
export class EntitiesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The reads of one curation page, planned as index probes (probe-plans.ts). */
  reading<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    return withProbePlans(this.dataSource, work);
  }

  async list(filter: EntityListFilter, db: EntityManager = this.dataSource.manager): Promise<{ rows: EntityListRow[]; total: number }> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (filter.type) where.push(`n.node_type = $${params.push(filter.type)}`);
    if (filter.q) {
      const like = `$${params.push(`%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
      where.push(`(lower(n.name) LIKE ${like} OR EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(a) LIKE ${like}))`);
    }
    const condition = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const totals: { n: number }[] = await db.query(`SELECT count(*)::int AS n FROM kg_visible_nodes n ${condition}`, params);
    const rows: EntityListRow[] = await db.query(
      `SELECT n.id::text AS id, n.name, n.node_type AS type, n.aliases, n.origin, n.updated_at AS "updatedAt",
              (SELECT count(*) FROM kg_visible_mentions m WHERE m.node_id = n.id)::int AS mentions,
              (SELECT count(DISTINCT c.page_id) FROM kg_visible_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
                WHERE m.node_id = n.id)::int AS pages,
              (SELECT count(*) FROM kg_visible_edges e WHERE e.kind = 'typed' AND (e.source_node_id = n.id OR e.target_node_id = n.id))::int AS "typedEdges"
         FROM kg_visible_nodes n ${condition}
        ORDER BY lower(n.name), n.id
        LIMIT $${params.push(filter.limit)} OFFSET $${params.push(filter.offset)}`,
      params,
    );
    return { rows, total: totals[0].n };
  }

  /** Visible entities per type. */
  async typeCounts(db: EntityManager = this.dataSource.manager): Promise<{ type: string; n: number }[]> {
    return db.query('SELECT node_type AS type, count(*)::int AS n FROM kg_visible_nodes GROUP BY node_type ORDER BY node_type');
  }

  async get(id: string, db: EntityManager = this.dataSource.manager): Promise<EntityRow | null> {
    const rows: EntityRow[] = await db.query(`SELECT ${ENTITY_COLUMNS} FROM kg_visible_nodes n WHERE n.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async getMany(ids: string[], db: EntityManager = this.dataSource.manager): Promise<EntityRow[]> {
    if (ids.length === 0) return [];
    return db.query(`SELECT ${ENTITY_COLUMNS} FROM kg_visible_nodes n WHERE n.id = ANY($1::bigint[]) ORDER BY n.id`, [ids]);
  }

  /** Which proposals a node or an edge was approved from, and by whom (newest first). */
  async provenance(kind: 'node' | 'edge', id: string, limit: number, db: EntityManager = this.dataSource.manager): Promise<{ rows: ProvenanceRow[]; total: number }> {
    const table = kind === 'node' ? 'kg_node_provenance' : 'kg_edge_provenance';
    const column = kind === 'node' ? 'node_id' : 'edge_id';
    const rows: (ProvenanceRow & { total: number })[] = await db.query(
      `SELECT x.proposal_id::text AS "proposalId", x.approved_by AS "approvedBy", x.approved_at AS "approvedAt", p.kind,
              coalesce(p.name, p.source_name || ' → ' || p.target_name) AS name, coalesce(p.node_type, p.predicate) AS type,
              p.extractor, p.model, p.confidence, p.support_count AS "supportCount", count(*) OVER ()::int AS total
         FROM ${table} x JOIN kg_proposals p ON p.id = x.proposal_id
        WHERE x.${column} = $1
        ORDER BY x.approved_at DESC, x.proposal_id DESC LIMIT $2`,
      [id, limit],
    );
    return { rows: rows.map(({ total: _t, ...r }) => r), total: rows[0]?.total ?? 0 };
  }

  /**
   * Where the entity is mentioned, in one statement (one pass over its visible mentions, however many): the pages
   * that mention it, most mentions first (at most `pageLimit`), how many pages and mentions in all, and one page of
   * the passages, in page order.
   */
  async mentionsOf(id: string, pageLimit: number, passageLimit: number, passageOffset: number, db: EntityManager = this.dataSource.manager): Promise<{ pages: MentionPageRow[]; pageCount: number; mentionCount: number; passages: PassageRow[] }> {
    const rows: { pages: MentionPageRow[] | null; page_count: number; mention_count: number; passages: PassageRow[] | null }[] = await db.query(
      `WITH m AS MATERIALIZED (
         SELECT m.id, m.surface, c.id AS chunk_id, c.page_id, c.position, c.heading_path, c.anchor, c.text
           FROM kg_visible_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id WHERE m.node_id = $1),
       per_page AS (SELECT page_id, count(*)::int AS mentions FROM m GROUP BY page_id)
       SELECT (SELECT json_agg(json_build_object('pageId', pg.page_id, 'slug', pg.slug, 'title', pg.title, 'mentions', pg.mentions)
                               ORDER BY pg.mentions DESC, pg.title)
                 FROM (SELECT x.*, pg.slug, pg.title FROM per_page x JOIN pages pg ON pg.id = x.page_id
                        ORDER BY x.mentions DESC, pg.title LIMIT $2) pg) AS pages,
              (SELECT count(*)::int FROM per_page) AS page_count,
              (SELECT count(*)::int FROM m) AS mention_count,
              (SELECT json_agg(json_build_object('mentionId', y.id::text, 'surface', y.surface, 'chunkId', y.chunk_id::text,
                                                 'headingPath', y.heading_path, 'anchor', y.anchor, 'text', y.text, 'slug', y.slug, 'title', y.title)
                               ORDER BY y.title, y.position, y.id)
                 FROM (SELECT m.*, pg.slug, pg.title FROM m JOIN pages pg ON pg.id = m.page_id
                        ORDER BY pg.title, m.position, m.id LIMIT $3 OFFSET $4) y) AS passages`,
      [id, pageLimit, passageLimit, passageOffset],
    );
    const row = rows[0];
    return { pages: row.pages ?? [], pageCount: row.page_count, mentionCount: row.mention_count, passages: row.passages ?? [] };
  }

  /** Typed edges out of and into the entity (at most `limit` each way), and its strongest co-mentions. */
  async edgesOf(id: string, limit: number, coMentions: number, db: EntityManager = this.dataSource.manager): Promise<{ out: EdgeRow[]; in: EdgeRow[]; coMentions: EdgeRow[] }> {
    const typed: (EdgeRow & { outgoing: boolean })[] = await db.query(
      `SELECT * FROM (
         (SELECT ${EDGE_COLUMNS}, true AS outgoing FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
           WHERE e.source_node_id = $1 AND e.kind = 'typed' ORDER BY e.predicate, lower(t.name), e.id LIMIT $2)
         UNION ALL
         (SELECT ${EDGE_COLUMNS}, false AS outgoing FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
           WHERE e.target_node_id = $1 AND e.kind = 'typed' ORDER BY e.predicate, lower(s.name), e.id LIMIT $2)) x`,
      [id, limit],
    );
    const strip = ({ outgoing: _o, ...edge }: EdgeRow & { outgoing: boolean }): EdgeRow => edge;
    return {
      out: typed.filter((e) => e.outgoing).map(strip),
      in: typed.filter((e) => !e.outgoing).map(strip),
      coMentions: coMentions > 0 ? await this.coMentions(id, coMentions, db) : [],
    };
  }

  /**
   * The entity's strongest visible co-mentions. An entity mentioned everywhere has thousands: they are taken from
   * the table strongest first, a batch at a time, and only each batch is checked against kg_visible_edges (checking
   * every one of them, to then keep the first few, costs a visibility probe per edge).
   */
  async coMentions(id: string, limit: number, db: EntityManager = this.dataSource.manager): Promise<EdgeRow[]> {
    const found: EdgeRow[] = [];
    const batchSize = Math.max(limit * 2, 50);
    let after: { weight: number; id: string } | null = null;
    while (found.length < limit) {
      const params: unknown[] = [id, batchSize];
      if (after) params.push(after.weight, after.id);
      const batch: { id: string; weight: number }[] = await db.query(
        `SELECT e.id::text AS id, e.weight FROM kg_edges e
          WHERE e.kind = 'co_mention' AND (e.source_node_id = $1 OR e.target_node_id = $1)
            ${after ? 'AND (e.weight, e.id) < ($3::real, $4::bigint)' : ''}
          ORDER BY e.weight DESC, e.id DESC LIMIT $2`,
        params,
      );
      if (batch.length === 0) break;
      const visible: EdgeRow[] = await db.query(
        `SELECT ${EDGE_COLUMNS} FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
          WHERE e.id = ANY($1::bigint[])`,
        [batch.map((b) => b.id)],
      );
      const byId = new Map(visible.map((e) => [e.id, e]));
      for (const b of batch) {
        const edge = byId.get(b.id);
        if (edge && found.length < limit) found.push(edge);
      }
      if (batch.length < batchSize) break;
      after = batch[batch.length - 1];
    }
    return found;
  }

  async getEdge(id: string, db: EntityManager = this.dataSource.manager): Promise<EdgeRow | null> {
    const rows: EdgeRow[] = await db.query(
      `SELECT ${EDGE_COLUMNS} FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
        WHERE e.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Visible typed edges among these entities (for the graph view: how the neighbours relate to each other). */
  async typedEdgesAmong(ids: string[], exclude: string[], limit: number, db: EntityManager = this.dataSource.manager): Promise<EdgeRow[]> {
    if (ids.length === 0) return [];
    return db.query(
      `SELECT ${EDGE_COLUMNS} FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
        WHERE e.kind = 'typed' AND e.source_node_id = ANY($1::bigint[]) AND e.target_node_id = ANY($1::bigint[])
          AND NOT e.id = ANY($2::bigint[])
        ORDER BY e.id LIMIT $3`,
      [ids, exclude, limit],
    );
  }

  /** Visible entities mentioned on at least `minPages` visible pages, most pages first. */
  async mentionedAcrossPages(minPages: number, limit: number, db: EntityManager = this.dataSource.manager): Promise<GapCandidateRow[]> {
    return db.query(
      `SELECT n.id::text AS id, n.name, n.node_type AS type, n.aliases, x.pages, x.mentions
         FROM (SELECT m.node_id, count(DISTINCT c.page_id)::int AS pages, count(*)::int AS mentions
                 FROM kg_visible_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
                WHERE m.node_id IS NOT NULL
                GROUP BY m.node_id HAVING count(DISTINCT c.page_id) >= $1) x
         JOIN kg_visible_nodes n ON n.id = x.node_id
        ORDER BY x.pages DESC, x.mentions DESC, lower(n.name)
        LIMIT $2`,
      [minPages, limit],
    );
  }

  /** Which of these link keys a live page answers to (its slug, title or an alias), as the Page Graph resolves links. */
  async takenPageKeys(keys: string[], db: EntityManager = this.dataSource.manager): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows: { key: string }[] = await db.query(
      `SELECT DISTINCT k AS key FROM pages p CROSS JOIN LATERAL unnest(p.link_keys) k
        WHERE p.deleted_at IS NULL AND p.link_keys && $1::text[] AND k = ANY($1::text[])`,
      [keys],
    );
    return new Set(rows.map((r) => r.key));
  }

  /** Visible nodes and typed edges per type/predicate (for the schema). */
  async vocabularyCounts(db: EntityManager = this.dataSource.manager): Promise<{ types: Map<string, number>; predicates: Map<string, number> }> {
    const types: { key: string; n: number }[] = await db.query('SELECT node_type AS key, count(*)::int AS n FROM kg_visible_nodes GROUP BY 1');
    const predicates: { key: string; n: number }[] = await db.query(
      `SELECT predicate AS key, count(*)::int AS n FROM kg_visible_edges WHERE kind = 'typed' GROUP BY 1`,
    );
    return { types: new Map(types.map((r) => [r.key, r.n])), predicates: new Map(predicates.map((r) => [r.key, r.n])) };
  }
}
