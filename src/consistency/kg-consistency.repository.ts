import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { MISNAMED_MENTIONS, mentionForms, type MentionForms } from '../kg/mention-forms.js';
import { SOURCES_WITHOUT_PAGES } from '../kg/proposal-sources.js';
import { EXAMPLES_SHOWN, type InvariantFinding, type InvariantName } from './kg-invariants.js';

/** What the checks read besides the tables: the embedding model, and the forms of the names mentions may carry. */
interface CheckContext {
  model: string;
  forms: MentionForms;
}

/** One check: a statement answering the number of rows that break the invariant and a few of them in words. */
type CheckSql = (context: CheckContext) => { sql: string; params: unknown[] };

// Each check selects `bad` rows with a `line` (the example in words) and an `ord` (which examples come first).
const finding = (bad: string, params: unknown[] = []) => ({
  sql: `WITH bad AS (${bad})
        SELECT count(*)::int AS n, (SELECT array_agg(line) FROM (SELECT line FROM bad ORDER BY ord LIMIT ${EXAMPLES_SHOWN}) e) AS examples FROM bad`,
  params,
});

// Pages of a cluster whose last policy event (review aside) is a purge, still excluded: what the purge worked on.
const PURGED_PAGES = `
  SELECT DISTINCT p.id AS page_id, p.slug, last.cluster
    FROM (SELECT DISTINCT ON (a.cluster) a.cluster, a.event FROM kg_policy_audit a
           WHERE a.cluster IS NOT NULL AND a.event IN ('set', 'clear', 'purge') ORDER BY a.cluster, a.id DESC) last
    JOIN pages p ON EXISTS (SELECT 1 FROM unnest(p.clusters) c WHERE c = last.cluster OR left(c, length(last.cluster) + 1) = last.cluster || '/')
   WHERE last.event = 'purge' AND EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id)`;

// Pairs of approved nodes sharing a chunk, with the number of chunks they share (how co-mentions are derived).
const SHARED_CHUNKS = `
  SELECT least(a.node_id, o.node_id) AS s, greatest(a.node_id, o.node_id) AS t, count(DISTINCT a.chunk_id)::int AS n
    FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id AND o.node_id IS NOT NULL AND o.node_id <> a.node_id
   WHERE a.node_id IS NOT NULL AND a.node_id < o.node_id
   GROUP BY 1, 2`;

// Co-mention edges out of step with the mentions: an extracted one with the wrong weight or no shared chunk, or none at all.
const CO_MENTIONS_OFF = `
  SELECT coalesce(e.source_node_id, sc.s) AS s, coalesce(e.target_node_id, sc.t) AS t, e.id AS edge_id, e.weight, coalesce(sc.n, 0) AS shared
    FROM (SELECT * FROM kg_edges WHERE kind = 'co_mention') e
    FULL JOIN (${SHARED_CHUNKS}) sc ON sc.s = e.source_node_id AND sc.t = e.target_node_id
   WHERE e.id IS NULL
      -- An admin's or an imported co-mention stands on its own.
      OR (e.origin = 'extracted' AND (sc.s IS NULL OR e.weight IS DISTINCT FROM sc.n::real))`;

const CHECKS: Record<InvariantName, CheckSql> = {
  // The mark a restore's load commits and its rebuild removes (migration 0033, src/backup/backup.service.ts).
  restore_finished: () => finding(`
    SELECT format('the restore of %s (taken %s) loaded at %s and never finished its rebuild: restart the server, or run kurate restore with that archive again, to finish it',
                  o.file, o.archive_created_at, to_char(o.loaded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) AS line, o.loaded_at AS ord
      FROM restore_rebuild_owed o`),

  chunk_positions: () => finding(`
    SELECT format('page %s: %s chunks at positions %s…%s, %s distinct', p.slug, b.n, b.lo, b.hi, b.places) AS line, p.slug AS ord
      FROM (SELECT page_id, count(*) AS n, count(DISTINCT position) AS places, min(position) AS lo, max(position) AS hi
              FROM kg_content_chunks GROUP BY page_id
            HAVING count(*) <> count(DISTINCT position) OR min(position) <> 0 OR max(position) <> count(*) - 1) b
      JOIN pages p ON p.id = b.page_id`),

  chunk_counts: () => finding(`
    SELECT format('page %s: the record counts %s chunks, %s stored%s', p.slug, r.chunk_count, r.n,
                  CASE WHEN r.n = 0 THEN ' (the page is included)' ELSE '' END) AS line, p.slug AS ord
      FROM (SELECT x.page_id, x.chunk_count, (SELECT count(*) FROM kg_content_chunks c WHERE c.page_id = x.page_id)::int AS n
              FROM kg_page_extractions x) r
      JOIN pages p ON p.id = r.page_id
     WHERE (r.n > 0 AND r.n <> r.chunk_count)
        OR (r.n = 0 AND r.chunk_count > 0 AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = r.page_id))`),

  proposal_support_counts: () => finding(`
    SELECT format('proposal %s (%s %s, %s): support_count %s, %s support rows', p.id, p.kind, coalesce(p.name, p.signature), p.status,
                  p.support_count, s.n) AS line, p.id AS ord
      FROM kg_proposals p
      CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM kg_proposal_support x WHERE x.proposal_id = p.id) s
     WHERE p.support_count <> s.n`),

  // Extracted proposals only: one from a graph file or an agent never had page support.
  pending_proposals_supported: () => finding(`
    SELECT format('proposal %s (%s %s): pending with no support', p.id, p.kind, coalesce(p.name, p.signature)) AS line, p.id AS ord
      FROM kg_proposals p
     WHERE p.status = 'pending' AND p.extractor <> ALL ($1::text[])
       AND NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)`, [SOURCES_WITHOUT_PAGES]),

  provenance_approved: () => finding(`
    SELECT format('node %s (%s) names proposal %s, a %s %s proposal', n.id, n.name, p.id, p.status, p.kind) AS line, n.id AS ord
      FROM kg_node_provenance np JOIN kg_nodes n ON n.id = np.node_id JOIN kg_proposals p ON p.id = np.proposal_id
     WHERE p.status <> 'approved' OR p.kind <> 'node'
    UNION ALL
    SELECT format('edge %s (%s) names proposal %s, a %s %s proposal', e.id, e.predicate, p.id, p.status, p.kind), e.id
      FROM kg_edge_provenance ep JOIN kg_edges e ON e.id = ep.edge_id JOIN kg_proposals p ON p.id = ep.proposal_id
     WHERE p.status <> 'approved' OR p.kind <> 'edge'`),

  derived_rows_grounded: () => finding(`
    SELECT format('node %s (%s): extracted, but no provenance and no mention', n.id, n.name) AS line, n.id AS ord
      FROM kg_nodes n
     WHERE n.origin = 'extracted'
       AND NOT EXISTS (SELECT 1 FROM kg_node_provenance np WHERE np.node_id = n.id)
       AND NOT EXISTS (SELECT 1 FROM kg_mentions m WHERE m.node_id = n.id)
    UNION ALL
    SELECT format('edge %s (%s %s %s): extracted and typed, but no provenance', e.id, s.name, e.predicate, t.name), e.id
      FROM kg_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
     WHERE e.origin = 'extracted' AND e.kind = 'typed'
       AND NOT EXISTS (SELECT 1 FROM kg_edge_provenance ep WHERE ep.edge_id = e.id)`),

  edges_to_merged_or_retired_nodes: () => finding(`
    SELECT DISTINCT ON (e.id)
           format('edge %s (%s %s %s) touches %s (%s)', e.id, s.name, e.predicate, t.name, n.name,
                  CASE WHEN ns.node_id IS NOT NULL THEN format('merged into node %s', ns.node_id) ELSE 'stands on nothing' END) AS line, e.id AS ord
      FROM kg_edges e
      JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
      JOIN kg_nodes n ON n.id IN (e.source_node_id, e.target_node_id)
      LEFT JOIN kg_node_signatures ns ON ns.signature = n.signature AND ns.node_id <> n.id AND ns.reason = 'merged'
     WHERE ns.node_id IS NOT NULL
        OR (n.origin = 'extracted'
            AND NOT EXISTS (SELECT 1 FROM kg_node_provenance np JOIN kg_proposals p ON p.id = np.proposal_id
                             WHERE np.node_id = n.id AND p.status = 'approved')
            AND NOT EXISTS (SELECT 1 FROM kg_mentions m WHERE m.node_id = n.id))`),

  // The CHECK of migration 0032 refuses these: this finds one where the constraint was dropped. Deleting an approved
  // edge is an admin's decision (its provenance says which proposals it came from).
  edges_without_self_loops: () => finding(`
    SELECT format('edge %s (%s %s %s): %s, joins node %s to itself', e.id, n.name, e.predicate, n.name, e.kind, n.id) AS line, e.id AS ord
      FROM kg_edges e JOIN kg_nodes n ON n.id = e.source_node_id
     WHERE e.source_node_id = e.target_node_id`),

  mentions_named: ({ forms }) => finding(`
    SELECT format('page %s: the mention %s %s', p.slug, b.signature,
                  CASE WHEN b.node IS NOT NULL THEN format('names entity %s (%s) but is not linked to it', b.node, n.name)
                       ELSE format('names the pending proposal %s under another signature', b.target) END) AS line, p.slug AS ord
      FROM (${MISNAMED_MENTIONS}) b
      JOIN kg_content_chunks c ON c.id = b.chunk_id JOIN pages p ON p.id = c.page_id
      LEFT JOIN kg_nodes n ON n.id = b.node`, [forms.forms, forms.targets, forms.nodes]),

  co_mention_weights: () => finding(`
    SELECT format('%s and %s: %s', a.name, b.name,
                  CASE WHEN c.edge_id IS NULL THEN format('share %s chunk(s) but have no co-mention edge', c.shared)
                       WHEN c.shared = 0 THEN format('co-mention edge %s shares no chunk', c.edge_id)
                       ELSE format('co-mention edge %s weighs %s, they share %s chunk(s)', c.edge_id, c.weight, c.shared) END) AS line,
           c.s AS ord
      FROM (${CO_MENTIONS_OFF}) c JOIN kg_nodes a ON a.id = c.s JOIN kg_nodes b ON b.id = c.t`),

  purged_cluster_rows: () => finding(`
    SELECT format('page %s (purged cluster %s): %s chunk(s), %s proposal support row(s)', pp.slug, pp.cluster, ch.n, su.n) AS line, pp.slug AS ord
      FROM (SELECT DISTINCT ON (page_id) * FROM (${PURGED_PAGES}) x ORDER BY page_id, cluster) pp
      CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM kg_content_chunks c WHERE c.page_id = pp.page_id) ch
      CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM kg_proposal_support s WHERE s.page_id = pp.page_id) su
     WHERE ch.n > 0 OR su.n > 0`),

  chunk_embeddings: ({ model }) => finding(`
    SELECT format('page %s: %s chunk(s) %s', p.slug, b.n, b.what) AS line, p.slug AS ord
      FROM (SELECT c.page_id, count(*)::int AS n,
                   string_agg(DISTINCT CASE WHEN c.embedding IS NULL THEN 'without a vector' ELSE format('embedded with %s', c.embedding_model) END, ', ') AS what
              FROM kg_content_chunks c
             WHERE (c.embedding IS NULL OR c.embedding_model IS DISTINCT FROM $1)
               AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)
             GROUP BY c.page_id) b
      JOIN pages p ON p.id = b.page_id`, [model]),

  node_embeddings: ({ model }) => finding(`
    SELECT format('node %s (%s): no vector from %s', n.id, n.name, $1::text) AS line, n.id AS ord
      FROM kg_nodes n
     WHERE NOT EXISTS (SELECT 1 FROM kg_node_embeddings e WHERE e.node_id = n.id AND e.model = $1)`, [model]),
};

/**
 * SQL of the consistency checker (`kurate kg check`): one read-only statement per invariant, and the repairs that
 * are safe (recounts, retiring unsupported pending proposals, derived co-mention edges, forgetting extraction
 * records so that pages are read again). Nothing here deletes approved knowledge.
 */
@Injectable()
export class KgConsistencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs every check in one read-only transaction, so that they all see the same snapshot. */
  async check(model: string): Promise<Record<InvariantName, InvariantFinding>> {
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const context: CheckContext = { model, forms: await mentionForms(tx) };
      const found = {} as Record<InvariantName, InvariantFinding>;
      for (const [name, check] of Object.entries(CHECKS) as [InvariantName, CheckSql][]) {
        const { sql, params } = check(context);
        const rows: { n: number; examples: string[] | null }[] = await tx.query(sql, params);
        found[name] = { count: rows[0].n, examples: rows[0].examples ?? [] };
      }
      return found;
    });
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Pages whose chunks are misnumbered or miscounted: their record's count is taken from the rows and its source hash
   * forgotten, so that extraction plans the page again (only chunks it lacks cost a call). Returns the page ids.
   */
  async forgetBrokenRecords(tx: EntityManager): Promise<{ positions: string[]; counts: string[] }> {
    const positions: { page_id: string }[] = await tx.query(
      `SELECT page_id FROM kg_content_chunks GROUP BY page_id
        HAVING count(*) <> count(DISTINCT position) OR min(position) <> 0 OR max(position) <> count(*) - 1`,
    );
    const counts: { page_id: string }[] = await tx.query(
      `SELECT r.page_id FROM kg_page_extractions r
        CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM kg_content_chunks c WHERE c.page_id = r.page_id) c
        WHERE (c.n > 0 AND c.n <> r.chunk_count)
           OR (c.n = 0 AND r.chunk_count > 0 AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = r.page_id))`,
    );
    const ids = [...new Set([...positions, ...counts].map((r) => r.page_id))];
    if (ids.length > 0) {
      await tx.query(
        `UPDATE kg_page_extractions r
            SET chunk_count = (SELECT count(*) FROM kg_content_chunks c WHERE c.page_id = r.page_id)::int, source_hash = 'repaired-by-kg-check'
          WHERE r.page_id = ANY($1::uuid[])`,
        [ids],
      );
    }
    const positionIds = positions.map((r) => r.page_id);
    return { positions: positionIds, counts: counts.map((r) => r.page_id).filter((id) => !positionIds.includes(id)) };
  }

  /**
   * The forms of the names of approved entities (name and aliases) and pending node proposals, as extraction resolves
   * a mention: an entity's form only when no other entity has it, a proposal's only when no entity has it.
   */
  /** Mentions named by a variant linked to their entity, or given their pending proposal's signature; returns how many. */
  async linkMisnamedMentions(tx: EntityManager): Promise<number> {
    const forms = await mentionForms(tx);
    const rows: { n: number }[] = await tx.query(
      `WITH bad AS (${MISNAMED_MENTIONS}),
       fixed AS (UPDATE kg_mentions m SET node_id = coalesce(bad.node, m.node_id), signature = coalesce(bad.target, m.signature)
                   FROM bad WHERE m.id = bad.id RETURNING 1)
       SELECT count(*)::int AS n FROM fixed`,
      [forms.forms, forms.targets, forms.nodes],
    );
    return rows[0].n;
  }

  /** support_count from the support rows; returns how many proposals changed. */
  async recountSupport(tx: EntityManager): Promise<number> {
    const rows: { n: number }[] = await tx.query(
      `WITH fixed AS (
         UPDATE kg_proposals p SET support_count = s.n, updated_at = now()
           FROM (SELECT q.id, (SELECT count(*) FROM kg_proposal_support x WHERE x.proposal_id = q.id)::int AS n FROM kg_proposals q) s
          WHERE p.id = s.id AND p.support_count <> s.n
         RETURNING 1)
       SELECT count(*)::int AS n FROM fixed`,
    );
    return rows[0].n;
  }

  /** Extracted pending proposals no chunk supports are retired (as extraction retires them); returns how many. */
  async retireUnsupported(tx: EntityManager): Promise<number> {
    const rows: { n: number }[] = await tx.query(
      `WITH fixed AS (
         UPDATE kg_proposals p SET status = 'retired', updated_at = now()
          WHERE p.status = 'pending' AND p.extractor <> ALL ($1::text[])
            AND NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
         RETURNING 1)
       SELECT count(*)::int AS n FROM fixed`,
      [SOURCES_WITHOUT_PAGES],
    );
    return rows[0].n;
  }

  /**
   * Extracted co-mention edges in step with the mentions: weights recomputed, missing pairs added, pairs that share
   * no chunk any more removed (derived rows, as extraction removes them). Returns how many edges changed.
   */
  async refreshCoMentions(tx: EntityManager): Promise<number> {
    const rows: { n: number }[] = await tx.query(
      `WITH off AS (${CO_MENTIONS_OFF}),
       gone AS (DELETE FROM kg_edges e USING off WHERE e.id = off.edge_id AND off.shared = 0 RETURNING 1),
       weighed AS (UPDATE kg_edges e SET weight = off.shared, updated_at = now() FROM off
                    WHERE e.id = off.edge_id AND off.shared > 0 RETURNING 1),
       added AS (INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
                 SELECT off.s, off.t, 'co_mention', 'co_mention', off.shared, 'extracted', 'kg-check' FROM off WHERE off.edge_id IS NULL
                 ON CONFLICT (source_node_id, target_node_id, kind, predicate) DO NOTHING RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int + (SELECT count(*) FROM weighed)::int + (SELECT count(*) FROM added)::int AS n`,
    );
    return rows[0].n;
  }
}
