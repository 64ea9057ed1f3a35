import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { holdReviewLockAlone, takePurgeTurn } from '../db/kg-purge-lock.js';

/** The knowledge-graph rows a visibility change or a purge is measured in. */
export const KG_ROW_KINDS = ['pages', 'chunks', 'mentions', 'proposals', 'nodes', 'edges'] as const;
export type KgRowKind = (typeof KG_ROW_KINDS)[number];

/** Every knowledge-graph table a purge may delete from, in the order it deletes (children first). */
export const PURGED_TABLES = [
  'kg_edge_provenance', 'kg_edges', 'kg_node_provenance', 'kg_node_embeddings', 'kg_mentions', 'kg_nodes',
  'kg_proposal_support', 'kg_proposals', 'kg_content_chunks',
] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];

export interface VisibilityChange {
  kind: KgRowKind;
  hide: number;
  reveal: number;
}

// The pages of a cluster and its sub-clusters ($1), live or in the trash.
const CLUSTER_PAGES = `SELECT p.id FROM pages p
  WHERE EXISTS (SELECT 1 FROM unnest(kurate_policy_clusters(p.clusters)) c WHERE c = $1 OR left(c, length($1) + 1) = $1 || '/')`;

/**
 * SQL over the knowledge-graph tables for the policy's soft and hard exclude: what a change would hide or reveal,
 * and the purge. It relies on the provenance the tables carry and on the kg_visible_* views (migration 0003).
 */
@Injectable()
export class KgDerivationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in a transaction that is always rolled back: the estimate and the purge dry-run apply the real
   * change and measure it, so they cannot disagree with what the real change would do.
   */
  async rolledBack<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      return await work(runner.manager);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Notes which rows that could derive from the cluster's pages are visible now, under `label` (before | after).
   * Only these candidates can change visibility when the cluster's pages change status.
   */
  async snapshotVisible(cluster: string, label: 'before' | 'after', tx: EntityManager): Promise<void> {
    if (label === 'before') {
      await tx.query(`CREATE TEMP TABLE kg_estimate_scope ON COMMIT DROP AS ${CLUSTER_PAGES}`, [cluster]);
      await tx.query(
        `CREATE TEMP TABLE kg_estimate_nodes ON COMMIT DROP AS
           SELECT DISTINCT sp.node_id AS id FROM kg_node_support_pages sp WHERE sp.page_id IN (SELECT id FROM kg_estimate_scope)`,
      );
      await tx.query('CREATE TEMP TABLE kg_estimate_visible (label text NOT NULL, kind text NOT NULL, id text NOT NULL) ON COMMIT DROP');
    }
    await tx.query(
      `INSERT INTO kg_estimate_visible (label, kind, id)
       SELECT $1, 'pages', v.id::text FROM kg_visible_pages v WHERE v.id IN (SELECT id FROM kg_estimate_scope)
       UNION ALL
       SELECT $1, 'chunks', v.id::text FROM kg_visible_chunks v WHERE v.page_id IN (SELECT id FROM kg_estimate_scope)
       UNION ALL
       SELECT $1, 'mentions', v.id::text FROM kg_visible_mentions v
        WHERE v.chunk_id IN (SELECT c.id FROM kg_content_chunks c WHERE c.page_id IN (SELECT id FROM kg_estimate_scope))
       UNION ALL
       SELECT $1, 'proposals', v.id::text FROM kg_visible_proposals v
        WHERE v.id IN (SELECT s.proposal_id FROM kg_proposal_support s WHERE s.page_id IN (SELECT id FROM kg_estimate_scope))
       UNION ALL
       SELECT $1, 'nodes', v.id::text FROM kg_visible_nodes v WHERE v.id IN (SELECT id FROM kg_estimate_nodes)
       UNION ALL
       SELECT $1, 'edges', v.id::text FROM kg_visible_edges v
        WHERE v.source_node_id IN (SELECT id FROM kg_estimate_nodes) OR v.target_node_id IN (SELECT id FROM kg_estimate_nodes)
           OR v.id IN (SELECT sp.edge_id FROM kg_edge_support_pages sp WHERE sp.page_id IN (SELECT id FROM kg_estimate_scope))`,
      [label],
    );
  }

  /** Per kind: rows visible before and not after (hidden), and the reverse (revealed). */
  async compareSnapshots(tx: EntityManager): Promise<VisibilityChange[]> {
    const rows: { kind: KgRowKind; hide: number; reveal: number }[] = await tx.query(
      `SELECT coalesce(b.kind, a.kind) AS kind,
              count(*) FILTER (WHERE a.id IS NULL)::int AS hide,
              count(*) FILTER (WHERE b.id IS NULL)::int AS reveal
         FROM (SELECT kind, id FROM kg_estimate_visible WHERE label = 'before') b
         FULL JOIN (SELECT kind, id FROM kg_estimate_visible WHERE label = 'after') a ON a.kind = b.kind AND a.id = b.id
        GROUP BY coalesce(b.kind, a.kind)`,
    );
    return KG_ROW_KINDS.map((kind) => {
      const row = rows.find((r) => r.kind === kind);
      return { kind, hide: row?.hide ?? 0, reveal: row?.reveal ?? 0 };
    });
  }

  /**
   * Before a purge reads anything: the review lock alone, then the cluster's pages (in id order). An extraction run
   * writes a page's rows holding that page's row FOR SHARE and checks the policy under it, so a run under way is
   * waited for (and its rows are then seen and purged) and a later one finds the page excluded. In statements of
   * their own: the purge's next statements see what the waited-for transactions committed.
   */
  /** Purges and dry runs one at a time (src/db/kg-purge-lock.ts): the first statement of either. */
  takePurgeTurn(tx: EntityManager): Promise<void> {
    return takePurgeTurn(tx);
  }

  async lockForPurge(cluster: string, tx: EntityManager): Promise<void> {
    await holdReviewLockAlone(tx);
    await tx.query(
      `SELECT count(*) FROM (SELECT p.id FROM pages p WHERE p.id IN (${CLUSTER_PAGES}) ORDER BY p.id FOR NO KEY UPDATE OF p) locked`,
      [cluster],
    );
  }

  /** The excluded pages of the cluster (and its sub-clusters), live or in the trash: what a purge works on. */
  async selectPurgeTargets(cluster: string, tx: EntityManager): Promise<{ pages: number; includedPagesKept: number }> {
    await tx.query(
      `CREATE TEMP TABLE kg_purge_pages ON COMMIT DROP AS
         SELECT s.id FROM (${CLUSTER_PAGES}) s WHERE EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.id)`,
      [cluster],
    );
    const rows: { pages: number; kept: number }[] = await tx.query(
      `SELECT (SELECT count(*) FROM kg_purge_pages)::int AS pages,
              (SELECT count(*) FROM (${CLUSTER_PAGES}) s WHERE s.id NOT IN (SELECT id FROM kg_purge_pages))::int AS kept`,
      [cluster],
    );
    return { pages: rows[0].pages, includedPagesKept: rows[0].kept };
  }

  /**
   * Deletes what derives only from the pages in kg_purge_pages: their chunks, mentions and support; the proposals,
   * nodes and edges whose every piece of page support is among them (rows an admin made stay); and the rows that
   * hang off those. Children go first, so that no cascade deletes anything uncounted.
   */
  async purgeSelected(tx: EntityManager): Promise<Record<PurgedTable, number>> {
    await tx.query(
      `CREATE TEMP TABLE kg_purge_nodes ON COMMIT DROP AS
         SELECT n.id FROM kg_nodes n
          WHERE n.origin = 'extracted'
            AND EXISTS (SELECT 1 FROM kg_node_support_pages sp WHERE sp.node_id = n.id AND sp.page_id IN (SELECT id FROM kg_purge_pages))
            AND NOT EXISTS (SELECT 1 FROM kg_node_support_pages sp WHERE sp.node_id = n.id AND sp.page_id NOT IN (SELECT id FROM kg_purge_pages))`,
    );
    await tx.query(
      `CREATE TEMP TABLE kg_purge_edges ON COMMIT DROP AS
         SELECT e.id FROM kg_edges e
          WHERE e.source_node_id IN (SELECT id FROM kg_purge_nodes) OR e.target_node_id IN (SELECT id FROM kg_purge_nodes)
             OR (e.origin = 'extracted'
                 AND EXISTS (SELECT 1 FROM kg_edge_support_pages sp WHERE sp.edge_id = e.id AND sp.page_id IN (SELECT id FROM kg_purge_pages))
                 AND NOT EXISTS (SELECT 1 FROM kg_edge_support_pages sp WHERE sp.edge_id = e.id AND sp.page_id NOT IN (SELECT id FROM kg_purge_pages)))`,
    );
    await tx.query(
      `CREATE TEMP TABLE kg_purge_proposals ON COMMIT DROP AS
         SELECT p.id FROM kg_proposals p
          WHERE EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id AND s.page_id IN (SELECT id FROM kg_purge_pages))
            AND NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id AND s.page_id NOT IN (SELECT id FROM kg_purge_pages))`,
    );
    // Surviving proposals that lose some support get their count recomputed below.
    await tx.query(
      `CREATE TEMP TABLE kg_purge_thinned_proposals ON COMMIT DROP AS
         SELECT DISTINCT s.proposal_id AS id FROM kg_proposal_support s
          WHERE s.page_id IN (SELECT id FROM kg_purge_pages) AND s.proposal_id NOT IN (SELECT id FROM kg_purge_proposals)`,
    );
    // Surviving co-mention edges that lose shared chunks get their weight recomputed below.
    await tx.query(
      `CREATE TEMP TABLE kg_purge_thinned_edges ON COMMIT DROP AS
         SELECT DISTINCT sp.edge_id AS id FROM kg_edge_support_pages sp
           JOIN kg_edges e ON e.id = sp.edge_id AND e.kind = 'co_mention'
          WHERE sp.page_id IN (SELECT id FROM kg_purge_pages) AND sp.edge_id NOT IN (SELECT id FROM kg_purge_edges)`,
    );

    const deleteCount = async (sql: string): Promise<number> => {
      const rows: { n: number }[] = await tx.query(`WITH gone AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
      return rows[0].n;
    };
    const chunksOfPurgedPages = 'SELECT c.id FROM kg_content_chunks c WHERE c.page_id IN (SELECT id FROM kg_purge_pages)';
    const deleted: Record<PurgedTable, number> = {
      kg_edge_provenance: await deleteCount(
        `DELETE FROM kg_edge_provenance WHERE edge_id IN (SELECT id FROM kg_purge_edges) OR proposal_id IN (SELECT id FROM kg_purge_proposals)`),
      kg_edges: await deleteCount('DELETE FROM kg_edges WHERE id IN (SELECT id FROM kg_purge_edges)'),
      kg_node_provenance: await deleteCount(
        `DELETE FROM kg_node_provenance WHERE node_id IN (SELECT id FROM kg_purge_nodes) OR proposal_id IN (SELECT id FROM kg_purge_proposals)`),
      kg_node_embeddings: await deleteCount('DELETE FROM kg_node_embeddings WHERE node_id IN (SELECT id FROM kg_purge_nodes)'),
      kg_mentions: await deleteCount(
        `DELETE FROM kg_mentions WHERE chunk_id IN (${chunksOfPurgedPages}) OR node_id IN (SELECT id FROM kg_purge_nodes)`),
      kg_nodes: await deleteCount('DELETE FROM kg_nodes WHERE id IN (SELECT id FROM kg_purge_nodes)'),
      kg_proposal_support: await deleteCount(
        `DELETE FROM kg_proposal_support WHERE page_id IN (SELECT id FROM kg_purge_pages) OR proposal_id IN (SELECT id FROM kg_purge_proposals)`),
      kg_proposals: await deleteCount('DELETE FROM kg_proposals WHERE id IN (SELECT id FROM kg_purge_proposals)'),
      kg_content_chunks: await deleteCount('DELETE FROM kg_content_chunks WHERE page_id IN (SELECT id FROM kg_purge_pages)'),
    };

    await tx.query(
      `UPDATE kg_proposals p SET support_count = (SELECT count(*) FROM kg_proposal_support s WHERE s.proposal_id = p.id), updated_at = now()
        WHERE p.id IN (SELECT id FROM kg_purge_thinned_proposals)`,
    );
    await tx.query(
      `UPDATE kg_edges e SET weight = (SELECT count(*) FROM kg_edge_support_pages sp WHERE sp.edge_id = e.id), updated_at = now()
        WHERE e.id IN (SELECT id FROM kg_purge_thinned_edges)`,
    );
    return deleted;
  }

  /** Proposals an admin still has to review (those the policy hides are not counted). */
  async pendingProposalCount(): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM kg_visible_proposals WHERE status = 'pending'`);
    return rows[0].n;
  }
}
