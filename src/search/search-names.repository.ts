import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withoutJit } from './search.repository.js';

/** A page or approved entity with every name it may be called by, as read for the query-understanding dictionary. */
export interface NamedRow {
  kind: 'page' | 'entity';
  id: string;
  name: string;
  names: string[];
  type: string | null;
  /** For an entity: whether the inclusion policy lets readers see it (kg_visible_nodes). Pages: always true. */
  visible: boolean;
  /** For an entity: in how many chunks it is mentioned (its document frequency). */
  chunks: number;
}

/** One approved edge as the in-process neighbour lists keep it. */
export interface NeighbourRow {
  sourceId: string;
  targetId: string;
  kind: 'typed' | 'co_mention';
  predicate: string;
  weight: number;
  /** Both ends and the edge itself are visible (kg_visible_edges' rule). */
  visible: boolean;
  /** The best confidence of the proposals it was approved from (1: made by hand or imported). */
  confidence: number;
}

/** A word of the sentences that mention an entity on other pages, credited to the entity's home page. */
export interface ContextRow {
  pageId: string;
  lexeme: string;
  /** Σ over the other pages of min(MAX_COUNT_PER_SOURCE, the word's count there): every entity and page. */
  count: number;
  /** The same over visible entities and pages not excluded from the knowledge graph only (what readers may see). */
  visibleCount: number;
}

/** The SQL that fills the dictionary of names and the neighbour lists (src/search/search-names.service.ts). */
@Injectable()
export class SearchNamesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Live pages (title, aliases) and approved entities (name, aliases, and the names of entities merged into them or
   * that they were renamed or approved from: `kg_node_signatures`, whose signature is "name|type").
   */
  named(): Promise<NamedRow[]> {
    return withoutJit<NamedRow[]>(
      this.dataSource,
      `SELECT 'page' AS kind, p.id::text AS id, p.title AS name, ARRAY[p.title] || p.aliases AS names, NULL AS type, true AS visible, 0 AS chunks
         FROM pages p WHERE p.deleted_at IS NULL
       UNION ALL
       SELECT 'entity', n.id::text, n.name,
              ARRAY[n.name] || n.aliases || coalesce((SELECT array_agg(regexp_replace(s.signature, '\\|[^|]*$', '')) FROM kg_node_signatures s WHERE s.node_id = n.id), '{}'),
              n.node_type, EXISTS (SELECT 1 FROM kg_visible_nodes v WHERE v.id = n.id),
              (SELECT count(*) FROM kg_mentions m WHERE m.node_id = n.id)::int
         FROM kg_nodes n`,
      [],
    );
  }

  /** How many chunks mention an approved entity at all (what co-mention informativeness is measured against). */
  async mentioningChunks(): Promise<number> {
    const [row]: { n: number }[] = await this.dataSource.query(`SELECT count(DISTINCT chunk_id)::int AS n FROM kg_mentions WHERE node_id IS NOT NULL`);
    return row?.n ?? 0;
  }

  /**
   * Every approved edge with whether a reader may see it: both ends visible, and an extracted edge supported by a
   * page that is not excluded (or by nothing, or, for a co-mention, by a chunk both ends are mentioned in on such a
   * page): kg_visible_edges' rule, worked out for all edges at once with set operations.
   */
  neighbours(): Promise<NeighbourRow[]> {
    return withoutJit<NeighbourRow[]>(
      this.dataSource,
      `WITH visible_nodes AS MATERIALIZED (SELECT v.id FROM kg_visible_nodes v),
            support AS MATERIALIZED (
              SELECT ep.edge_id, bool_or(NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id)) AS shown
                FROM kg_edge_provenance ep JOIN kg_proposal_support s ON s.proposal_id = ep.proposal_id GROUP BY ep.edge_id),
            confidence AS MATERIALIZED (
              SELECT ep.edge_id, max(p.confidence) AS confidence FROM kg_edge_provenance ep JOIN kg_proposals p ON p.id = ep.proposal_id GROUP BY ep.edge_id)
       SELECT e.source_node_id::text AS "sourceId", e.target_node_id::text AS "targetId", e.kind, e.predicate, e.weight::float8 AS weight,
              coalesce((SELECT k.confidence FROM confidence k WHERE k.edge_id = e.id), 1)::float8 AS confidence,
              (e.source_node_id IN (SELECT id FROM visible_nodes) AND e.target_node_id IN (SELECT id FROM visible_nodes)
               AND (e.origin <> 'extracted' OR coalesce(s.shown, false)
                    OR (e.kind = 'co_mention' AND EXISTS (
                          SELECT 1 FROM kg_mentions ms JOIN kg_mentions mt ON mt.chunk_id = ms.chunk_id AND mt.node_id = e.target_node_id
                           WHERE ms.node_id = e.source_node_id AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = ms.page_id)))
                    OR (s.edge_id IS NULL AND NOT (e.kind = 'co_mention' AND EXISTS (
                          SELECT 1 FROM kg_mentions ms JOIN kg_mentions mt ON mt.chunk_id = ms.chunk_id AND mt.node_id = e.target_node_id
                           WHERE ms.node_id = e.source_node_id))))) AS visible
         FROM kg_edges e LEFT JOIN support s ON s.edge_id = e.id`,
      [],
    );
  }

  /**
   * The words of the sentences that mention each entity on pages other than its home (kg_mentions.context, written by
   * migration 0020's trigger; the mention's page is its own column since migration 0029, so no chunk is read), summed per home page and word, each other page counting a word at most
   * `maxPerSource` times. `homes` pairs entity ids with the pages bearing their names, and whether the entity is
   * visible; the visible count leaves out invisible entities and pages excluded from the knowledge graph.
   */
  contextTerms(homes: { nodeId: string; pageId: string; visible: boolean }[], maxPerSource: number): Promise<ContextRow[]> {
    if (homes.length === 0) return Promise.resolve([]);
    return withoutJit<ContextRow[]>(
      this.dataSource,
      `WITH homes AS MATERIALIZED (
              SELECT DISTINCT h.node_id::bigint AS node_id, h.page_id::uuid AS page_id, h.visible FROM unnest($1::text[], $2::text[], $3::boolean[]) AS h(node_id, page_id, visible)),
            per_source AS (
              SELECT h.page_id, u.lexeme, least($4::int, sum(coalesce(array_length(u.positions, 1), 1)))::int AS count,
                     bool_or(h.visible) AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages e WHERE e.page_id = m.page_id) AS visible
                FROM homes h JOIN kg_mentions m ON m.node_id = h.node_id AND m.page_id <> h.page_id
               CROSS JOIN LATERAL unnest(m.context) AS u
               GROUP BY h.page_id, m.page_id, u.lexeme)
       SELECT page_id::text AS "pageId", lexeme, sum(count)::int AS count, (coalesce(sum(count) FILTER (WHERE visible), 0))::int AS "visibleCount"
         FROM per_source GROUP BY page_id, lexeme`,
      [homes.map((h) => h.nodeId), homes.map((h) => h.pageId), homes.map((h) => h.visible), maxPerSource],
    );
  }
}
