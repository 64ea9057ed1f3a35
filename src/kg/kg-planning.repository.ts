import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** A page with what deciding "does it need extraction?" takes: its source, and its extraction record if any. */
export interface PageExtractionCandidate {
  id: string;
  slug: string;
  title: string;
  body: string;
  cluster: string | null;
  contentHash: string;
  included: boolean;
  recordSourceHash: string | null;
  recordChunkCount: number | null;
  recordEmbeddingModel: string | null;
  hasChunks: boolean;
}

export type PageScope = { kind: 'all' } | { kind: 'cluster'; cluster: string } | { kind: 'page'; slug: string } | { kind: 'ids'; ids: string[] };

export interface ExtractionFailureRow {
  id: string;
  pageId: string;
  slug: string;
  title: string;
  jobId: string;
  backend: string;
  model: string | null;
  reason: string;
  attempts: number;
  failedAt: Date;
}

/**
 * Set-based reads for deciding what to extract (an estimate before `kurate kg extract`, newly included pages) and
 * for the status of extraction. Reads the pages table directly, read-only, like the policy module.
 */
@Injectable()
export class KgPlanningRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Live pages in scope (a cluster with its sub-clusters), with their inclusion and extraction state, by id. */
  async candidates(scope: PageScope, afterId: string | null, limit: number, db: EntityManager = this.dataSource.manager): Promise<PageExtractionCandidate[]> {
    const params: unknown[] = [afterId ?? '00000000-0000-0000-0000-000000000000', limit];
    let filter = 'TRUE';
    if (scope.kind === 'cluster') {
      params.push(scope.cluster);
      filter = `EXISTS (SELECT 1 FROM unnest(kurate_policy_clusters(p.clusters)) c WHERE c = $3 OR c LIKE $3 || '/%')`;
    } else if (scope.kind === 'page') {
      params.push(scope.slug);
      filter = 'p.slug = $3';
    } else if (scope.kind === 'ids') {
      params.push(scope.ids);
      filter = 'p.id = ANY($3::uuid[])';
    }
    return db.query(
      `SELECT p.id, p.slug, p.title, p.body, p.cluster, p.content_hash AS "contentHash",
              NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id) AS included,
              r.source_hash AS "recordSourceHash", r.chunk_count AS "recordChunkCount", r.embedding_model AS "recordEmbeddingModel",
              EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.page_id = p.id) AS "hasChunks"
         FROM pages p LEFT JOIN kg_page_extractions r ON r.page_id = p.id
        WHERE p.deleted_at IS NULL AND p.id > $1 AND ${filter}
        ORDER BY p.id LIMIT $2`,
      params,
    );
  }

  /**
   * Pages with chunks stored before section anchors existed (a heading path but no anchor), in id order after
   * `after`: a run of their extraction gives the kept chunks their anchor without any call.
   */
  async pagesWithUnanchoredChunks(after: string | null, limit: number): Promise<string[]> {
    const rows: { page_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT c.page_id FROM kg_content_chunks c
        WHERE c.anchor IS NULL AND c.heading_path <> '{}' AND ($1::uuid IS NULL OR c.page_id > $1::uuid)
        ORDER BY c.page_id LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => r.page_id);
  }

  /** Stored chunk hashes of these pages (for counting the calls an extraction would make). */
  async storedHashes(pageIds: string[]): Promise<Map<string, string[]>> {
    const rows: { page_id: string; hashes: string[] }[] = await this.dataSource.query(
      `SELECT page_id, array_agg(content_hash) AS hashes FROM kg_content_chunks WHERE page_id = ANY($1::uuid[]) GROUP BY page_id`,
      [pageIds],
    );
    return new Map(rows.map((r) => [r.page_id, r.hashes]));
  }

  /** Does any live page name this cluster (or one of its sub-clusters)? */
  async clusterExists(cluster: string): Promise<boolean> {
    const rows: { found: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM pages p WHERE p.deleted_at IS NULL AND EXISTS (SELECT 1 FROM unnest(kurate_policy_clusters(p.clusters)) c WHERE c = $1 OR c LIKE $1 || '/%')) AS found`,
      [cluster],
    );
    return rows[0].found;
  }

  /** Included live pages: how many, how many have an extraction record, how many may have changed since. */
  async pageCounts(): Promise<{ included: number; extracted: number; changedSince: number; neverExtracted: number }> {
    const rows: { included: number; extracted: number; changed_since: number; never_extracted: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS included,
              count(r.page_id)::int AS extracted,
              count(*) FILTER (WHERE r.page_id IS NOT NULL AND r.page_content_hash <> p.content_hash)::int AS changed_since,
              count(*) FILTER (WHERE r.page_id IS NULL AND NOT EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.page_id = p.id))::int AS never_extracted
         FROM pages p LEFT JOIN kg_page_extractions r ON r.page_id = p.id
        WHERE p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id)`,
    );
    const r = rows[0];
    return { included: r.included, extracted: r.extracted, changedSince: r.changed_since, neverExtracted: r.never_extracted };
  }

  /** Extraction calls and pages per backend and model, from the pages' extraction records. */
  async extractionsByBackend(): Promise<{ backend: string; model: string | null; pages: number; calls: number }[]> {
    return this.dataSource.query(
      `SELECT extractor AS backend, model, count(*)::int AS pages, sum(extraction_calls)::int AS calls
         FROM kg_page_extractions GROUP BY 1, 2 ORDER BY 1, 2`,
    );
  }

  async proposalCounts(): Promise<Record<string, number>> {
    const rows: { status: string; n: number }[] = await this.dataSource.query(
      `SELECT status, count(*)::int AS n FROM kg_proposals GROUP BY status`,
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Permanent failures not resolved by a later successful extraction, newest first. */
  openFailures(limit: number): Promise<ExtractionFailureRow[]> {
    return this.dataSource.query(
      `SELECT f.id::text AS id, f.page_id AS "pageId", p.slug, p.title, f.job_id AS "jobId", f.backend, f.model, f.reason, f.attempts,
              f.failed_at AS "failedAt"
         FROM kg_extraction_failures f JOIN pages p ON p.id = f.page_id
        WHERE f.resolved_at IS NULL
        ORDER BY f.failed_at DESC, f.id DESC LIMIT $1`,
      [limit],
    );
  }

  async openFailureCount(): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query('SELECT count(*)::int AS n FROM kg_extraction_failures WHERE resolved_at IS NULL');
    return rows[0].n;
  }
}
