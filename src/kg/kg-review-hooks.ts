import type { Provider } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
// What review and curation need from extraction, as two optional hooks (./review-hooks.ts: this module owns the
// interface, review asks for it by token), provided here.
import {
  EXTRACTION_JOBS_HOOK, NODE_EMBEDDING_HOOK, type ExtractionJobsHook, type ExtractionJobsStatus, type NodeEmbeddingHook,
} from './review-hooks.js';
import { EXTRACT_PAGE_QUEUE, KgExtractionQueue } from './kg-extraction-queue.service.js';
import { KgEmbeddingService } from './kg-embedding.service.js';
import { KgJobsService } from './kg-jobs.service.js';

class NodeEmbeddingHookAdapter implements NodeEmbeddingHook {
  constructor(private readonly embeddings: KgEmbeddingService) {}

  embedNodes(nodeIds: string[], tx: EntityManager): Promise<void> {
    return this.embeddings.embedNodes(nodeIds, tx);
  }

  embedName(name: string, type: string): Promise<{ model: string; vector: number[] }> {
    return this.embeddings.embedName(name, type);
  }
}

class ExtractionJobsHookAdapter implements ExtractionJobsHook {
  constructor(
    private readonly jobs: KgJobsService,
    private readonly queue: KgExtractionQueue,
  ) {}

  async status(): Promise<ExtractionJobsStatus> {
    const status = await this.jobs.status();
    const counts = (c: { queued: number; retrying: number; running: number; completed: number; failed: number; cancelled: number }) => ({
      created: c.queued, retry: c.retrying, active: c.running, completed: c.completed, failed: c.failed, cancelled: c.cancelled,
    });
    return {
      queues: [
        ...status.queues.map((q) => ({ name: q.queue, counts: counts(q) })),
        ...status.backends.map((b) => ({ name: `${EXTRACT_PAGE_QUEUE} (${b.backend})`, counts: counts(b) })),
      ],
      failures: status.failures.map((f) => ({ id: f.id, queue: EXTRACT_PAGE_QUEUE, page: f.slug, reason: f.reason, failedAt: new Date(f.failedAt).toISOString() })),
    };
  }

  async retryFailed(): Promise<{ retried: number }> {
    return { retried: await this.queue.retryFailed() };
  }
}

export const KG_REVIEW_HOOK_PROVIDERS: Provider[] = [
  { provide: NODE_EMBEDDING_HOOK, inject: [KgEmbeddingService], useFactory: (embeddings: KgEmbeddingService) => new NodeEmbeddingHookAdapter(embeddings) },
  {
    provide: EXTRACTION_JOBS_HOOK,
    inject: [KgJobsService, KgExtractionQueue],
    useFactory: (jobs: KgJobsService, queue: KgExtractionQueue) => new ExtractionJobsHookAdapter(jobs, queue),
  },
];
