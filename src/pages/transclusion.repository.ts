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
   * transcluded text may have changed when these pages changed. Every save runs it: the arrays sit behind scalar
   * subqueries so that PostgreSQL keeps one generic plan (src/db/prepared-query.ts); it planned it again each time.
   */
  async embeddersOf(pageIds: string[], keys: string[], db: EntityManager): Promise<{ id: string; slug: string; version: number; body: string }[]> {
    return preparedQuery(
      db,
      `SELECT DISTINCT p.id, p.slug, p.version, p.body
         FROM page_links l JOIN pages p ON p.id = l.from_page_id
        WHERE (l.resolved_page_id = ANY ((SELECT $1::uuid[])::uuid[]) OR l.target_key = ANY ((SELECT $2::text[])::text[]))
          AND p.deleted_at IS NULL AND NOT p.id = ANY ((SELECT $1::uuid[])::uuid[]) AND strpos(p.body, '![[') > 0`,
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
