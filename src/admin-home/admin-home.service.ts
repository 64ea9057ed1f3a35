import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import { KgConsistencyService } from '../consistency/kg-consistency.service.js';
import { KgJobsService } from '../kg/kg-jobs.service.js';
import { PolicyService } from '../policy/policy.service.js';

const RECENT_AUDIT_EVENTS = 10;

/** What the admin home shows, read from the rooms that own it (review numbers from extraction's status). */
export interface AdminHome {
  proposals: { pending: number; approved: number; rejected: number };
  policy: {
    reviewDays: number;
    clusters: number;
    stale: { cluster: string; daysSinceReview: number | null }[];
    /** Clusters pages name that no policy covers: their pages stay out until an admin decides. */
    undecided: { cluster: string; pages: number }[];
  };
  health: { ok: boolean; findings: number; repairable: number; summary: string; checkedAt: string; durationMs: number };
  extraction: {
    extractor: string;
    pages: { included: number; extracted: number; changedSinceExtraction: number; neverExtracted: number };
    /** Extraction jobs waiting or running, over every queue. */
    queued: number;
    running: number;
    openFailures: number;
  };
  audit: { at: Date; actorName: string; action: string; target: string | null }[];
}

/**
 * The admin home (/admin): one read of each room's state. It sits above review, curation, policy, extraction and the
 * consistency checker and only reads from them, so none of them needs to know it exists.
 */
@Injectable()
export class AdminHomeService {
  constructor(
    private readonly jobs: KgJobsService,
    private readonly policy: PolicyService,
    private readonly checker: KgConsistencyService,
    private readonly audit: AuditService,
  ) {}

  async read(): Promise<AdminHome> {
    const [status, clusters, undecided, [events]] = await Promise.all([
      this.jobs.status(0),
      this.policy.listClusters(),
      this.policy.pending(),
      this.audit.list({ limit: RECENT_AUDIT_EVENTS, offset: 0 }),
    ]);
    // After the others: the check reads every invariant in one transaction of its own.
    const report = await this.checker.check();
    return {
      proposals: { pending: status.proposals.pending, approved: status.proposals.approved, rejected: status.proposals.rejected },
      policy: {
        reviewDays: this.policy.reviewDays,
        clusters: clusters.length,
        stale: clusters.filter((c) => c.stale).map((c) => ({ cluster: c.cluster, daysSinceReview: c.daysSinceReview })),
        undecided,
      },
      health: {
        ok: report.ok, findings: report.findings, repairable: report.repairable, summary: report.summary,
        checkedAt: report.checkedAt, durationMs: report.durationMs,
      },
      extraction: {
        extractor: status.backend.extractor,
        pages: status.pages,
        queued: status.queues.reduce((sum, q) => sum + q.queued + q.retrying, 0),
        running: status.queues.reduce((sum, q) => sum + q.running, 0),
        openFailures: status.openFailures,
      },
      audit: events.map((e) => ({ at: e.at, actorName: e.actorName, action: e.action, target: e.target })),
    };
  }
}
