import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';
import { EMBEDDERS_CTE, RESOLVE_KEY, type EmbedderRow } from './page-links.repository.js';

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
   * transcluded text may have changed when these pages changed (EMBEDDERS_CTE). An edit that keeps its page's names
   * reads them with its links instead (PageLinksRepository.replaceOutboundOfEdit).
   */
  async embeddersOf(pageIds: string[], keys: string[], db: EntityManager): Promise<EmbedderRow[]> {
    return preparedQuery(db, `WITH ${EMBEDDERS_CTE('$1::uuid[]', '$2::text[]')} SELECT e.id, e.slug, e.version, e.body FROM embedders e`, [pageIds, keys]);
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
