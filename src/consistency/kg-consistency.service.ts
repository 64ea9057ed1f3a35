import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { KgEmbeddingService } from '../kg/kg-embedding.service.js';
import { KgExtractionQueue } from '../kg/kg-extraction-queue.service.js';
import { KgConsistencyRepository } from './kg-consistency.repository.js';
import { buildReport, describeRepair, type CheckReport, type InvariantName, type RepairOutcome } from './kg-invariants.js';

export interface RepairReport {
  /** What the check found before the repair. */
  before: CheckReport;
  repair: RepairOutcome;
  /** What it finds right after (enqueued extraction and re-embedding mend theirs once the jobs have run). */
  after: CheckReport;
}

export const REPAIR_AUDIT_ACTION = 'kg.check.repair';

/**
 * The consistency checker (`kurate kg check [--repair]`, GET /admin/kg-policy/health): every invariant the knowledge
 * graph relies on, counted with examples, and the repairs that are safe, in one audited transaction.
 */
@Injectable()
export class KgConsistencyService {
  private readonly logger = new Logger('KgCheck');

  constructor(
    private readonly repository: KgConsistencyRepository,
    private readonly embeddings: KgEmbeddingService,
    private readonly extraction: KgExtractionQueue,
    private readonly audit: AuditService,
  ) {}

  async check(): Promise<CheckReport> {
    const started = Date.now();
    const checkedAt = new Date();
    const found = await this.repository.check(this.embeddings.model);
    return buildReport(found, { embeddingModel: this.embeddings.model, checkedAt, durationMs: Date.now() - started });
  }

  /**
   * Repairs what can be repaired safely, in one transaction with its audit entry: record counts, support counts,
   * unsupported pending proposals, mentions named by a variant, co-mention edges. Then (after the commit: jobs are idempotent) the pages whose
   * chunks were broken are extracted again and, when vectors are missing, the re-embedding is enqueued.
   */
  async repair(origin: RequestOrigin): Promise<RepairReport> {
    const before = await this.check();
    const needsReembed = before.invariants.some((i) => (i.name === 'chunk_embeddings' || i.name === 'node_embeddings') && i.count > 0);
    const { repaired, pages } = await this.repository.transaction(async (tx) => {
      const records = await this.repository.forgetBrokenRecords(tx);
      const done: Partial<Record<InvariantName, number>> = {
        chunk_positions: records.positions.length,
        chunk_counts: records.counts.length,
        proposal_support_counts: await this.repository.recountSupport(tx),
        pending_proposals_supported: await this.repository.retireUnsupported(tx),
        // Before the co-mentions: a mention linked here may give two entities a chunk they share.
        mentions_named: await this.repository.linkMisnamedMentions(tx),
        co_mention_weights: await this.repository.refreshCoMentions(tx),
      };
      const pageIds = [...records.positions, ...records.counts];
      await this.audit.record(
        origin.actor, REPAIR_AUDIT_ACTION, null,
        { findingsBefore: before.findings, repaired: done, pagesToExtract: pageIds.length, reembed: needsReembed },
        origin.ip, tx,
      );
      return { repaired: done, pages: pageIds };
    });
    const enqueued = pages.length > 0 ? (await this.extraction.request({ kind: 'ids', ids: pages }, false)) : null;
    const pagesEnqueued = enqueued ? enqueued.enqueued + enqueued.alreadyQueued : 0;
    if (needsReembed) await this.extraction.reembedIfModelChanged();
    const repair: RepairOutcome = { repaired, pagesEnqueued, reembedEnqueued: needsReembed, actions: describeRepair(repaired, pagesEnqueued, needsReembed) };
    this.logger.log(`Repair by ${origin.actor.name}: ${repair.actions.join(' ')}`);
    return { before, repair, after: await this.check() };
  }
}
