import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EntityMention, GraphEdge } from './graph-proximity.js';
import { pageFilterSql, withoutJit, type SearchFilters } from './search.repository.js';
import { preparedQuery } from '../db/prepared-query.js';
import { SEARCH_CORPUS } from '../db/search-corpus.js';

/** The most pages of one entity the graph list reads. */
const MENTIONED_PAGES_PER_ENTITY = 200;

export interface EntityName {
  nodeId: string;
  name: string;
  type: string;
}

/**
 * Keeps only the rows whose node or edge id (`id`, an SQL expression) the visibility view shows, unless `includeExcluded`.
 * The view is asked row by row (LATERAL … LIMIT 1): joined as a whole, PostgreSQL would first work out the visibility
 * of every edge in the graph (seconds at 20,000 edges), here of the few the query touches.
 */
export function visibleOnly(view: 'kg_visible_nodes' | 'kg_visible_edges', id: string, includeExcluded: boolean): string {
  return includeExcluded ? '' : `CROSS JOIN LATERAL (SELECT 1 FROM ${view} v WHERE v.id = ${id} LIMIT 1) visible`;
}

/**
 * The SQL of the graph signal: approved entities named by the query, approved edges around them, and the pages that
 * mention them. Every read goes through the kg_visible_* views (soft-excluded pages feed nothing) unless
 * `includeExcluded`, an admin's explicit bypass.
 */
@Injectable()
export class SearchGraphRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Entities whose name or an alias, lower-cased, is one of the windows. */
  entitiesNamed(windows: string[], includeExcluded: boolean): Promise<EntityName[]> {
    if (windows.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      `SELECT n.id::text AS "nodeId", n.name, n.node_type AS type FROM kg_nodes n ${visibleOnly('kg_visible_nodes', 'n.id', includeExcluded)}
        WHERE lower(n.name) = ANY ($1::text[]) OR EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(a) = ANY ($1::text[]))
        ORDER BY n.id`,
      [windows],
    );
  }

  /** Approved edges with an end among these entities (both ends visible). */
  edgesAround(nodeIds: string[], includeExcluded: boolean): Promise<GraphEdge[]> {
    if (nodeIds.length === 0) return Promise.resolve([]);
    if (includeExcluded) {
      return this.dataSource.query(
        `SELECT e.source_node_id::text AS "sourceId", e.target_node_id::text AS "targetId", e.kind, e.weight::float8 AS weight
           FROM kg_edges e WHERE e.source_node_id = ANY ($1::bigint[]) OR e.target_node_id = ANY ($1::bigint[])`,
        [nodeIds],
      );
    }
    // kg_visible_edges' rule, asked once per end node and per edge (the view, joined whole or per edge, works out the
    // visibility of both ends again for every edge: seconds at 20,000 edges). search-graph.test.ts checks the two agree.
    return withoutJit<GraphEdge[]>(
      this.dataSource,
      `WITH around AS MATERIALIZED (
              SELECT e.id, e.source_node_id, e.target_node_id, e.kind, e.weight, e.origin FROM kg_edges e
               WHERE e.source_node_id = ANY ($1::bigint[]) OR e.target_node_id = ANY ($1::bigint[])),
            ends AS MATERIALIZED (
              SELECT DISTINCT x.id FROM around a, LATERAL (VALUES (a.source_node_id), (a.target_node_id)) x(id)),
            visible_ends AS MATERIALIZED (
              SELECT x.id FROM ends x ${visibleOnly('kg_visible_nodes', 'x.id', false)})
       SELECT e.source_node_id::text AS "sourceId", e.target_node_id::text AS "targetId", e.kind, e.weight::float8 AS weight
         FROM around e
        WHERE e.source_node_id IN (SELECT id FROM visible_ends) AND e.target_node_id IN (SELECT id FROM visible_ends)
          AND (e.origin <> 'extracted'
               OR EXISTS (SELECT 1 FROM kg_edge_provenance ep JOIN kg_proposal_support s ON s.proposal_id = ep.proposal_id
                           WHERE ep.edge_id = e.id AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id))
               OR (e.kind = 'co_mention' AND EXISTS (
                     SELECT 1 FROM kg_mentions ms JOIN kg_mentions mt ON mt.chunk_id = ms.chunk_id AND mt.node_id = e.target_node_id
                       JOIN kg_content_chunks c ON c.id = ms.chunk_id
                      WHERE ms.node_id = e.source_node_id AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)))
               OR NOT (EXISTS (SELECT 1 FROM kg_edge_provenance ep JOIN kg_proposal_support s ON s.proposal_id = ep.proposal_id WHERE ep.edge_id = e.id)
                       OR (e.kind = 'co_mention' AND EXISTS (
                             SELECT 1 FROM kg_mentions ms JOIN kg_mentions mt ON mt.chunk_id = ms.chunk_id AND mt.node_id = e.target_node_id
                              WHERE ms.node_id = e.source_node_id))))`,
      [nodeIds],
    );
  }

  /**
   * Which live pages (passing the filters) mention which of these entities, with the number of chunks mentioning
   * each entity, and the number of live pages (what the rarity is measured against).
   */
  async mentions(nodeIds: string[], filters: SearchFilters, includeExcluded: boolean): Promise<{ mentions: EntityMention[]; totalPages: number }> {
    if (nodeIds.length === 0) return { mentions: [], totalPages: 0 };
    const filter = pageFilterSql(filters, 3);
    // kg_visible_mentions' rule inline (a mention is visible when its chunk's page is not excluded), so that each
    // entity's pages are read from the (node_id, chunk_id) index, at most MENTIONED_PAGES_PER_ENTITY of them: an
    // entity named on thousands of pages weighs little per page anyway. Its rarity counts the chunks that mention it
    // straight from that index (all of them: the count only lowers a weight, it brings no page in). `OFFSET 0` keeps
    // the entity's mentions the driving side: left free, PostgreSQL walked all chunks in page order looking for them
    // (seconds per query at 10,000 pages).
    const visible = includeExcluded
      ? 'EXISTS (SELECT 1 FROM pages p WHERE p.id = c.page_id AND p.deleted_at IS NULL)'
      : 'NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)';
    const rows = await withoutJit<(EntityMention & { totalPages: number })[]>(
      this.dataSource,
      `WITH reached AS (SELECT DISTINCT unnest($1::bigint[]) AS node_id)
       SELECT h.page_id AS "pageId", r.node_id::text AS "nodeId", greatest(df.n, 1)::int AS pages,
              (SELECT n FROM (${SEARCH_CORPUS}) c)::int AS "totalPages"
         FROM reached r
         CROSS JOIN LATERAL (SELECT count(*) AS n FROM kg_mentions m WHERE m.node_id = r.node_id) df
         CROSS JOIN LATERAL (SELECT DISTINCT c.page_id
                               FROM (SELECT m.chunk_id FROM kg_mentions m WHERE m.node_id = r.node_id OFFSET 0) m
                               JOIN kg_content_chunks c ON c.id = m.chunk_id
                              WHERE ${visible} LIMIT $2::int) h
        WHERE EXISTS (SELECT 1 FROM pages p WHERE p.id = h.page_id AND ${filter.sql})`,
      [nodeIds, MENTIONED_PAGES_PER_ENTITY, ...filter.params],
    );
    return { mentions: rows.map(({ totalPages: _t, ...m }) => m), totalPages: rows[0]?.totalPages ?? 0 };
  }

  /**
   * Which of these pages mention which of these entities (visible chunks only unless `includeExcluded`): read from
   * the pages' chunks (a few per page), never from an entity's mention list (a hub's runs to thousands).
   */
  mentionsInPages(pageIds: string[], nodeIds: string[], includeExcluded: boolean): Promise<{ pageId: string; nodeId: string }[]> {
    if (pageIds.length === 0 || nodeIds.length === 0) return Promise.resolve([]);
    const visible = includeExcluded ? 'true' : 'NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)';
    return preparedQuery(
      this.dataSource,
      `SELECT DISTINCT c.page_id AS "pageId", m.node_id::text AS "nodeId"
         FROM kg_content_chunks c JOIN kg_mentions m ON m.chunk_id = c.id
        WHERE c.page_id = ANY ($1::uuid[]) AND m.node_id = ANY ($2::bigint[]) AND ${visible}`,
      [pageIds, nodeIds],
    );
  }

  /** Approved entities the pages mention, the ones on most of these pages first. */
  entitiesOfPages(pageIds: string[], limit: number, includeExcluded: boolean): Promise<{ nodeId: string; pages: number }[]> {
    if (pageIds.length === 0) return Promise.resolve([]);
    const mentions = includeExcluded ? 'kg_mentions' : 'kg_visible_mentions';
    return preparedQuery(
      this.dataSource,
      `SELECT m.node_id::text AS "nodeId", count(DISTINCT c.page_id)::int AS pages
         FROM ${mentions} m JOIN kg_content_chunks c ON c.id = m.chunk_id
        WHERE c.page_id = ANY ($1::uuid[]) AND m.node_id IS NOT NULL
        GROUP BY m.node_id ORDER BY pages DESC, m.node_id LIMIT $2`,
      [pageIds, limit],
    );
  }

  names(nodeIds: string[]): Promise<EntityName[]> {
    if (nodeIds.length === 0) return Promise.resolve([]);
    return preparedQuery(
      this.dataSource,
      `SELECT id::text AS "nodeId", name, node_type AS type FROM kg_nodes WHERE id = ANY ($1::bigint[]) ORDER BY id`,
      [nodeIds],
    );
  }
}
