import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ConfigError, KurateConfig } from '../config/kurate-config.js';
import { PageSaveHooks, type PageSaveListener, type PageSavedEvent } from '../pages/page-save-hooks.js';
import { ExcludedPagesRepository, type ReconcileBatchResult } from './excluded-pages.repository.js';
import { nextTurn } from '../common/next-turn.js';

/** Pages whose inclusion changed: extraction (a later module) enqueues newly included pages that were never read. */
export interface InclusionChange {
  nowIncluded: string[];
  nowExcluded: string[];
}

export interface InclusionChangeListener {
  /**
   * Runs inside the transaction of the batch that decided the change, before it commits: what it writes there (the
   * extraction jobs of newly included pages) commits with the decision, or not at all. Run after the commit, as it
   * once was, a process killed in between left the pages included and never extracted, through any restart (the
   * start-up reconciliation found nothing left to decide).
   */
  onInclusionChanged(change: InclusionChange, tx: EntityManager): Promise<void>;
}

export interface ReconcileSummary {
  scanned: number;
  nowIncluded: number;
  nowExcluded: number;
  batches: number;
  elapsedMs: number;
}

const EMPTY: ReconcileSummary = { scanned: 0, nowIncluded: 0, nowExcluded: 0, batches: 0, elapsedMs: 0 };

/**
 * Keeps kg_excluded_pages equal to the inclusion rule: one page inside its save's transaction, a cluster's pages after
 * a policy write, every page at start-up (in the background, once the server listens). Batches are short
 * transactions of KURATE_POLICY_RECONCILE_BATCH pages with a yield in between, so requests are never held up for long.
 */
@Injectable()
export class PolicyReconciler implements PageSaveListener, OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Policy');
  private readonly changeListeners: InclusionChangeListener[] = [];
  private stopping = false;
  private startupRebuild: Promise<ReconcileSummary> = Promise.resolve(EMPTY);

  constructor(
    private readonly excludedPages: ExcludedPagesRepository,
    private readonly config: KurateConfig,
    private readonly saveHooks: PageSaveHooks,
  ) {}

  async onModuleInit(): Promise<void> {
    const pattern = this.config.policy.systemPagePattern;
    if (pattern) {
      await this.excludedPages.assertPatternAccepted(pattern.source).catch((error: unknown) => {
        throw new ConfigError(`KURATE_SYSTEM_PAGE_PATTERN is not a regular expression PostgreSQL accepts (${(error as Error).message}).`);
      });
    }
    this.saveHooks.register(this);
  }

  onApplicationBootstrap(): void {
    // Deferred so that main.ts gets to listen first; requests interleave with the batches.
    this.startupRebuild = nextTurn()
      .then(() => this.reconcileAll('start-up'))
      .catch((error: unknown) => {
        if (!this.stopping) this.logger.error(`Start-up reconciliation of kg_excluded_pages failed: ${(error as Error).message}`);
        return EMPTY;
      });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.startupRebuild;
  }

  /** Resolves when the start-up rebuild has finished (tests, health). */
  whenStartupRebuildDone(): Promise<ReconcileSummary> {
    return this.startupRebuild;
  }

  registerChangeListener(listener: InclusionChangeListener): void {
    if (!this.changeListeners.includes(listener)) this.changeListeners.push(listener);
  }

  /** Page saves: the page's row changes in the same transaction as the page; the decision goes on with the event. */
  async onPageSaved(event: PageSavedEvent, tx: EntityManager): Promise<void> {
    const result = await this.excludedPages.reconcilePage(event.page.id, this.patternSource(), tx);
    event.kgIncluded = result.included.includes(event.page.id);
  }

  reconcileCluster(cluster: string): Promise<ReconcileSummary> {
    return this.run({ cluster }, `cluster ${cluster}`);
  }

  reconcileAll(why = 'request'): Promise<ReconcileSummary> {
    return this.run({}, `all pages (${why})`);
  }

  /** Inside an open transaction (the estimate): the whole cluster in one statement. */
  reconcileClusterIn(cluster: string, tx: EntityManager): Promise<ReconcileBatchResult> {
    return this.excludedPages.reconcileClusterIn(cluster, this.patternSource(), tx);
  }

  private async run(scope: { cluster?: string }, what: string): Promise<ReconcileSummary> {
    const started = Date.now();
    const summary = { ...EMPTY };
    let afterId: string | null = null;
    for (;;) {
      if (this.stopping) break;
      const batch = await this.excludedPages.reconcileBatch(
        { afterId, limit: this.config.policy.reconcileBatchSize, cluster: scope.cluster, systemPagePattern: this.patternSource() },
        (decided, tx) => this.announce(decided, tx),
      );
      summary.batches++;
      summary.scanned += batch.scanned;
      summary.nowIncluded += batch.nowIncluded.length;
      summary.nowExcluded += batch.nowExcluded.length;
      if (batch.lastId === null || batch.scanned < this.config.policy.reconcileBatchSize) break;
      afterId = batch.lastId;
      await nextTurn();
    }
    summary.elapsedMs = Date.now() - started;
    const level = summary.scanned > 1000 ? 'log' : 'debug';
    this.logger[level](
      `Reconciled ${what}: ${summary.scanned} pages in ${summary.batches} batches, ${summary.nowExcluded} newly excluded, ${summary.nowIncluded} newly included, ${summary.elapsedMs} ms`,
    );
    return summary;
  }

  private async announce(batch: ReconcileBatchResult, tx: EntityManager): Promise<void> {
    if (batch.nowIncluded.length === 0 && batch.nowExcluded.length === 0) return;
    for (const listener of this.changeListeners) {
      await listener.onInclusionChanged({ nowIncluded: batch.nowIncluded, nowExcluded: batch.nowExcluded }, tx);
    }
  }

  private patternSource(): string | null {
    return this.config.policy.systemPagePattern?.source ?? null;
  }
}
