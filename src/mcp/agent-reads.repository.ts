import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EdgeRow } from '../curation/entities.repository.js';

export interface PageFilter {
  cluster?: string;
  tag?: string;
  type?: string;
  updatedSince?: Date;
  limit: number;
  offset: number;
}

export interface PageSummaryRow {
  id: string;
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  type: string | null;
  version: number;
  updatedAt: Date;
}

export interface NodeRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
  origin: string;
}

export interface NodeQuery {
  type?: string;
  name?: string;
  description?: string;
  origin?: string;
  limit: number;
  offset: number;
}

export interface RelatedPageRow {
  slug: string;
  title: string;
  score: number;
  via: string[];
}

const EDGE_COLUMNS = `e.id::text AS id, e.kind, e.predicate, e.weight, e.origin, e.created_by AS "createdBy",
  s.id::text AS "sourceId", s.name AS "sourceName", s.node_type AS "sourceType",
  t.id::text AS "targetId", t.name AS "targetName", t.node_type AS "targetType"`;

const NODE_COLUMNS = `n.id::text AS id, n.name, n.node_type AS type, n.aliases, n.description, n.origin`;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The reads agents need that the web UI does not make: pages by type and date, frontmatter values, entities by
 * property, traversal, nearest entities, pages related through the knowledge graph. Every knowledge-graph read goes
 * through the policy-filtered views (kg_visible_*), so soft-excluded content never reaches an agent.
 */
@Injectable()
export class AgentReadsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async pages(filter: PageFilter): Promise<{ rows: PageSummaryRow[]; total: number }> {
    const params: unknown[] = [];
    const where = ['p.deleted_at IS NULL'];
    if (filter.cluster) {
      const cluster = `$${params.push(filter.cluster)}`;
      where.push(`EXISTS (SELECT 1 FROM unnest(p.clusters) c WHERE c = ${cluster} OR c LIKE ${cluster} || '/%')`);
    }
    if (filter.tag) where.push(`$${params.push(filter.tag)} = ANY(p.tags)`);
    if (filter.type) where.push(`p.page_type = $${params.push(filter.type)}`);
    if (filter.updatedSince) where.push(`p.updated_at >= $${params.push(filter.updatedSince)}`);
    const condition = where.join(' AND ');
    const rows: (PageSummaryRow & { total: number })[] = await this.dataSource.query(
      `SELECT p.id::text AS id, p.slug, p.title, p.cluster, p.tags, p.page_type AS type, p.version, p.updated_at AS "updatedAt",
              count(*) OVER ()::int AS total
         FROM pages p WHERE ${condition}
        ORDER BY p.updated_at DESC, p.slug
        LIMIT $${params.push(filter.limit)} OFFSET $${params.push(filter.offset)}`,
      params,
    );
    const total = rows[0]?.total ?? (filter.offset > 0 ? await this.countPages(condition, params.slice(0, -2)) : 0);
    return { rows: rows.map(({ total: _t, ...row }) => row), total };
  }

  private async countPages(condition: string, params: unknown[]): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM pages p WHERE ${condition}`, params);
    return rows[0].n;
  }

  /** The frontmatter keys of live pages, with how many pages use each. */
  metadataKeys(): Promise<{ value: string; pages: number }[]> {
    return this.dataSource.query(
      `SELECT k AS value, count(*)::int AS pages FROM pages p CROSS JOIN LATERAL jsonb_object_keys(p.frontmatter) k
        WHERE p.deleted_at IS NULL AND jsonb_typeof(p.frontmatter) = 'object'
        GROUP BY k ORDER BY pages DESC, k`,
    );
  }

  /** The values one frontmatter key takes on live pages (each item of a list counts), with how many pages have each. */
  metadataValues(key: string): Promise<{ value: string; pages: number }[]> {
    return this.dataSource.query(
      `SELECT v AS value, count(DISTINCT p.id)::int AS pages
         FROM pages p
         CROSS JOIN LATERAL (
           SELECT jsonb_array_elements_text(p.frontmatter -> $1) AS v WHERE jsonb_typeof(p.frontmatter -> $1) = 'array'
           UNION ALL
           SELECT p.frontmatter ->> $1 WHERE jsonb_typeof(p.frontmatter -> $1) IN ('string', 'number', 'boolean')) x
        WHERE p.deleted_at IS NULL AND jsonb_typeof(p.frontmatter) = 'object'
        GROUP BY v ORDER BY pages DESC, v`,
      [key],
    );
  }

  async queryNodes(query: NodeQuery): Promise<{ rows: NodeRow[]; total: number }> {
    const params: unknown[] = [];
    const where: string[] = ['true'];
    if (query.type) where.push(`n.node_type = $${params.push(query.type)}`);
    if (query.origin) where.push(`n.origin = $${params.push(query.origin)}`);
    if (query.name) {
      const like = `$${params.push(likePattern(query.name))}`;
      where.push(`(lower(n.name) LIKE ${like} OR EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(a) LIKE ${like}))`);
    }
    if (query.description) where.push(`lower(n.description) LIKE $${params.push(likePattern(query.description))}`);
    const condition = where.join(' AND ');
    const totals: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM kg_visible_nodes n WHERE ${condition}`, params);
    const rows: NodeRow[] = await this.dataSource.query(
      `SELECT ${NODE_COLUMNS} FROM kg_visible_nodes n WHERE ${condition}
        ORDER BY lower(n.name), n.id LIMIT $${params.push(query.limit)} OFFSET $${params.push(query.offset)}`,
      params,
    );
    return { rows, total: totals[0].n };
  }

  async nodes(ids: string[]): Promise<NodeRow[]> {
    if (ids.length === 0) return [];
    return this.dataSource.query(`SELECT ${NODE_COLUMNS} FROM kg_visible_nodes n WHERE n.id = ANY($1::bigint[]) ORDER BY n.id`, [ids]);
  }

  /** Visible edges touching any of these entities (one step of a traversal), at most `limit`. */
  edgesTouching(ids: string[], options: { predicates?: string[]; coMentions: boolean; direction: 'out' | 'in' | 'both'; limit: number }): Promise<EdgeRow[]> {
    const params: unknown[] = [ids];
    const touch = { out: 'e.source_node_id = ANY($1::bigint[])', in: 'e.target_node_id = ANY($1::bigint[])', both: '(e.source_node_id = ANY($1::bigint[]) OR e.target_node_id = ANY($1::bigint[]))' }[options.direction];
    const where = [touch, options.coMentions ? 'true' : `e.kind = 'typed'`];
    if (options.predicates?.length) where.push(`e.predicate = ANY($${params.push(options.predicates)}::text[])`);
    return this.dataSource.query(
      `SELECT ${EDGE_COLUMNS} FROM kg_visible_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
        WHERE ${where.join(' AND ')} ORDER BY e.kind DESC, e.weight DESC, e.id LIMIT $${params.push(options.limit)}`,
      params,
    );
  }

  /** The stored vector of a visible entity in this embedding model, as pgvector text, or null. */
  async nodeVector(id: string, model: string): Promise<string | null> {
    const rows: { v: string }[] = await this.dataSource.query(
      `SELECT e.embedding::text AS v FROM kg_node_embeddings e JOIN kg_visible_nodes n ON n.id = e.node_id WHERE e.node_id = $1 AND e.model = $2`,
      [id, model],
    );
    return rows[0]?.v ?? null;
  }

  /** Visible entities nearest to a vector (cosine), in the same model and size. */
  nearestNodes(vector: string, model: string, excludeId: string | null, limit: number): Promise<(NodeRow & { similarity: number })[]> {
    return this.dataSource.query(
      `SELECT ${NODE_COLUMNS}, (1 - (e.embedding <=> $1::vector))::float8 AS similarity
         FROM kg_node_embeddings e JOIN kg_visible_nodes n ON n.id = e.node_id
        WHERE e.model = $2 AND e.dims = vector_dims($1::vector) AND ($3::bigint IS NULL OR e.node_id <> $3::bigint)
        ORDER BY e.embedding <=> $1::vector, n.id LIMIT $4`,
      [vector, model, excludeId, limit],
    );
  }

  /**
   * Pages connected to this one through the knowledge graph: pages mentioning the entities it mentions (weight 1)
   * or their typed neighbours (weight 0.5), scored by the entities they share, with the entities that connect them.
   */
  relatedPages(pageId: string, limit: number): Promise<RelatedPageRow[]> {
    return this.dataSource.query(
      `WITH mine AS (
         SELECT DISTINCT m.node_id FROM kg_visible_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
          WHERE c.page_id = $1 AND m.node_id IS NOT NULL),
       near AS (
         SELECT node_id, 1.0::float8 AS w FROM mine
         UNION ALL
         SELECT CASE WHEN e.source_node_id = mine.node_id THEN e.target_node_id ELSE e.source_node_id END, 0.5::float8
           FROM mine JOIN kg_visible_edges e ON e.kind = 'typed' AND (e.source_node_id = mine.node_id OR e.target_node_id = mine.node_id)),
       best AS (SELECT node_id, max(w) AS w FROM near GROUP BY node_id),
       hits AS (
         SELECT DISTINCT c.page_id, b.node_id, b.w
           FROM best b JOIN kg_visible_nodes n ON n.id = b.node_id
           JOIN kg_visible_mentions m ON m.node_id = b.node_id JOIN kg_content_chunks c ON c.id = m.chunk_id
          WHERE c.page_id <> $1)
       SELECT pg.slug, pg.title, sum(h.w)::float8 AS score, (array_agg(n.name ORDER BY h.w DESC, n.name))[1:8] AS via
         FROM hits h JOIN pages pg ON pg.id = h.page_id AND pg.deleted_at IS NULL JOIN kg_nodes n ON n.id = h.node_id
        GROUP BY pg.id, pg.slug, pg.title
        ORDER BY score DESC, pg.title LIMIT $2`,
      [pageId, limit],
    );
  }

  /** How big the visible knowledge graph is. */
  async graphCounts(): Promise<{ nodes: number; typedEdges: number; coMentionEdges: number; pendingProposals: number }> {
    const rows: { nodes: number; typed: number; co: number; pending: number }[] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM kg_visible_nodes)::int AS nodes,
              (SELECT count(*) FROM kg_visible_edges WHERE kind = 'typed')::int AS typed,
              (SELECT count(*) FROM kg_visible_edges WHERE kind = 'co_mention')::int AS co,
              (SELECT count(*) FROM kg_visible_proposals WHERE status = 'pending')::int AS pending`,
    );
    const row = rows[0];
    return { nodes: row.nodes, typedEdges: row.typed, coMentionEdges: row.co, pendingProposals: row.pending };
  }

  /** Live pages, pages in the trash, revisions, and pages the inclusion policy lets feed the knowledge graph. */
  async pageCounts(): Promise<{ pages: number; inTrash: number; revisions: number; includedInGraph: number }> {
    const rows: { pages: number; trash: number; revisions: number; included: number }[] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM pages WHERE deleted_at IS NULL)::int AS pages,
              (SELECT count(*) FROM pages WHERE deleted_at IS NOT NULL)::int AS trash,
              (SELECT count(*) FROM page_revisions)::int AS revisions,
              (SELECT count(*) FROM kg_visible_pages WHERE deleted_at IS NULL)::int AS included`,
    );
    const row = rows[0];
    return { pages: row.pages, inTrash: row.trash, revisions: row.revisions, includedInGraph: row.included };
  }
}
