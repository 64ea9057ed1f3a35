import { randomUUID } from 'node:crypto';
import { ConflictException, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { JobQueue } from '../jobs/job-queue.service.js';
import { JobWorker } from '../jobs/job-worker.service.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import { clustersOf, parseFrontmatter } from '../pages/markdown/frontmatter.js';
import { termCounts } from './term-stats.js';
import { PageSaveHooks, type PageSaveListener, type PageSavedEvent } from '../pages/page-save-hooks.js';
import { PolicyReconciler, type InclusionChange, type InclusionChangeListener } from '../policy/policy-reconciler.service.js';
import { PolicyService } from '../policy/policy.service.js';
import { chunkMarkdown } from './chunker.js';
import { needsExtraction, type ExtractionTrigger } from './extraction-decision.js';
import { extractionSourceOf } from './extraction-source.js';
import { KgEmbeddingService } from './kg-embedding.service.js';
import { KgExtractionRepository } from './kg-extraction.repository.js';
import { KgPlanningRepository, type PageExtractionCandidate, type PageScope } from './kg-planning.repository.js';
import { ExtractionCancelled, PageExtractionService } from './page-extraction.service.js';

export const EXTRACT_PAGE_QUEUE = 'kg-extract-page';
export const EMBED_NODES_QUEUE = 'kg-embed-nodes';
export const REEMBED_QUEUE = 'kg-reembed';

/** The data of an extraction job. The job re-reads the page; the hash makes the job unique per page version. */
export interface ExtractPageJob {
  pageId: string;
  sourceHash: string;
  /** The backend configured when it was enqueued (status per backend). */
  backend: string;
  model: string;
  /** Set when `kurate kg extract` asked for it (its progress). */
  requestId?: string;
}

export interface ExtractionEstimate {
  pages: number;
  includedPages: number;
  excludedPages: number;
  pagesToExtract: number;
  upToDatePages: number;
  chunks: number;
  chunksToExtract: number;
}

export interface ExtractionRequestResult extends ExtractionEstimate {
  requestId: string | null;
  enqueued: number;
  alreadyQueued: number;
}

const BATCH = 500;

/**
 * When pages are extracted: a save of an included page enqueues its job in the save's own transaction; a policy
 * change that includes pages enqueues those never extracted (and aborts running jobs of pages it excludes); an admin
 * can ask for a scope (`kurate kg extract`). Jobs are unique per page and source hash (pg-boss singleton key).
 * It also registers the job handlers with the worker.
 */
@Injectable()
export class KgExtractionQueue implements OnModuleInit, OnApplicationBootstrap, PageSaveListener, InclusionChangeListener {
  private readonly logger = new Logger('Extraction');

  constructor(
    private readonly queue: JobQueue,
    private readonly worker: JobWorker,
    private readonly jobs: JobsRepository,
    private readonly extraction: PageExtractionService,
    private readonly embeddings: KgEmbeddingService,
    private readonly repository: KgExtractionRepository,
    private readonly planning: KgPlanningRepository,
    private readonly policy: PolicyService,
    private readonly saveHooks: PageSaveHooks,
    private readonly reconciler: PolicyReconciler,
    private readonly config: KurateConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const { retryLimit, retryDelaySeconds, jobTimeoutSeconds } = this.config.extraction;
    for (const name of [EXTRACT_PAGE_QUEUE, EMBED_NODES_QUEUE, REEMBED_QUEUE]) {
      await this.queue.defineQueue({ name, retryLimit, retryDelaySeconds, expireInSeconds: jobTimeoutSeconds });
    }
    this.worker.register<ExtractPageJob>(
      EXTRACT_PAGE_QUEUE,
      {
        run: (job) => this.extraction.extractPage(job.data.pageId, job.signal),
        onPermanentFailure: (job, failure) =>
          this.repository.recordFailure({
            pageId: job.data.pageId, jobId: job.id, sourceHash: job.data.sourceHash, backend: job.data.backend, model: job.data.model,
            reason: failure.message, attempts: job.retryCount + 1,
          }),
      },
      // One page more than calls may be in flight (the limiter holds calls to the limit): while the backend answers
      // the pages being extracted, the next page is read and chunked and the last one written, so a backend that
      // takes one call at a time (Ollama's default) never waits for the database between pages.
      { concurrency: this.config.extraction.limits.concurrency + 1 },
    );
    this.worker.register<{ nodeIds: string[] }>(EMBED_NODES_QUEUE, { run: async (job) => this.embeddings.embedNodes(job.data.nodeIds) }, { concurrency: 1 });
    this.worker.register(REEMBED_QUEUE, { run: (job) => this.embeddings.reembedAll(job.signal) }, { concurrency: 1 });
    this.worker.onStart(() => this.reembedIfModelChanged());
    this.worker.onStart(() => this.anchorOldChunks().then(() => undefined));
  }

  onApplicationBootstrap(): void {
    // After every module's onModuleInit, so after the policy's own listener: a saved page's inclusion is decided
    // (in the same transaction) before this listener asks for it.
    this.saveHooks.register(this);
    this.reconciler.registerChangeListener(this);
  }

  /** Inside the save's transaction: enqueue when the policy includes the page and what extraction reads changed. */
  async onPageSaved(event: PageSavedEvent, tx: EntityManager): Promise<void> {
    const { page, change } = event;
    if (change === 'deleted') {
      await this.repository.replacePageTerms(page.id, null, tx);
      return;
    }
    const source = extractionSourceOf(page, event.text);
    // The wiki's word statistics cover every live page, included or not: they describe its language, not its facts.
    // The page's extraction state comes with them (one statement), read whether or not the policy includes the page;
    // a created page has none to read.
    const counts = termCounts(source.markdown);
    const state = change === 'created'
      ? await this.repository.insertTermsOfNewPage(page.id, counts, tx)
      : await this.repository.replaceTermsReadingState(page.id, counts, tx);
    if (!(event.kgIncluded ?? (await this.policy.isPageIncluded(page.id, tx)))) return;
    const trigger: ExtractionTrigger = { kind: 'save', previousSourceHash: state.record || !state.hasChunks ? null : await this.previousSourceHash(page.id, page.version, tx) };
    if (!needsExtraction(state, source, this.embeddings.model, trigger)) {
      if (state.record) await this.repository.touchExtractionRecord(page.id, page.contentHash, tx);
      return;
    }
    const job = this.extractJob(page.id, source.sourceHash);
    await this.queue.send(EXTRACT_PAGE_QUEUE, job.data, { singletonKey: job.singletonKey }, tx);
    this.wakeSoon();
  }

  /**
   * In the transaction of a policy decision: newly included pages that need it are enqueued in it (the jobs commit with
   * the decision), and running jobs of pages it excludes stop at once.
   */
  async onInclusionChanged(change: InclusionChange, tx: EntityManager): Promise<void> {
    if (change.nowExcluded.length > 0) {
      const excluded = new Set(change.nowExcluded);
      const aborted = this.worker.abortWhere(EXTRACT_PAGE_QUEUE, (data) => excluded.has((data as ExtractPageJob).pageId), new ExtractionCancelled('the inclusion policy now excludes the page'));
      if (aborted > 0) this.logger.log(`Stopped ${aborted} running extraction job(s) of pages that were just excluded`);
    }
    if (change.nowIncluded.length === 0) return;
    const jobs: { data: ExtractPageJob; singletonKey: string }[] = [];
    for (let i = 0; i < change.nowIncluded.length; i += BATCH) {
      const candidates = await this.planning.candidates({ kind: 'ids', ids: change.nowIncluded.slice(i, i + BATCH) }, null, BATCH, tx);
      for (const page of candidates) {
        const source = extractionSourceOf(page);
        if (page.included && needsExtraction(stateOf(page), source, this.embeddings.model, { kind: 'inclusion' })) {
          jobs.push(this.extractJob(page.id, source.sourceHash));
        }
      }
    }
    await this.queue.sendMany(EXTRACT_PAGE_QUEUE, jobs, tx);
    if (jobs.length > 0) {
      this.logger.log(`Enqueued extraction of ${jobs.length} newly included page(s)`);
      this.wakeSoon();
    }
  }

  /** `kurate kg extract`: what a scope would cost (dry run), or enqueue its pages that need extraction. */
  async request(scope: PageScope, dryRun: boolean): Promise<ExtractionRequestResult> {
    await this.assertScope(scope);
    const estimate: ExtractionEstimate = { pages: 0, includedPages: 0, excludedPages: 0, pagesToExtract: 0, upToDatePages: 0, chunks: 0, chunksToExtract: 0 };
    const requestId = dryRun ? null : randomUUID();
    const jobs: { data: ExtractPageJob; singletonKey: string }[] = [];
    for (let after: string | null = null; ; ) {
      const batch = await this.planning.candidates(scope, after, BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1].id;
      const included = batch.filter((p) => p.included);
      estimate.pages += batch.length;
      estimate.includedPages += included.length;
      estimate.excludedPages += batch.length - included.length;
      const stale = included.map((page) => ({ page, source: extractionSourceOf(page) }))
        .filter(({ page, source }) => needsExtraction(stateOf(page), source, this.embeddings.model, { kind: 'request' }));
      estimate.upToDatePages += included.length - stale.length;
      const stored = await this.planning.storedHashes(stale.map((s) => s.page.id));
      for (const { page, source } of stale) {
        const chunks = chunkMarkdown(source.markdown);
        const known = new Set(stored.get(page.id) ?? []);
        estimate.pagesToExtract++;
        estimate.chunks += chunks.length;
        estimate.chunksToExtract += new Set(chunks.map((c) => c.contentHash).filter((h) => !known.has(h))).size;
        if (requestId) jobs.push(this.extractJob(page.id, source.sourceHash, requestId));
      }
      if (batch.length < BATCH) break;
    }
    let alreadyQueued = 0;
    if (requestId && jobs.length > 0) {
      const open = await this.jobs.pagesWithOpenJobs(EXTRACT_PAGE_QUEUE, jobs.map((j) => j.data.pageId));
      alreadyQueued = open.size;
      await this.queue.sendMany(EXTRACT_PAGE_QUEUE, jobs.filter((j) => !open.has(j.data.pageId)));
      this.wakeSoon();
    }
    return { ...estimate, requestId, enqueued: requestId ? jobs.length - alreadyQueued : 0, alreadyQueued };
  }

  /**
   * Chunks stored before section anchors existed (migration 0008) get theirs from an extraction job of their page,
   * enqueued at a worker's start: the text is unchanged, so the job makes no call and only gives the kept chunks
   * their anchor. Pages the policy excludes keep theirs unset (their links fall back to the heading's own slug)
   * until they are included again. Returns how many pages were enqueued.
   */
  async anchorOldChunks(): Promise<number> {
    let enqueued = 0;
    for (let after: string | null = null; ; ) {
      const ids = await this.planning.pagesWithUnanchoredChunks(after, BATCH);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      const jobs = this.jobsForIncluded(await this.planning.candidates({ kind: 'ids', ids }, null, BATCH));
      const open = await this.jobs.pagesWithOpenJobs(EXTRACT_PAGE_QUEUE, jobs.map((j) => j.data.pageId));
      const fresh = jobs.filter((j) => !open.has(j.data.pageId));
      await this.queue.sendMany(EXTRACT_PAGE_QUEUE, fresh);
      enqueued += fresh.length;
      if (ids.length < BATCH) break;
    }
    if (enqueued > 0) {
      this.logger.log(`Enqueued ${enqueued} page(s) whose chunks predate section anchors (no extraction call: their text is unchanged)`);
      this.wakeSoon();
    }
    return enqueued;
  }

  /**
   * After a restore, which loads the graph but none of what derives from it: the wiki's word statistics and the
   * chunks' search vectors are computed again, every included page's extraction is enqueued (its kept chunks cost no
   * extraction call: the job embeds them and writes the page's extraction record) and entities are re-embedded.
   * The jobs run on a worker, once a server starts.
   */
  async rebuildAfterRestore(): Promise<{ pagesWithTerms: number; chunks: number; enqueued: number }> {
    let pagesWithTerms = 0;
    for (let after: string | null = null; ; ) {
      const batch = await this.planning.candidates({ kind: 'all' }, after, BATCH);
      if (batch.length === 0) break;
      for (const page of batch) await this.repository.replacePageTerms(page.id, termCounts(extractionSourceOf(page).markdown));
      pagesWithTerms += batch.length;
      after = batch[batch.length - 1].id;
      if (batch.length < BATCH) break;
    }
    const chunks = await this.repository.rebuildChunkSearch();
    const { enqueued } = await this.request({ kind: 'all' }, false);
    await this.reembedIfModelChanged();
    return { pagesWithTerms, chunks, enqueued };
  }

  /** Enqueues the pages of permanent failures again (those still included); returns how many. */
  async retryFailed(): Promise<number> {
    const failures = await this.planning.openFailures(10_000);
    if (failures.length === 0) return 0;
    const jobs = this.jobsForIncluded(await this.planning.candidates({ kind: 'ids', ids: [...new Set(failures.map((f) => f.pageId))] }, null, 10_000));
    await this.queue.sendMany(EXTRACT_PAGE_QUEUE, jobs);
    this.wakeSoon();
    return jobs.length;
  }

  /** Embeds approved nodes in the background (sent inside the caller's transaction when given one). */
  async enqueueNodeEmbedding(nodeIds: string[], tx?: EntityManager): Promise<void> {
    if (nodeIds.length === 0) return;
    await this.queue.send(EMBED_NODES_QUEUE, { nodeIds }, {}, tx);
    this.wakeSoon(EMBED_NODES_QUEUE);
  }

  /** Run when a worker starts: a changed embedding model re-embeds everything in the background (one job per model). */
  async reembedIfModelChanged(): Promise<void> {
    if (!(await this.embeddings.needsReembedding())) return;
    const id = await this.queue.send(REEMBED_QUEUE, { model: this.embeddings.model }, { singletonKey: this.embeddings.model });
    if (id) this.logger.log(`Vectors from another embedding model (or none) exist: re-embedding with ${this.embeddings.model} in the background`);
    this.wakeSoon(REEMBED_QUEUE);
  }

  private async assertScope(scope: PageScope): Promise<void> {
    if (scope.kind === 'cluster' && !(await this.planning.clusterExists(scope.cluster))) {
      throw new DomainException(DomainErrorCode.NotFound, `No page has the cluster "${scope.cluster}" (or a sub-cluster of it).`);
    }
    if (scope.kind === 'page') {
      const [page] = await this.planning.candidates(scope, null, 1);
      if (!page) throw new DomainException(DomainErrorCode.NotFound, `There is no page "${scope.slug}".`);
      if (!page.included) {
        throw new ConflictException(
          `The page "${page.title}" is excluded from the knowledge graph by the inclusion policy, so it is not extracted. GET /admin/kg-policy/explain/${page.slug} says why.`,
        );
      }
    }
  }

  /** An extraction job of a page as it reads now: unique per page and source hash (pg-boss `singletonKey`). */
  private extractJob(pageId: string, sourceHash: string, requestId?: string): { data: ExtractPageJob; singletonKey: string } {
    const { extractor, model } = this.extraction.backend;
    return { data: { pageId, sourceHash, backend: extractor, model, ...(requestId ? { requestId } : {}) }, singletonKey: `${pageId}:${sourceHash}` };
  }

  /** Extraction jobs for the pages among these that the policy includes. */
  private jobsForIncluded(pages: PageExtractionCandidate[]) {
    return pages.filter((page) => page.included).map((page) => this.extractJob(page.id, extractionSourceOf(page).sourceHash));
  }

  private async previousSourceHash(pageId: string, version: number, tx: EntityManager): Promise<string | null> {
    const previous = await this.repository.previousVersion(pageId, version, tx);
    if (!previous) return null;
    let cluster: string | null = null;
    try {
      cluster = clustersOf(parseFrontmatter(previous.body).frontmatter)[0] ?? null;
    } catch {
      cluster = null;
    }
    return extractionSourceOf({ title: previous.title, cluster, body: previous.body }).sourceHash;
  }

  /** Jobs sent inside a transaction are visible once it commits: look a moment later rather than at the next poll. */
  private wakeSoon(queue = EXTRACT_PAGE_QUEUE): void {
    if (!this.worker.isRunning) return;
    setTimeout(() => this.worker.wake(queue), 50).unref();
  }
}

function stateOf(page: PageExtractionCandidate) {
  return {
    record: page.recordSourceHash === null ? null : { sourceHash: page.recordSourceHash, chunkCount: page.recordChunkCount ?? 0, embeddingModel: page.recordEmbeddingModel },
    hasChunks: page.hasChunks,
  };
}
