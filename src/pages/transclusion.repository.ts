import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';
import { RESOLVE_KEY } from './page-links.repository.js';

export interface EmbeddedPageRow {
  key: string;
  id: string;
  slug: string;
  title: string;
  body: string;
  version: number;
}

/** The SQL transclusion needs: embedded pages by link key, pages that embed a page, and the transcluded search text. */
@Injectable()
export class TransclusionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The live page each key resolves to (the Page Graph's rule), with its source and version. */
  pagesByKeys(keys: string[], db: EntityManager = this.dataSource.manager): Promise<EmbeddedPageRow[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return db.query(
      `SELECT k.key, p.id, p.slug, p.title, p.body, p.version
         FROM unnest($1::text[]) AS k(key) JOIN pages p ON p.id = ${RESOLVE_KEY('k.key')}`,
      [keys],
    );
  }

  /**
   * Live pages other than these that link to one of them or to one of the keys and hold an embed: those whose
   * transcluded text may have changed when these pages changed. Every save runs it, as a prepared statement whose one
   * plan must serve any ids and keys: it is driven by them, each id and key an index probe of page_links and each
   * linking page a probe of pages by its key (LATERAL, fenced with OFFSET 0), and the arrays sit behind scalar
   * subqueries so that no plan depends on their values (src/db/prepared-query.ts). Written as a join with `= ANY(…)`,
   * it was planned again on every save, and its generic plan scanned every page's body and every link (14 ms a save
   * at 1,000 pages; bench/RESULTS.md, 2026-12-07).
   */
  async embeddersOf(pageIds: string[], keys: string[], db: EntityManager): Promise<{ id: string; slug: string; version: number; body: string }[]> {
    return preparedQuery(
      db,
      `WITH linking AS MATERIALIZED (
              SELECT l.from_page_id FROM unnest((SELECT $1::uuid[])) AS t(id)
               CROSS JOIN LATERAL (SELECT l.from_page_id FROM page_links l WHERE l.resolved_page_id = t.id OFFSET 0) l
              UNION
              SELECT l.from_page_id FROM unnest((SELECT $2::text[])) AS k(key)
               CROSS JOIN LATERAL (SELECT l.from_page_id FROM page_links l WHERE l.target_key = k.key OFFSET 0) l)
       SELECT p.id, p.slug, p.version, p.body
         FROM linking h CROSS JOIN LATERAL (SELECT p.id, p.slug, p.version, p.body, p.deleted_at FROM pages p WHERE p.id = h.from_page_id OFFSET 0) p
        WHERE p.deleted_at IS NULL AND NOT p.id = ANY ((SELECT $1::uuid[])::uuid[]) AND strpos(p.body, '![[') > 0`,
      [pageIds, keys],
    );
  }

  /** Replaces the transcluded part of a page's search vector (weight D; title, names and text are A, B and C). */
  async setTranscludedText(pageId: string, text: string, db: EntityManager): Promise<void> {
    await preparedQuery(
      db,
      `UPDATE pages SET search = ts_filter(search, '{a,b,c}') || setweight(to_tsvector('english', $2), 'D')
        WHERE id = $1 AND search IS NOT NULL
          AND search IS DISTINCT FROM (ts_filter(search, '{a,b,c}') || setweight(to_tsvector('english', $2), 'D'))`,
      [pageId, text],
    );
  }
}
