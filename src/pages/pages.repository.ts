import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Not } from 'typeorm';
import { PageRedirectEntity } from './page-redirect.entity.js';
import { PageRevisionEntity } from './page-revision.entity.js';
import { PageEntity } from './page.entity.js';
import { entityColumns } from '../db/entity-columns.js';
import { preparedQuery } from '../db/prepared-query.js';
import { SEARCH_TEXT_PART_CHARS, textParts } from './search-text-parts.js';

/** The columns a save writes; the repository derives the search vector from them. */
export interface PageWrite {
  slug: string;
  title: string;
  body: string;
  /** The source without frontmatter (comments kept): what the save's analysis and transclusion read. */
  markdown: string;
  /** That Markdown without its %%comments%%, for the search vector (and extraction). */
  text: string;
  frontmatter: PageEntity['frontmatter'];
  cluster: string | null;
  clusters: string[];
  tags: string[];
  aliases: string[];
  pageType: string | null;
  isSystem: boolean;
  linkKeys: string[];
  contentHash: string;
  /**
   * The lexemes of a long `text`, turned into lexemes a part at a time (`searchLexemes`); absent or null: the write
   * turns the text into lexemes itself.
   */
  searchLexemes?: string | null;
}

export interface PageListFilter {
  cluster?: string;
  tag?: string;
  offset: number;
  limit: number;
  sort: 'title' | 'updated';
}

export interface FullTextHit {
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  rank: number;
}

// Titles, aliases and tags whole and by the parts of tokens like `Folder/Name` (kurate_search_names, migration 0011).
// The page's own text, or its lexemes when they were read apart (a long text: searchLexemes). COALESCE stops at its
// first value that is not null, also when PostgreSQL folds constants into a plan: to_tsvector then never runs.
const searchVector = (title: string, tags: string, aliases: string, text: string, lexemes: string) => `
  setweight(to_tsvector('english', kurate_search_names(${title})), 'A') ||
  setweight(to_tsvector('english', kurate_search_names(array_to_string(${aliases}::text[] || ${tags}::text[], ' '))), 'B') ||
  setweight(coalesce(${lexemes}::tsvector, to_tsvector('english', ${text})), 'C')`;
const SEARCH_VECTOR = searchVector('$2', '$7', '$8', '$14', '$15');
const SAVED_SEARCH_VECTOR = searchVector('$2', '$7', '$8', '$14', '$18');

/** All SQL over pages, their revisions and redirects. Write methods take the transaction's manager. */
@Injectable()
export class PagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findLiveBySlug(slug: string, db: EntityManager = this.dataSource.manager): Promise<PageEntity | null> {
    return this.onePage('slug = $1 AND deleted_at IS NULL', slug, db);
  }

  findBySlug(slug: string, db: EntityManager = this.dataSource.manager): Promise<PageEntity | null> {
    return this.onePage('slug = $1', slug, db);
  }

  findById(id: string, db: EntityManager = this.dataSource.manager): Promise<PageEntity | null> {
    return this.onePage('id = $1', id, db);
  }

  /** The page that `condition` (on its one parameter) selects, as TypeORM reads it; a prepared statement (every save reads its page). */
  private async onePage(condition: 'slug = $1' | 'slug = $1 AND deleted_at IS NULL' | 'id = $1', value: string, db: EntityManager): Promise<PageEntity | null> {
    const rows: Record<string, unknown>[] = await preparedQuery(db, `SELECT ${this.pageColumns()} FROM pages WHERE ${condition} LIMIT 1`, [value]);
    return rows.length === 1 ? db.create(PageEntity, rows[0]) : null;
  }

  /** The live pages among these slugs (one query for a whole import batch). */
  findLiveBySlugs(slugs: string[]): Promise<PageEntity[]> {
    if (slugs.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(PageEntity, { where: { slug: In(slugs), deletedAt: IsNull() } });
  }

  findLiveByIds(ids: string[]): Promise<PageEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(PageEntity, { where: { id: In(ids), deletedAt: IsNull() } });
  }

  async findRedirect(oldSlug: string): Promise<string | null> {
    const row = await this.dataSource.manager.findOne(PageRedirectEntity, { where: { oldSlug } });
    if (!row) return null;
    const page = await this.findById(row.pageId);
    return page && !page.deletedAt ? page.slug : null;
  }

  /**
   * Creates a page with its first revision in one statement, and answers it as written; null when a page (live or in
   * the trash) has the slug, and nothing is written (the caller's transaction undoes the other CTEs). An old slug that
   * redirected elsewhere becomes the new page's own (its redirect goes). `vault`: where an imported page lives in its
   * vault (migration 0023), written with it; a page that came from that path before forgets it, as
   * {@link setVaultOrigin} does.
   */
  async insert(page: PageWrite, actor: string, message: string, db: EntityManager, vault: { path: string | null; cluster: string | null } | null = null): Promise<PageEntity | null> {
    const rows: Record<string, unknown>[] = await db.query(
      `WITH freed AS (DELETE FROM page_redirects WHERE old_slug = $1),
            forgotten AS (
              UPDATE pages SET vault_path = NULL, vault_cluster = NULL
               WHERE $17::text IS NOT NULL AND vault_path IS NOT NULL AND lower(vault_path) = lower($17::text)),
            created AS (
              INSERT INTO pages (slug, title, body, frontmatter, cluster, clusters, tags, aliases, page_type, is_system,
                                 link_keys, content_hash, created_by, search, updated_by, vault_path, vault_cluster)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, ${SEARCH_VECTOR}, $13, $17, $18)
              ON CONFLICT (slug) DO NOTHING
              RETURNING *),
            revision AS (
              INSERT INTO page_revisions (page_id, version, slug, title, body, content_hash, author, message)
              SELECT c.id, c.version, c.slug, c.title, c.body, c.content_hash, $13, $16 FROM created c)
       SELECT ${this.pageColumns()} FROM created`,
      [page.slug, page.title, page.body, page.frontmatter, page.cluster, page.clusters, page.tags, page.aliases,
        page.pageType, page.isSystem, page.linkKeys, page.contentHash, actor, page.text, page.searchLexemes ?? null,
        message, vault?.path ?? null, vault?.cluster ?? null],
    );
    return rows.length === 1 ? db.create(PageEntity, rows[0]) : null;
  }

  /**
   * Writes a page's new version if it still has `baseVersion` and is not in the trash; answers the page as written
   * (the UPDATE returns it, so a save need not read it back), or null when the row did not match.
   */
  async updateIfVersion(id: string, baseVersion: number, page: PageWrite, actor: string, message: string, db: EntityManager): Promise<PageEntity | null> {
    // The new version's revision is written by the same statement (one round trip fewer in every save's transaction),
    // from the row as updated: none when the version or the trash state did not match.
    const rows: Record<string, unknown>[] = await preparedQuery(
      db,
      `WITH saved AS (
         UPDATE pages SET slug = $1, title = $2, body = $3, frontmatter = $4, cluster = $5, clusters = $6, tags = $7,
                aliases = $8, page_type = $9, is_system = $10, link_keys = $11, content_hash = $12, updated_by = $13,
                search = ${SAVED_SEARCH_VECTOR}, version = version + 1, updated_at = now(),
                -- Renamed, or moved to another cluster: the vault's path and cluster line no longer say where it is.
                vault_path = CASE WHEN title = $2 AND cluster IS NOT DISTINCT FROM $5 THEN vault_path END,
                vault_cluster = CASE WHEN title = $2 AND cluster IS NOT DISTINCT FROM $5 THEN vault_cluster END
          WHERE id = $15 AND version = $16 AND deleted_at IS NULL
         RETURNING *
       ), revision AS (
         INSERT INTO page_revisions (page_id, version, slug, title, body, content_hash, author, message)
         SELECT s.id, s.version, s.slug, s.title, s.body, s.content_hash, $13, $17 FROM saved s
       )
       SELECT ${this.pageColumns()} FROM saved`,
      [page.slug, page.title, page.body, page.frontmatter, page.cluster, page.clusters, page.tags, page.aliases,
        page.pageType, page.isSystem, page.linkKeys, page.contentHash, actor, page.text, id, baseVersion, message, page.searchLexemes ?? null],
    );
    return rows.length === 1 ? db.create(PageEntity, rows[0]) : null;
  }

  /** The columns TypeORM reads of a page, as a select list naming each by its property (for RETURNING). */
  private pageColumns(): string {
    return entityColumns(this.dataSource, PageEntity);
  }

  /**
   * Where an imported page lives in its vault (migration 0023), set while the page still has `expected`'s title and
   * cluster and is not in the trash; a no-op when it is already recorded so.
   */
  async setVaultOrigin(
    id: string,
    vaultPath: string | null,
    vaultCluster: string | null,
    expected: { title: string; cluster: string | null },
    db: EntityManager | DataSource = this.dataSource,
  ): Promise<void> {
    // The file at that path is this page now: another page that came from it (before the vault renamed its title)
    // forgets the path, so that export writes it to `<cluster>/<title>.md` rather than over this one (found through
    // migration 0035's index).
    await db.query(
      `WITH moved AS (
         UPDATE pages SET vault_path = $2, vault_cluster = $3
          WHERE id = $1 AND (vault_path, vault_cluster) IS DISTINCT FROM ($2, $3)
            AND title = $4 AND cluster IS NOT DISTINCT FROM $5 AND deleted_at IS NULL
         RETURNING id)
       UPDATE pages SET vault_path = NULL, vault_cluster = NULL
        WHERE vault_path IS NOT NULL AND lower(vault_path) = lower($2) AND id <> $1 AND EXISTS (SELECT 1 FROM moved)`,
      [id, vaultPath, vaultCluster, expected.title, expected.cluster],
    );
  }

  /** Live and trashed pages in id order after `afterId`, with what indexing them takes (a restore rebuilds them). */
  pagesAfter(afterId: string | null, limit: number): Promise<{ id: string; slug: string; title: string; body: string }[]> {
    return this.dataSource.query(
      'SELECT id, slug, title, body FROM pages WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2',
      [afterId, limit],
    );
  }

  /** A page's derived columns (search vector, link keys) computed again from its parsed source; nothing else moves. */
  async updateDerived(id: string, page: PageWrite, db: EntityManager): Promise<void> {
    await db.query(
      `UPDATE pages SET link_keys = $5, search = ${searchVector('$1', '$2', '$3', '$4', '$7')} WHERE id = $6`,
      [page.title, page.tags, page.aliases, page.text, page.linkKeys, id, page.searchLexemes ?? null],
    );
  }

  /**
   * The lexemes of a long text (a tsvector's text), read a part at a time (SEARCH_TEXT_PART_CHARS), each part in a
   * statement of its own, then concatenated (`||` moves each part's positions after the previous one's): null for a
   * text the write can turn into lexemes itself. Run before the write's transaction (inside one, pass its manager as
   * `db`): on the embedded database, which runs in this process, other requests run between the statements.
   */
  async searchLexemes(text: string, db: EntityManager | DataSource = this.dataSource): Promise<string | null> {
    if (text.length <= 2 * SEARCH_TEXT_PART_CHARS) return null;
    const parts: string[] = [];
    for (const part of textParts(text, SEARCH_TEXT_PART_CHARS)) {
      const rows: { lexemes: string }[] = await preparedQuery(db, `SELECT to_tsvector('english', $1)::text AS lexemes`, [part]);
      parts.push(rows[0].lexemes);
    }
    const joined: { lexemes: string }[] = await db.query(`SELECT (${parts.map((_, i) => `$${i + 1}::tsvector`).join(' || ')})::text AS lexemes`, parts);
    return joined[0].lexemes;
  }

  /** Moves a live page to the trash; false when it is not live (trashed by another request since it was read). */
  async markDeleted(id: string, actor: string, db: EntityManager): Promise<boolean> {
    const result = await db.update(PageEntity, { id, deletedAt: IsNull() }, { deletedAt: () => 'now()', deletedBy: actor });
    return result.affected === 1;
  }

  /** Brings a trashed page back; false when it is not in the trash (restored by another request since it was read). */
  async markRestored(id: string, db: EntityManager): Promise<boolean> {
    const result = await db.update(PageEntity, { id, deletedAt: Not(IsNull()) }, { deletedAt: null, deletedBy: null });
    return result.affected === 1;
  }

  async addRedirect(oldSlug: string, pageId: string, db: EntityManager): Promise<void> {
    await db.query(
      `INSERT INTO page_redirects (old_slug, page_id) VALUES ($1, $2)
       ON CONFLICT (old_slug) DO UPDATE SET page_id = EXCLUDED.page_id, created_at = now()`,
      [oldSlug, pageId],
    );
  }

  /** A page's own current slug must never redirect elsewhere. */
  async removeRedirect(slug: string, db: EntityManager): Promise<void> {
    await db.delete(PageRedirectEntity, { oldSlug: slug });
  }

  list(filter: PageListFilter): Promise<[PageEntity[], number]> {
    const qb = this.dataSource.manager
      .createQueryBuilder(PageEntity, 'p')
      .where('p.deleted_at IS NULL')
      .orderBy(filter.sort === 'updated' ? 'p.updated_at' : 'lower(p.title)', filter.sort === 'updated' ? 'DESC' : 'ASC')
      .addOrderBy('p.id')
      .offset(filter.offset)
      .limit(filter.limit);
    if (filter.cluster) qb.andWhere(':cluster = ANY(p.clusters)', { cluster: filter.cluster });
    if (filter.tag) qb.andWhere(':tag = ANY(p.tags)', { tag: filter.tag });
    return qb.getManyAndCount();
  }

  /** Live pages tagged `tag` or a tag nested under it (`tag/sub`), by title. */
  async tagged(tag: string, limit: number, offset: number): Promise<{ items: { slug: string; title: string; cluster: string | null; tags: string[] }[]; total: number }> {
    const rows: { slug: string; title: string; cluster: string | null; tags: string[]; total: number }[] = await this.dataSource.query(
      `SELECT p.slug, p.title, p.cluster, p.tags, count(*) OVER ()::int AS total FROM pages p
        WHERE p.deleted_at IS NULL AND (p.tags @> ARRAY[$1::text] OR EXISTS (SELECT 1 FROM unnest(p.tags) t WHERE starts_with(t, $1 || '/')))
        ORDER BY lower(p.title), p.id LIMIT $2 OFFSET $3`,
      [tag, limit, offset],
    );
    return { items: rows.map(({ total: _total, ...page }) => page), total: rows[0]?.total ?? 0 };
  }

  /** Every tag of a live page with its page count, by name. */
  allTags(): Promise<{ name: string; count: number }[]> {
    return this.dataSource.query(
      `SELECT t AS name, count(*)::int AS count FROM pages, unnest(tags) t WHERE deleted_at IS NULL GROUP BY t ORDER BY lower(t), t`,
    );
  }

  listTrash(): Promise<PageEntity[]> {
    return this.dataSource.manager.find(PageEntity, { where: { deletedAt: Not(IsNull()) }, order: { deletedAt: 'DESC' } });
  }

  async facets(): Promise<{ clusters: { name: string; count: number }[]; tags: { name: string; count: number }[] }> {
    const [clusters, tags] = await Promise.all([
      this.dataSource.query(
        `SELECT c AS name, count(*)::int AS count FROM pages, unnest(clusters) c
          WHERE deleted_at IS NULL GROUP BY c ORDER BY c`,
      ),
      this.dataSource.query(
        `SELECT t AS name, count(*)::int AS count FROM pages, unnest(tags) t
          WHERE deleted_at IS NULL GROUP BY t ORDER BY count(*) DESC, t LIMIT 200`,
      ),
    ]);
    return { clusters, tags };
  }

  listRevisions(pageId: string): Promise<PageRevisionEntity[]> {
    return this.dataSource.manager.find(PageRevisionEntity, { where: { pageId }, order: { version: 'DESC' } });
  }

  findRevision(pageId: string, version: number): Promise<PageRevisionEntity | null> {
    return this.dataSource.manager.findOne(PageRevisionEntity, { where: { pageId, version } });
  }

  async recentChanges(limit: number): Promise<(PageRevisionEntity & { currentSlug: string })[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT r.id, r.page_id, r.version, r.title, r.author, r.message, r.created_at, p.slug AS current_slug
         FROM page_revisions r JOIN pages p ON p.id = r.page_id
        WHERE p.deleted_at IS NULL
        ORDER BY r.created_at DESC, r.version DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id as string, pageId: r.page_id as string, version: r.version as number, slug: r.current_slug as string,
      title: r.title as string, author: r.author as string, message: r.message as string, createdAt: new Date(r.created_at as string),
      body: '', contentHash: '', currentSlug: r.current_slug as string,
    }));
  }

  /**
   * Full-text search over live pages, without snippets (the search evaluation's baseline; readers' search is
   * src/search/). The strict query (every term) runs first; when it finds nothing, any term may
   * match, so a natural-language question still gets answers.
   */
  async fullTextSearch(query: string, limit: number, offset: number): Promise<{ hits: FullTextHit[]; total: number }> {
    for (const mode of ['all', 'any'] as const) {
      const tsquery =
        mode === 'all'
          ? `websearch_to_tsquery('english', $1)`
          : `NULLIF(replace(websearch_to_tsquery('english', $1)::text, '&', '|'), '')::tsquery`;
      const rows: (FullTextHit & { total: number })[] = await this.dataSource.query(
        `WITH q AS (SELECT ${tsquery} AS query)
         SELECT p.slug, p.title, p.cluster, p.tags,
                ts_rank_cd(p.search, q.query, 1 | 4) AS rank, (count(*) OVER ())::int AS total
           FROM pages p, q
          WHERE p.deleted_at IS NULL AND q.query IS NOT NULL AND p.search @@ q.query
          ORDER BY rank DESC, p.title
          LIMIT $2 OFFSET $3`,
        [query, limit, offset],
      );
      if (rows.length > 0 || mode === 'any') {
        return { hits: rows.map(({ total: _total, ...hit }) => hit), total: rows[0]?.total ?? 0 };
      }
    }
    return { hits: [], total: 0 };
  }
}
