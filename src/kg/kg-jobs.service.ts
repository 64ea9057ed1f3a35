import { Injectable } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { JobQueue } from '../jobs/job-queue.service.js';
import { JobWorker } from '../jobs/job-worker.service.js';
import { JobsRepository, type JobState, type JobStateCount } from '../jobs/jobs.repository.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { assertClusterName } from '../policy/policy.service.js';
import { EXTRACT_PAGE_QUEUE, KgExtractionQueue } from './kg-extraction-queue.service.js';
import { KgPlanningRepository, type ExtractionFailureRow, type PageScope } from './kg-planning.repository.js';
import { PageExtractionService } from './page-extraction.service.js';

export interface JobCounts {
  queued: number;
  retrying: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface ExtractionStatus {
  backend: {
    extractor: string;
    model: string;
    embedder: string;
    embeddingModel: string;
    concurrency: number;
    ratePerMinute: number;
    confidenceThreshold: number;
  };
  role: string;
  /** Jobs this process is running right now (0 in a web process: workers run them). */
  runningHere: number;
  queues: (JobCounts & { queue: string })[];
  /** Extraction jobs by the backend they were enqueued for, with the pages and calls of finished extractions. */
  backends: (JobCounts & { backend: string; pagesExtracted: number; calls: number })[];
  pages: { included: number; extracted: number; changedSinceExtraction: number; neverExtracted: number };
  proposals: { pending: number; approved: number; rejected: number; retired: number };
  openFailures: number;
  failures: ExtractionFailureRow[];
}

export interface ExtractRequest {
  all?: boolean;
  cluster?: string;
  page?: string;
  dryRun?: boolean;
}

export interface ExtractAnswer {
  scope: 'all' | 'cluster' | 'page';
  target: string | null;
  dryRun: boolean;
  backend: string;
  model: string;
  pages: number;
  includedPages: number;
  excludedPages: number;
  pagesToExtract: number;
  upToDatePages: number;
  chunks: number;
  estimatedCalls: number;
  requestId: string | null;
  enqueued: number;
  alreadyQueued: number;
  summary: string;
}

export interface ExtractionProgress extends JobCounts {
  requestId: string;
  total: number;
  done: boolean;
}

const EMPTY: JobCounts = { queued: 0, retrying: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
const FIELD: Record<JobState, keyof JobCounts> = {
  created: 'queued', retry: 'retrying', active: 'running', completed: 'completed', failed: 'failed', cancelled: 'cancelled',
};

/** What extraction is doing, for admins (`kurate kg status`, /api/admin/kg/*, the review UI's jobs page). */
@Injectable()
export class KgJobsService {
  constructor(
    private readonly queue: JobQueue,
    private readonly worker: JobWorker,
    private readonly jobs: JobsRepository,
    private readonly planning: KgPlanningRepository,
    private readonly extraction: PageExtractionService,
    private readonly extractionQueue: KgExtractionQueue,
    private readonly config: KurateConfig,
  ) {}

  /** `kurate kg extract`: estimate the calls for a scope, and (unless a dry run) enqueue its pages that need it. */
  async extract(input: ExtractRequest): Promise<ExtractAnswer> {
    // A JSON null is no scope (class-validator's IsOptional lets it through as absent).
    const cluster = input.cluster ?? undefined;
    const page = input.page ?? undefined;
    const chosen = [input.all === true, cluster !== undefined, page !== undefined].filter(Boolean).length;
    if (chosen !== 1) {
      throw new DomainException(DomainErrorCode.InvalidInput, 'Say what to extract with exactly one of: all: true, cluster: "<cluster>", page: "<slug>".');
    }
    let scope: PageScope;
    if (cluster !== undefined) {
      assertClusterName(cluster);
      scope = { kind: 'cluster', cluster };
    } else if (page !== undefined) {
      scope = { kind: 'page', slug: page };
    } else {
      scope = { kind: 'all' };
    }
    const dryRun = input.dryRun === true;
    const result = await this.extractionQueue.request(scope, dryRun);
    const { extractor, model } = this.extraction.backend;
    const calls = `${result.chunksToExtract} extraction call${result.chunksToExtract === 1 ? '' : 's'}`;
    const summary =
      result.pagesToExtract === 0
        ? `Nothing to extract: ${result.upToDatePages} of ${result.includedPages} included page${result.includedPages === 1 ? ' is' : 's are'} up to date.`
        : `About ${calls} (${extractor}, ${model}) for ${result.pagesToExtract} of ${result.includedPages} included page${result.includedPages === 1 ? '' : 's'}` +
          `; ${result.chunks - result.chunksToExtract} unchanged chunk${result.chunks - result.chunksToExtract === 1 ? '' : 's'} cost nothing.`;
    return {
      scope: scope.kind as ExtractAnswer['scope'],
      target: input.cluster ?? input.page ?? null,
      dryRun,
      backend: extractor,
      model,
      pages: result.pages,
      includedPages: result.includedPages,
      excludedPages: result.excludedPages,
      pagesToExtract: result.pagesToExtract,
      upToDatePages: result.upToDatePages,
      chunks: result.chunks,
      estimatedCalls: result.chunksToExtract,
      requestId: result.requestId,
      enqueued: result.enqueued,
      alreadyQueued: result.alreadyQueued,
      summary,
    };
  }

  retryFailed(): Promise<number> {
    return this.extractionQueue.retryFailed();
  }

  async status(failureLimit = 20): Promise<ExtractionStatus> {
    const queues = this.queue.queueNames();
    const [byQueue, byBackend, extracted, pages, proposals, openFailures, failures] = await Promise.all([
      this.jobs.countByState(queues),
      this.jobs.countByState([EXTRACT_PAGE_QUEUE], 'backend'),
      this.planning.extractionsByBackend(),
      this.planning.pageCounts(),
      this.planning.proposalCounts(),
      this.planning.openFailureCount(),
      this.planning.openFailures(failureLimit),
    ]);
    const backendNames = [...new Set([this.extraction.backend.extractor, ...byBackend.map((r) => r.group ?? 'unknown'), ...extracted.map((e) => e.backend)])].sort();
    const { extractor, model, embedder, embeddingModel } = this.extraction.backend;
    return {
      backend: {
        extractor, model, embedder, embeddingModel,
        concurrency: this.config.extraction.limits.concurrency,
        ratePerMinute: this.config.extraction.limits.ratePerMinute,
        confidenceThreshold: this.config.extraction.confidenceThreshold,
      },
      role: this.config.extraction.role,
      runningHere: queues.reduce((sum, q) => sum + this.worker.runningCount(q), 0),
      queues: queues.map((queue) => ({ queue, ...tally(byQueue.filter((r) => r.queue === queue)) })),
      backends: backendNames.map((backend) => {
        const done = extracted.filter((e) => e.backend === backend);
        return {
          backend,
          ...tally(byBackend.filter((r) => (r.group ?? 'unknown') === backend)),
          pagesExtracted: done.reduce((sum, e) => sum + e.pages, 0),
          calls: done.reduce((sum, e) => sum + e.calls, 0),
        };
      }),
      pages: { included: pages.included, extracted: pages.extracted, changedSinceExtraction: pages.changedSince, neverExtracted: pages.neverExtracted },
      proposals: { pending: proposals.pending ?? 0, approved: proposals.approved ?? 0, rejected: proposals.rejected ?? 0, retired: proposals.retired ?? 0 },
      openFailures,
      failures,
    };
  }

  async progress(requestId: string): Promise<ExtractionProgress> {
    const counts = await this.jobs.countByRequest(EXTRACT_PAGE_QUEUE, requestId);
    const tallied = tally(Object.entries(counts).map(([state, count]) => ({ queue: EXTRACT_PAGE_QUEUE, group: null, state: state as JobState, count: count ?? 0 })));
    const total = Object.values(tallied).reduce((sum, n) => sum + n, 0);
    return { requestId, total, ...tallied, done: tallied.queued + tallied.retrying + tallied.running === 0 };
  }

  failures(limit: number): Promise<ExtractionFailureRow[]> {
    return this.planning.openFailures(limit);
  }
}

function tally(rows: JobStateCount[]): JobCounts {
  const counts = { ...EMPTY };
  for (const row of rows) counts[FIELD[row.state]] += row.count;
  return counts;
}
