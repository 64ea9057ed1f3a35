import type { EntityManager } from 'typeorm';

/**
 * What review needs from the extraction side (issue 5), as two optional providers. Review works without them:
 * approval then writes no node embeddings, duplicates are found by name only, and /jobs says jobs are unavailable.
 * Provide either token from a module the review, curation and admin modules import (or a @Global() one: KgModule).
 */

/** Embeds approved entities; called inside the approval's (or edit's, or merge's) transaction. */
export interface NodeEmbeddingHook {
  /** Writes kg_node_embeddings rows for these nodes with `tx` (the review journal records them, so undo removes them). */
  embedNodes(nodeIds: string[], tx: EntityManager): Promise<void>;
  /** The vector of an entity name in the model nodes are embedded with, for "close embedding" duplicates; null: none. */
  embedName?(name: string, type: string): Promise<{ model: string; vector: number[] } | null>;
}
export const NODE_EMBEDDING_HOOK = Symbol('NODE_EMBEDDING_HOOK');

export interface ExtractionJobsStatus {
  /** Per queue or backend: counts by state (created, retry, active, completed, failed…). */
  queues: { name: string; counts: Record<string, number> }[];
  /** The most recent permanent failures, with their reason. */
  failures: { id: string; queue: string; page: string | null; reason: string; failedAt: string }[];
}

/** The extraction jobs (pg-boss), for GET /admin/knowledge-graph/jobs and POST …/jobs/retry-failed. */
export interface ExtractionJobsHook {
  status(): Promise<ExtractionJobsStatus>;
  retryFailed(): Promise<{ retried: number }>;
}
export const EXTRACTION_JOBS_HOOK = Symbol('EXTRACTION_JOBS_HOOK');
