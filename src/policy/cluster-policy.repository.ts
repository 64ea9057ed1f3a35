import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { holdPageDecisionGateAlone, sharePageDecisionGate } from '../db/page-decision-gate.js';
import { againOnConflict } from '../db/sql-state.js';
import { KgClusterPolicyEntity, type PolicyAction } from './kg-cluster-policy.entity.js';
import { KgPolicyAuditEntity, type PolicyAuditEvent } from './kg-policy-audit.entity.js';

export interface ClusterPageCounts {
  cluster: string;
  /** Live pages in the cluster or one of its sub-clusters. */
  pages: number;
  /** Of those, how many are in kg_excluded_pages. */
  excludedPages: number;
  /** Pages in the trash that still name it (they keep a cluster known, e.g. for a purge). */
  trashedPages: number;
  /** A live page names this very cluster (not only one of its sub-clusters). */
  namedDirectly: boolean;
}

export interface NewAuditEntry {
  actor: string;
  event: PolicyAuditEvent;
  cluster: string | null;
  previousAction?: string | null;
  action?: string | null;
  reason?: string | null;
  details?: Record<string, unknown>;
}

/** A policy write that PostgreSQL aborted as a deadlock runs again at most this many times in all. */
const WRITE_ATTEMPTS = 3;

/** All SQL over kg_cluster_policy and kg_policy_audit, plus the per-cluster page counts (read from pages). */
@Injectable()
export class ClusterPolicyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A transaction that changes policies. It first takes the page decision gate alone (src/db/page-decision-gate.ts),
   * which every page write and every inclusion decision holds shared. So policy writes take turns, each reading the
   * previous row after the last one committed (the audit's `previousAction`; clusters named in any order never
   * deadlock), and a decision in flight, such as a save moving a page into the cluster, either commits before the
   * change (and the change's reconciliation sees the page where it now is) or decides after it, on the new policy.
   */
  async writeTransaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    // A transaction PostgreSQL aborts as a deadlock runs again, and then reads what the other committed.
    return againOnConflict(WRITE_ATTEMPTS, () =>
      this.dataSource.transaction(async (tx) => {
        await holdPageDecisionGateAlone(tx);
        return work(tx);
      }),
    );
  }

  findAll(db: EntityManager = this.dataSource.manager): Promise<KgClusterPolicyEntity[]> {
    return db.find(KgClusterPolicyEntity, { order: { cluster: 'ASC' } });
  }

  find(cluster: string, db: EntityManager = this.dataSource.manager): Promise<KgClusterPolicyEntity | null> {
    return db.findOne(KgClusterPolicyEntity, { where: { cluster } });
  }

  count(db: EntityManager = this.dataSource.manager): Promise<number> {
    return db.count(KgClusterPolicyEntity);
  }

  /** Reads a row and locks it until the transaction ends, so two admins changing one cluster take turns. */
  findForUpdate(cluster: string, tx: EntityManager): Promise<KgClusterPolicyEntity | null> {
    return tx.findOne(KgClusterPolicyEntity, { where: { cluster }, lock: { mode: 'pessimistic_write' } });
  }

  /** A purge decides on the policy it then reads, which no one can change under it (the page decision gate, shared). */
  holdAgainstChanges(tx: EntityManager): Promise<void> {
    return sharePageDecisionGate(tx);
  }

  /** Writes the row; setting a policy also counts as reviewing it. */
  async upsert(row: { cluster: string; action: PolicyAction; reason: string; actor: string }, tx: EntityManager): Promise<KgClusterPolicyEntity> {
    await tx.query(
      `INSERT INTO kg_cluster_policy (cluster, action, reason, set_by, set_at, reviewed_at, reviewed_by)
       VALUES ($1, $2, $3, $4, now(), now(), $4)
       ON CONFLICT (cluster) DO UPDATE SET action = EXCLUDED.action, reason = EXCLUDED.reason, set_by = EXCLUDED.set_by,
              set_at = now(), reviewed_at = now(), reviewed_by = EXCLUDED.reviewed_by`,
      [row.cluster, row.action, row.reason, row.actor],
    );
    return (await this.find(row.cluster, tx))!;
  }

  async delete(cluster: string, tx: EntityManager): Promise<void> {
    await tx.delete(KgClusterPolicyEntity, { cluster });
  }

  async markReviewed(cluster: string, actor: string, tx: EntityManager): Promise<KgClusterPolicyEntity> {
    await tx.update(KgClusterPolicyEntity, { cluster }, { reviewedAt: () => 'now()', reviewedBy: actor });
    return (await this.find(cluster, tx))!;
  }

  async appendAudit(entry: NewAuditEntry, tx: EntityManager): Promise<void> {
    const row: Omit<KgPolicyAuditEntity, 'id' | 'createdAt'> = {
      actor: entry.actor,
      event: entry.event,
      cluster: entry.cluster,
      previousAction: entry.previousAction ?? null,
      action: entry.action ?? null,
      reason: entry.reason ?? null,
      details: entry.details ?? {},
    };
    await tx.insert(KgPolicyAuditEntity, row as QueryDeepPartialEntity<KgPolicyAuditEntity>);
  }

  /** Newest first; a cluster's trail includes its sub-clusters' rows. */
  listAudit(filter: { cluster?: string; limit: number }): Promise<KgPolicyAuditEntity[]> {
    const query = this.dataSource.manager.createQueryBuilder(KgPolicyAuditEntity, 'a');
    if (filter.cluster) {
      query.where('(a.cluster = :cluster OR left(a.cluster, length(:cluster) + 1) = :prefix)', { cluster: filter.cluster, prefix: `${filter.cluster}/` });
    }
    return query.orderBy('a.id', 'DESC').limit(filter.limit).getMany();
  }

  /** Every cluster named by a page (a parent counts its sub-clusters' pages too), with page counts. */
  async pageCountsByCluster(): Promise<ClusterPageCounts[]> {
    const rows: CountRow[] = await this.dataSource.query(
      `WITH named AS (
         SELECT p.id, p.deleted_at, c AS cluster, true AS direct FROM pages p, unnest(kurate_policy_clusters(p.clusters)) c
         UNION ALL
         SELECT p.id, p.deleted_at, split_part(c, '/', 1), false FROM pages p, unnest(kurate_policy_clusters(p.clusters)) c WHERE position('/' in c) > 0)
       SELECT n.cluster,
              count(DISTINCT n.id) FILTER (WHERE n.deleted_at IS NULL)::int AS pages,
              count(DISTINCT x.page_id) FILTER (WHERE n.deleted_at IS NULL)::int AS excluded_pages,
              count(DISTINCT n.id) FILTER (WHERE n.deleted_at IS NOT NULL)::int AS trashed_pages,
              coalesce(bool_or(n.direct AND n.deleted_at IS NULL), false) AS named_directly
         FROM named n LEFT JOIN kg_excluded_pages x ON x.page_id = n.id
        GROUP BY n.cluster
        ORDER BY n.cluster`,
    );
    return rows.map(countsOf);
  }

  /** The same counts for one cluster (with its sub-clusters); null when no page names it. */
  async pageCountsOf(cluster: string): Promise<ClusterPageCounts | null> {
    const rows: CountRow[] = await this.dataSource.query(
      `SELECT $1::text AS cluster,
              count(*) FILTER (WHERE n.deleted_at IS NULL)::int AS pages,
              count(x.page_id) FILTER (WHERE n.deleted_at IS NULL)::int AS excluded_pages,
              count(*) FILTER (WHERE n.deleted_at IS NOT NULL)::int AS trashed_pages,
              coalesce(bool_or($1 = ANY(kurate_policy_clusters(n.clusters)) AND n.deleted_at IS NULL), false) AS named_directly
         FROM pages n LEFT JOIN kg_excluded_pages x ON x.page_id = n.id
        WHERE EXISTS (SELECT 1 FROM unnest(kurate_policy_clusters(n.clusters)) c WHERE c = $1 OR left(c, length($1) + 1) = $1 || '/')
       HAVING count(*) > 0`,
      [cluster],
    );
    return rows[0] ? countsOf(rows[0]) : null;
  }
}

interface CountRow {
  cluster: string;
  pages: number;
  excluded_pages: number;
  trashed_pages: number;
  named_directly: boolean;
}

function countsOf(r: CountRow): ClusterPageCounts {
  return { cluster: r.cluster, pages: r.pages, excludedPages: r.excluded_pages, trashedPages: r.trashed_pages, namedDirectly: r.named_directly };
}
