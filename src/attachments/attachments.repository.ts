import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';

export interface AttachmentRow {
  id: string;
  path: string;
  nameKey: string;
  mediaType: string;
  sizeBytes: number;
  sha256: string;
  store: string;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

export interface AttachmentWrite {
  path: string;
  nameKey: string;
  mediaType: string;
  sizeBytes: number;
  sha256: string;
  store: string;
}

/** Who is asking, for the access rule (docs/attachments.md): what each may see of the files. */
export type FileAudience = 'reader' | 'author' | 'admin';

export interface ReferencingPage {
  slug: string;
  title: string;
  inTrash: boolean;
}

export interface ListedAttachment extends AttachmentRow {
  pages: ReferencingPage[];
}

export interface FileRef {
  target: string;
  nameKey: string;
  attachmentId: string | null;
  addedVersion: number;
}

export interface PageFileRow {
  target: string;
  addedVersion: number;
  path: string;
  mediaType: string;
  sizeBytes: number;
}

const COLUMNS = `a.id, a.path, a.name_key AS "nameKey", a.media_type AS "mediaType", a.size_bytes::float8 AS "sizeBytes",
  a.sha256, a.store, a.created_by AS "createdBy", a.created_at AS "createdAt", a.updated_by AS "updatedBy", a.updated_at AS "updatedAt"`;

// A file is read through the pages that reference it: readers see what a live page references; authors also what no
// page references (an upload not yet used, a vault's loose file); admins everything, also what only trashed pages use.
const LIVE_REFERENCE = `EXISTS (SELECT 1 FROM page_file_refs r JOIN pages p ON p.id = r.page_id WHERE r.attachment_id = a.id AND p.deleted_at IS NULL)`;
const ANY_REFERENCE = `EXISTS (SELECT 1 FROM page_file_refs r WHERE r.attachment_id = a.id)`;
/** The audience an actor belongs to. */
export function audienceOf(actor: { role: string | null }): FileAudience {
  if (actor.role === 'admin') return 'admin';
  if (actor.role === 'author') return 'author';
  return 'reader';
}

export function visibleTo(audience: FileAudience): string {
  if (audience === 'admin') return 'true';
  if (audience === 'author') return `(${LIVE_REFERENCE} OR NOT ${ANY_REFERENCE})`;
  return LIVE_REFERENCE;
}

/** All SQL over attachments and the pages' references to them (migration 0015). */
@Injectable()
export class AttachmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async findByPath(path: string, db: EntityManager = this.dataSource.manager): Promise<AttachmentRow | null> {
    const rows: AttachmentRow[] = await db.query(`SELECT ${COLUMNS} FROM attachments a WHERE lower(a.path) = lower($1)`, [path]);
    return rows[0] ?? null;
  }

  /** The file at a path if this audience may see it. */
  async findVisibleByPath(path: string, audience: FileAudience): Promise<AttachmentRow | null> {
    const rows: AttachmentRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM attachments a WHERE lower(a.path) = lower($1) AND ${visibleTo(audience)}`, [path]);
    return rows[0] ?? null;
  }

  /** Candidates for link resolution: every file with one of these names (lower case), or those an audience may see. */
  findByNameKeys(nameKeys: string[], db: EntityManager = this.dataSource.manager, audience: FileAudience = 'admin'): Promise<AttachmentRow[]> {
    if (nameKeys.length === 0) return Promise.resolve([]);
    return db.query(`SELECT ${COLUMNS} FROM attachments a WHERE a.name_key = ANY($1::text[]) AND ${visibleTo(audience)}`, [nameKeys]);
  }

  async insert(write: AttachmentWrite, actor: string, db: EntityManager): Promise<AttachmentRow> {
    const rows: AttachmentRow[] = await db.query(
      `INSERT INTO attachments AS a (path, name_key, media_type, size_bytes, sha256, store, created_by, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${COLUMNS}`,
      [write.path, write.nameKey, write.mediaType, write.sizeBytes, write.sha256, write.store, actor],
    );
    return rows[0];
  }

  async replaceContent(id: string, write: AttachmentWrite, actor: string, db: EntityManager): Promise<AttachmentRow> {
    const [rows]: [AttachmentRow[], number] = await db.query(
      `UPDATE attachments AS a SET media_type = $2, size_bytes = $3, sha256 = $4, store = $5, updated_by = $6, updated_at = now()
        WHERE a.id = $1 RETURNING ${COLUMNS}`,
      [id, write.mediaType, write.sizeBytes, write.sha256, write.store, actor],
    );
    return rows[0];
  }

  async delete(id: string, db: EntityManager): Promise<void> {
    await db.query('UPDATE page_links SET resolved_attachment_id = NULL WHERE resolved_attachment_id = $1', [id]);
    await db.query('DELETE FROM attachments WHERE id = $1', [id]);
  }

  /** Whether any catalogue row still needs these bytes (before the store forgets them). */
  async contentInUse(sha256: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM attachments WHERE sha256 = $1 LIMIT 1', [sha256]);
    return rows.length > 0;
  }

  /**
   * Runs `work` with the contents among `keys` that a catalogue row references, while the catalogue's writes wait (a
   * SHARE lock on `attachments`, at most 5 s to get it): an upload, replacement or deletion cannot commit between the
   * look and what `work` does. (An upload that stored its bytes and then waited here finds them gone after its commit
   * and stores them again: AttachmentsService.upload.)
   */
  async withReferencesHeld<T>(keys: readonly string[], work: (referenced: Set<string>, tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (tx) => {
      await tx.query("SET LOCAL lock_timeout = '5s'");
      await tx.query('LOCK TABLE attachments IN SHARE MODE');
      const rows: { sha256: string }[] = await tx.query('SELECT DISTINCT sha256 FROM attachments WHERE sha256 = ANY($1::text[])', [keys]);
      return work(new Set(rows.map((row) => row.sha256)), tx);
    });
  }

  /** The files this audience may see, by path, with the pages that reference each (trashed ones for admins only). */
  async list(audience: FileAudience, limit: number, offset: number): Promise<{ items: ListedAttachment[]; total: number }> {
    const rows: (ListedAttachment & { total: number })[] = await this.dataSource.query(
      `SELECT ${COLUMNS}, count(*) OVER ()::int AS total,
              coalesce((SELECT json_agg(json_build_object('slug', p.slug, 'title', p.title, 'inTrash', p.deleted_at IS NOT NULL) ORDER BY p.title)
                          FROM page_file_refs r JOIN pages p ON p.id = r.page_id
                         WHERE r.attachment_id = a.id AND ($3 OR p.deleted_at IS NULL)), '[]'::json) AS pages
         FROM attachments a WHERE ${visibleTo(audience)}
        ORDER BY a.path LIMIT $1 OFFSET $2`,
      [limit, offset, audience === 'admin'],
    );
    return { items: rows.map(({ total: _t, ...row }) => row), total: rows[0]?.total ?? 0 };
  }

  // ── References (page_file_refs) ──

  /**
   * Makes a page's references exactly these (one statement): gone ones deleted, new ones added with this version,
   * kept ones keep the version that added them.
   */
  async replaceRefs(pageId: string, refs: Omit<FileRef, 'addedVersion'>[], version: number, db: EntityManager): Promise<void> {
    if (refs.length === 0) {
      await preparedQuery(db, 'DELETE FROM page_file_refs WHERE page_id = $1', [pageId]);
      return;
    }
    await preparedQuery(
      db,
      `WITH gone AS (DELETE FROM page_file_refs WHERE page_id = $1 AND NOT (target = ANY($2::text[])))
       INSERT INTO page_file_refs AS r (page_id, target, name_key, attachment_id, added_version)
       SELECT $1, n.target, n.name_key, n.attachment_id, $5
         FROM unnest($2::text[], $3::text[], $4::uuid[]) AS n(target, name_key, attachment_id)
       ON CONFLICT (page_id, target) DO UPDATE SET attachment_id = EXCLUDED.attachment_id`,
      [pageId, refs.map((r) => r.target), refs.map((r) => r.nameKey), refs.map((r) => r.attachmentId), version],
    );
  }

  /** The file each wikilink of a page reached, by the target the Page Graph stores for it (one statement). */
  async setPageLinkAttachments(pageId: string, links: { target: string; attachmentId: string | null }[], db: EntityManager): Promise<void> {
    if (links.length === 0) return;
    await db.query(
      `UPDATE page_links l SET resolved_attachment_id = u.attachment_id
         FROM unnest($2::text[], $3::uuid[]) AS u(target, attachment_id)
        WHERE l.from_page_id = $1 AND l.target = u.target AND l.resolved_attachment_id IS DISTINCT FROM u.attachment_id`,
      [pageId, links.map((l) => l.target), links.map((l) => l.attachmentId)],
    );
  }

  /** Every page's references to files of these names (the ones an upload or a deletion may change). */
  refsByNameKeys(nameKeys: string[], db: EntityManager): Promise<(FileRef & { pageId: string })[]> {
    return db.query(
      `SELECT page_id AS "pageId", target, name_key AS "nameKey", attachment_id AS "attachmentId", added_version AS "addedVersion"
         FROM page_file_refs WHERE name_key = ANY($1::text[])`,
      [nameKeys],
    );
  }

  async setRefAttachments(updates: { pageId: string; target: string; attachmentId: string | null }[], db: EntityManager): Promise<void> {
    if (updates.length === 0) return;
    await db.query(
      `UPDATE page_file_refs r SET attachment_id = u.attachment_id
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS u(page_id, target, attachment_id)
        WHERE r.page_id = u.page_id AND r.target = u.target`,
      [updates.map((u) => u.pageId), updates.map((u) => u.target), updates.map((u) => u.attachmentId)],
    );
  }

  /** The wikilinks of these pages (the Page Graph's rows), whose targets may name files. */
  wikilinksOf(pageIds: string[], db: EntityManager): Promise<{ id: string; pageId: string; target: string; attachmentId: string | null }[]> {
    return db.query(
      `SELECT id::text AS id, from_page_id AS "pageId", target, resolved_attachment_id AS "attachmentId"
         FROM page_links WHERE from_page_id = ANY($1::uuid[]) AND kind IN ('wikilink', 'embed')`,
      [pageIds],
    );
  }

  async setLinkAttachments(updates: { id: string; attachmentId: string | null }[], db: EntityManager): Promise<void> {
    if (updates.length === 0) return;
    await db.query(
      `UPDATE page_links l SET resolved_attachment_id = u.attachment_id
         FROM unnest($1::bigint[], $2::uuid[]) AS u(id, attachment_id) WHERE l.id = u.id`,
      [updates.map((u) => u.id), updates.map((u) => u.attachmentId)],
    );
  }

  /** Every reference that reached a file, of every page (a restore links the Page Graph's file links again). */
  resolvedRefs(db: EntityManager): Promise<{ pageId: string; target: string; attachmentId: string }[]> {
    return db.query(`SELECT page_id AS "pageId", target, attachment_id AS "attachmentId" FROM page_file_refs WHERE attachment_id IS NOT NULL`);
  }

  /** The files a page's current text reaches, by the target it writes. */
  filesOfPage(pageId: string): Promise<PageFileRow[]> {
    return this.dataSource.query(
      `SELECT r.target, r.added_version AS "addedVersion", a.path, a.media_type AS "mediaType", a.size_bytes::float8 AS "sizeBytes"
         FROM page_file_refs r JOIN attachments a ON a.id = r.attachment_id
        WHERE r.page_id = $1 ORDER BY r.added_version, a.path`,
      [pageId],
    );
  }

  /** Tells every process's page caches that what pages show changed (delivered when the transaction commits). */
  async notify(channel: string | null, db: EntityManager): Promise<void> {
    if (channel) await db.query('SELECT pg_notify($1, $2)', [channel, '']);
  }
}
