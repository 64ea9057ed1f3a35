import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';
import type { ExclusionReason, PageFacts } from './inclusion-decision.js';
import { sharePageDecisionGate } from '../db/page-decision-gate.js';

/** What one reconciliation statement did. */
export interface ReconcileBatchResult {
  /** The highest page id looked at (the next batch starts after it); null when there was nothing left. */
  lastId: string | null;
  scanned: number;
  /** Pages that were excluded and now are not, and the reverse. */
  nowIncluded: string[];
  nowExcluded: string[];
  /** For one page (reconcilePage): the page's id when it is included now, whether or not that changed; else empty. */
  included: string[];
}

export interface PageWithExclusion extends PageFacts {
  id: string;
  title: string;
  excluded: { reason: ExclusionReason; policyCluster: string | null; decidedAt: Date } | null;
}

type Scope = { kind: 'all' } | { kind: 'cluster'; cluster: string } | { kind: 'page'; pageId: string };

/**
 * kg_excluded_pages and the inclusion rule in SQL, so that reconciliation is set-based. This repository reads the
 * `pages` table directly: a deliberate, read-only dependency (policy decides over pages; it never writes them).
 */
@Injectable()
export class ExcludedPagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Re-decides up to `limit` pages after `afterId` (in id order) in one short transaction of its own. */
  reconcileBatch(
    options: { afterId: string | null; limit: number; cluster?: string; systemPagePattern: string | null },
    beforeCommit: (decided: ReconcileBatchResult, tx: EntityManager) => Promise<void> = async () => undefined,
  ): Promise<ReconcileBatchResult> {
    const scope: Scope = options.cluster ? { kind: 'cluster', cluster: options.cluster } : { kind: 'all' };
    return this.dataSource.transaction(async (tx) => {
      const decided = await this.reconcile(scope, options, tx);
      await beforeCommit(decided, tx);
      return decided;
    });
  }

  /**
   * Re-decides one page inside the caller's transaction: a page save, which holds the page decision gate since its
   * first statement (PageLinksRepository.lockKeys) and the page's row since its UPDATE.
   */
  reconcilePage(pageId: string, systemPagePattern: string | null, tx: EntityManager): Promise<ReconcileBatchResult> {
    return this.reconcile({ kind: 'page', pageId }, { afterId: null, limit: 1, systemPagePattern }, tx);
  }

  /** Re-decides every page of a cluster (and its sub-clusters) inside the caller's transaction (the estimate). */
  reconcileClusterIn(cluster: string, systemPagePattern: string | null, tx: EntityManager): Promise<ReconcileBatchResult> {
    return this.reconcile({ kind: 'cluster', cluster }, { afterId: null, limit: null, systemPagePattern }, tx);
  }

  async isExcluded(pageId: string, db: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await db.query('SELECT 1 FROM kg_excluded_pages WHERE page_id = $1', [pageId]);
    return rows.length > 0;
  }

  /** A page (live or in the trash) with what the decision needs and its current kg_excluded_pages row. */
  async findPageBySlug(slug: string): Promise<PageWithExclusion | null> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT p.id, p.slug, p.title, p.is_system, p.frontmatter, p.clusters, p.deleted_at,
              x.reason AS excluded_reason, x.policy_cluster, x.decided_at
         FROM pages p LEFT JOIN kg_excluded_pages x ON x.page_id = p.id
        WHERE p.slug = $1`,
      [slug],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id as string,
      slug: row.slug as string,
      title: row.title as string,
      isSystem: row.is_system as boolean,
      frontmatter: row.frontmatter as PageFacts['frontmatter'],
      clusters: row.clusters as string[],
      inTrash: row.deleted_at !== null,
      excluded: row.excluded_reason
        ? { reason: row.excluded_reason as ExclusionReason, policyCluster: row.policy_cluster as string | null, decidedAt: new Date(row.decided_at as string) }
        : null,
    };
  }

  /** Checks that PostgreSQL accepts the configured pattern (its regex dialect is not JavaScript's). */
  async assertPatternAccepted(pattern: string): Promise<void> {
    await this.dataSource.query(`SELECT '' ~ $1`, [pattern]);
  }

  private async reconcile(
    scope: Scope,
    options: { afterId: string | null; limit: number | null; systemPagePattern: string | null },
    db: EntityManager,
  ): Promise<ReconcileBatchResult> {
    const params: unknown[] = [options.systemPagePattern, options.afterId, options.limit];
    // Two shapes rather than "$2 IS NULL OR …", so that the primary key index can seek to the batch's first page.
    let filter = options.afterId === null ? '$2::uuid IS NULL' : 'p.id > $2::uuid';
    if (scope.kind === 'cluster') {
      params.push(scope.cluster);
      filter += ` AND EXISTS (SELECT 1 FROM unnest(kurate_policy_clusters(p.clusters)) c WHERE c = $4 OR left(c, length($4) + 1) = $4 || '/')`;
    } else if (scope.kind === 'page') {
      params.push(scope.pageId);
      filter += ' AND p.id = $4::uuid';
    }
    if (scope.kind !== 'page') {
      // The page decision gate first (src/db/page-decision-gate.ts), as every page write takes it: a policy change
      // under way commits first, and none starts until this decision has. A page's own save took it in the first
      // statement of its transaction, so reconcilePage neither waits for it nor sends a statement for it.
      await sharePageDecisionGate(db);
      // Lock the batch's pages in a statement of their own, then decide in the next one: a statement that waited on
      // a page saved meanwhile would otherwise decide with the kg_excluded_pages rows from before that save.
      // (A page's own save already holds its row, so reconcilePage does not wait and needs no second statement.)
      // (Without the pattern, $1: the placeholders move down by one.)
      const lockSql = `SELECT array_agg(id) AS ids FROM (SELECT p.id FROM pages p WHERE ${filter} ORDER BY p.id LIMIT $3 FOR SHARE OF p) t`;
      const locked: { ids: string[] | null }[] = await db.query(lockSql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) - 1}`), params.slice(1));
      filter += ` AND p.id = ANY($${params.length + 1}::uuid[])`;
      params.push(locked[0].ids ?? []);
    }
    // One text per scope's shape (a page, a cluster or all; first batch or later), each prepared once per connection:
    // a page's decision runs in every save.
    const rows: { last_id: string | null; scanned: number; now_included: string[]; now_excluded: string[]; included: string[] }[] = await preparedQuery(
      db,
      `${DECISION_SQL(filter)}
       , removed AS (
         DELETE FROM kg_excluded_pages x USING decided d
          WHERE x.page_id = d.id AND d.reason IS NULL
         RETURNING x.page_id)
       , upserted AS (
         INSERT INTO kg_excluded_pages (page_id, reason, policy_cluster)
         SELECT d.id, d.reason, d.policy_cluster FROM decided d WHERE d.reason IS NOT NULL
         ON CONFLICT (page_id) DO UPDATE SET reason = EXCLUDED.reason, policy_cluster = EXCLUDED.policy_cluster, decided_at = now()
          WHERE (kg_excluded_pages.reason, kg_excluded_pages.policy_cluster) IS DISTINCT FROM (EXCLUDED.reason, EXCLUDED.policy_cluster)
         RETURNING page_id, (xmax = 0) AS inserted)
       SELECT (SELECT t.id::text FROM target t ORDER BY t.id DESC LIMIT 1) AS last_id,
              (SELECT count(*) FROM target)::int AS scanned,
              (SELECT coalesce(array_agg(page_id::text), '{}') FROM removed) AS now_included,
              (SELECT coalesce(array_agg(page_id::text), '{}') FROM upserted WHERE inserted) AS now_excluded,
              ${scope.kind === 'page' ? `(SELECT coalesce(array_agg(d.id::text), '{}') FROM decided d WHERE d.reason IS NULL)` : `'{}'::text[]`} AS included`,
      params,
    );
    const row = rows[0];
    return { lastId: row.last_id, scanned: row.scanned, nowIncluded: row.now_included, nowExcluded: row.now_excluded, included: row.included };
  }
}

/**
 * The inclusion rule of inclusion-decision.ts, in SQL: `decided` has one row per target page, reason null when the
 * page is included. $1 is KURATE_SYSTEM_PAGE_PATTERN (or null), $3 the batch size (null: no limit).
 * The target pages are locked FOR SHARE, so a page save that commits meanwhile is waited for; reconcile() takes that
 * lock in a statement before this one, so that the decision then sees what the save wrote.
 */
const DECISION_SQL = (filter: string) => `
  WITH target AS (
    SELECT p.id, p.slug, p.is_system, p.frontmatter, p.clusters, p.deleted_at
      FROM pages p
     WHERE ${filter}
     ORDER BY p.id
     LIMIT $3
       FOR SHARE OF p)
  , resolved AS (
    SELECT t.id, c.ord, r.cluster AS policy_cluster, r.action
      FROM target t
      CROSS JOIN LATERAL unnest(kurate_policy_clusters(t.clusters)) WITH ORDINALITY AS c(name, ord)
      CROSS JOIN LATERAL (
        SELECT k.cluster, k.action FROM kg_cluster_policy k
         WHERE k.cluster IN (c.name, split_part(c.name, '/', 1))
         ORDER BY length(k.cluster) DESC
         LIMIT 1) r)
  , verdicts AS (
    SELECT id,
           (array_agg(policy_cluster ORDER BY ord) FILTER (WHERE action = 'exclude'))[1] AS excluding_cluster,
           bool_or(action = 'include') AS any_include
      FROM resolved
     GROUP BY id)
  , decided AS (
    SELECT id, reason, CASE WHEN reason = 'cluster_policy' THEN excluding_cluster END AS policy_cluster
      FROM (
        SELECT t.id, v.excluding_cluster,
               CASE
                 WHEN t.deleted_at IS NOT NULL THEN 'page_in_trash'
                 WHEN t.is_system OR t.frontmatter -> 'system' = 'true'::jsonb THEN 'system_page'
                 WHEN $1::text IS NOT NULL AND t.slug ~ $1::text THEN 'system_page'
                 WHEN t.frontmatter -> 'kg_include' = 'false'::jsonb THEN 'page_override'
                 WHEN t.frontmatter -> 'kg_include' = 'true'::jsonb THEN NULL
                 WHEN v.excluding_cluster IS NOT NULL THEN 'cluster_policy'
                 WHEN v.any_include THEN NULL
                 ELSE 'default'
               END AS reason
          FROM target t LEFT JOIN verdicts v ON v.id = t.id) rule)`;
