import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { lockKeysSql } from '../db/advisory-locks.js';
import { SHARE_PAGE_DECISION_GATE_SQL } from '../db/page-decision-gate.js';
import { preparedQuery } from '../db/prepared-query.js';
import { returnedRows } from '../db/sql-rows.js';
import type { BodyLink, LinkKind } from './markdown/wikilinks.js';
import type { Announcement } from './page-change-feed.js';

export type LinkWrite = BodyLink;

/** The link keys a page write takes turns on (PageLinksRepository.lockKeys). */
export interface LinkKeyTurns {
  /** Keys whose resolution the write may change: held alone. */
  changes: readonly string[];
  /** Keys the write only resolves: held shared. */
  reads: readonly string[];
}

/** A live page that links to a page being renamed, as read (and locked) for its links to be rewritten. */
export interface LinkingSource {
  id: string;
  slug: string;
  title: string;
  body: string;
  version: number;
}

export interface LinkedPage {
  slug: string;
  title: string;
  cluster: string | null;
}

export interface OutboundLink {
  kind: LinkKind;
  target: string;
  targetKey: string;
  heading: string | null;
  page: LinkedPage | null;
}

export interface WantedPage {
  targetKey: string;
  target: string;
  wantedBy: number;
  fromPages: LinkedPage[];
}

export interface GraphEdge {
  from: string;
  to: string;
}

// The live page a key names: the page whose slug is the key first, then the oldest page using it as title or alias.
export const RESOLVE_KEY = (key: string) => `(SELECT p.id FROM pages p
   WHERE p.link_keys @> ARRAY[${key}] AND p.deleted_at IS NULL
   ORDER BY (p.slug = ${key}) DESC, p.created_at, p.id LIMIT 1)`;

/** `wanted`: a page's links ($2–$5: kinds, targets, keys, headings) in order, each resolved to a live page or null. */
const WANTED_LINKS_CTE = `wanted AS (
              SELECT l.kind, l.target, l.key, l.heading, l.position::int AS position, ${RESOLVE_KEY('l.key')} AS resolved
                FROM unnest((SELECT $2::text[]), (SELECT $3::text[]), (SELECT $4::text[]), (SELECT $5::text[]))
                     WITH ORDINALITY AS l(kind, target, key, heading, position))`;

/**
 * CTEs that replace a page's outbound links ($1 the page; $2–$5 the links' kinds, targets, keys and headings), and
 * `linked`: the pages it linked to before and links to now (their backlinks may have changed; null for a broken link).
 * Only the links that changed are written: most saves keep a page's links as they were, and deleting and inserting
 * them all left a dead row and new index entries per link on every save. The links gone and the links kept have
 * different keys, so the DELETE and the upsert never touch the same row; `before` reads the links as they were when
 * the statement began. The arrays sit behind scalar subqueries, so that PostgreSQL keeps one generic plan for every
 * save (src/db/prepared-query.ts).
 */
const OUTBOUND_LINKS_CTES = `${WANTED_LINKS_CTE},
            before AS (SELECT resolved_page_id FROM page_links WHERE from_page_id = $1),
            -- Data-modifying CTEs run to completion whether or not the query reads them.
            gone AS (DELETE FROM page_links WHERE from_page_id = $1 AND target_key <> ALL ((SELECT $4::text[])::text[])),
            kept AS (
              INSERT INTO page_links AS pl (from_page_id, kind, target, target_key, heading, position, resolved_page_id)
              SELECT $1, w.kind, w.target, w.key, w.heading, w.position, w.resolved FROM wanted w
               -- A link as it was is left out here rather than by the DO UPDATE's WHERE, which locks (writes) the row first.
               WHERE NOT EXISTS (
                 SELECT 1 FROM page_links o WHERE o.from_page_id = $1 AND o.target_key = w.key
                    AND (o.kind, o.target, o.heading, o.position, o.resolved_page_id) IS NOT DISTINCT FROM (w.kind, w.target, w.heading, w.position, w.resolved))
              ON CONFLICT (from_page_id, target_key) DO UPDATE
                 SET kind = excluded.kind, target = excluded.target, heading = excluded.heading, position = excluded.position,
                     resolved_page_id = excluded.resolved_page_id),
            linked AS (SELECT b.resolved_page_id AS id FROM before b UNION SELECT w.resolved FROM wanted w)`;

const outboundLinksParams = (pageId: string, links: LinkWrite[]) =>
  [pageId, links.map((l) => l.kind), links.map((l) => l.target), links.map((l) => l.targetKey), links.map((l) => l.heading)];

/** A page that may embed a changed page (EMBEDDERS_CTE), with what refreshing its transcluded words takes. */
export interface EmbedderRow {
  id: string;
  slug: string;
  version: number;
  body: string;
}

/**
 * A CTE `embedders` (id, slug, version, body): the live pages other than `ids` (a uuid[] expression) that link to
 * one of them or to one of `keys` (a text[] expression) and hold an embed, whose transcluded text may have changed
 * when those pages changed. Every save reads them, as a prepared statement whose one plan must serve any ids and
 * keys: it is driven by them, each id and key an index probe of page_links and each linking page a probe of pages by
 * its key (LATERAL, fenced with OFFSET 0), and the arrays sit behind scalar subqueries so that no plan depends on
 * their values (src/db/prepared-query.ts). Written as a join with `= ANY(…)`, it was planned again on every save,
 * and its generic plan scanned every page's body and every link (14 ms a save at 1,000 pages; bench/RESULTS.md,
 * 2026-12-07).
 */
export const EMBEDDERS_CTE = (ids: string, keys: string) => `embedders AS MATERIALIZED (
       WITH linking AS MATERIALIZED (
              SELECT l.from_page_id FROM unnest((SELECT ${ids})) AS t(id)
               CROSS JOIN LATERAL (SELECT l.from_page_id FROM page_links l WHERE l.resolved_page_id = t.id OFFSET 0) l
              UNION
              SELECT l.from_page_id FROM unnest((SELECT ${keys})) AS k(key)
               CROSS JOIN LATERAL (SELECT l.from_page_id FROM page_links l WHERE l.target_key = k.key OFFSET 0) l)
       SELECT p.id, p.slug, p.version, p.body
         FROM linking h CROSS JOIN LATERAL (SELECT p.id, p.slug, p.version, p.body, p.deleted_at FROM pages p WHERE p.id = h.from_page_id OFFSET 0) p
        WHERE p.deleted_at IS NULL AND NOT p.id = ANY ((SELECT ${ids})::uuid[]) AND strpos(p.body, '![[') > 0)`;

/** The embedders (EMBEDDERS_CTE) as one JSON array of EmbedderRow, for a statement that returns them with other things. */
const EMBEDDERS_JSON = `(SELECT coalesce(json_agg(json_build_object('id', e.id, 'slug', e.slug, 'version', e.version, 'body', e.body)), '[]'::json) FROM embedders e)`;

/**
 * An UPDATE that resolves again the links `match` selects (a condition on page_links), writing only those whose
 * target changes: after a page appears, goes or changes its names.
 */
const RESOLVE_AGAIN = (match: string) => `UPDATE page_links SET resolved_page_id = ${RESOLVE_KEY('target_key')}
        WHERE ${match}
          AND resolved_page_id IS DISTINCT FROM ${RESOLVE_KEY('target_key')}`;

// A NOTIFY payload must stay under 8000 bytes; a longer list of slugs is announced as "anything changed".
const MAX_NOTIFY_BYTES = 7_900;

/** An announcement's payload naming the pages of `slugs` (a json array) as sent by `sender` (a text parameter). */
const PAGES_PAYLOAD = (slugs: string, sender: string) => `json_build_object('by', ${sender}::text, 'pages', ${slugs})::text`;

/**
 * SQL that NOTIFYs `payload` (PAGES_PAYLOAD) on `channel` when one is given (text parameters), or "anything may have
 * changed" (no pages) when the payload would not fit in one notification.
 */
const NOTIFY_PAGES = (payload: string, channel: string, sender: string) => `CASE WHEN (SELECT ${channel}::text) IS NOT NULL THEN pg_notify(${channel}::text,
                CASE WHEN octet_length(${payload}) <= ${MAX_NOTIFY_BYTES} THEN ${payload} ELSE json_build_object('by', ${sender}::text)::text END) END`;

/** Advisory-lock namespace for link keys (any constant; src/db/advisory-locks.ts). */
export const LINK_KEY_LOCKS = 7_104_263;

/** All SQL over the Page Graph (`page_links`). */
@Injectable()
export class PageLinksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The first statement of a page write. It takes the page decision gate shared (src/db/page-decision-gate.ts: the
   * write's listeners decide about the page, and a policy change waits for them), then this transaction's turn on
   * link keys (sorted, so two writers never wait on each other crosswise) and, with a channel, NOTIFYs it (delivered
   * when the transaction commits). `changes`: the keys whose resolution the write may change (a page's names when it
   * appears, goes, or is renamed), each held alone; `reads`: the keys it only resolves (the pages it links to, its
   * names when they stay), held shared. So saves that link to one page go on together, and each waits only for a
   * write that changes what one of its keys resolves to. The gate is taken before any key (the FROM clause runs
   * first): a write waiting for a policy change holds no key another write could wait for.
   */
  async lockKeys(keys: LinkKeyTurns, db: EntityManager, announce: Announcement | null = null): Promise<void> {
    await preparedQuery(
      db,
      `SELECT ${lockKeysSql(LINK_KEY_LOCKS, '$1::text[]', '$4::text[]')} AS locked,
              CASE WHEN $2::text IS NOT NULL THEN pg_notify($2::text, json_build_object('by', $3::text)::text) END AS notified
         FROM (SELECT ${SHARE_PAGE_DECISION_GATE_SQL} AS gate) gate`,
      [keys.changes, announce?.channel ?? null, announce?.sender ?? null, keys.reads],
    );
  }

  /**
   * Replaces a page's outbound links, resolving each target to a live page in the same statement. Returns the pages
   * it linked to before and links to now (their backlinks may have changed).
   */
  async replaceOutbound(pageId: string, links: LinkWrite[], db: EntityManager): Promise<string[]> {
    // One statement, writing only the links that changed (OUTBOUND_LINKS_CTES).
    const rows: { id: string | null }[] = await preparedQuery(
      db,
      `WITH ${OUTBOUND_LINKS_CTES}
       SELECT l.id FROM linked l`,
      outboundLinksParams(pageId, links),
    );
    return [...new Set(rows.flatMap((r) => (r.id ? [r.id] : [])))];
  }

  /**
   * An edit's links and what follows from them, in one statement (they were three round trips in the save's
   * transaction): replaces the page's outbound links as replaceOutbound does, reads the pages that may embed it
   * (EMBEDDERS_CTE, with its `keys`), and names the pages the edit changed for readers as far as this statement knows
   * them: the page, those whose backlinks changed (`backlinksChanged`) and those embedders (`announced`: their ids and
   * slugs), NOTIFYing them with an announcement as announcePages does. A page's backlinks list the pages that link to
   * it, each by its title and cluster: with `sameBacklinks` (the edit keeps this page's cluster) only the pages it
   * starts or stops linking to see theirs change; without, every page it links to, before or now. For an edit that
   * keeps the page's names: no link elsewhere resolves differently, and the embedders read here are those the
   * transclusion refresh would read after the links.
   */
  async replaceOutboundOfEdit(
    pageId: string,
    links: LinkWrite[],
    keys: readonly string[],
    sameBacklinks: boolean,
    db: EntityManager,
    announce: Announcement | null,
  ): Promise<{ backlinksChanged: string[]; embedders: EmbedderRow[]; announced: { ids: string[]; slugs: string[] } }> {
    const [row]: { backlinksChanged: string[]; embedders: EmbedderRow[]; ids: string[]; slugs: string[] }[] = await preparedQuery(
      db,
      `WITH ${OUTBOUND_LINKS_CTES},
            ${EMBEDDERS_CTE('ARRAY[$1]::uuid[]', '$6::text[]')},
            -- The pages whose backlinks now list this page differently: those it links to before and not now, or now
            -- and not before (every one when the edit changes what its backlink shows).
            relinked AS (
              SELECT l.id FROM linked l
               WHERE l.id IS NOT NULL
                 AND (NOT (SELECT $9::boolean)
                      OR EXISTS (SELECT 1 FROM before b WHERE b.resolved_page_id = l.id) <> EXISTS (SELECT 1 FROM wanted w WHERE w.resolved = l.id))),
            -- Each page named is a probe of pages by its key (a join planned for the ids' estimate scanned every page).
            named AS (
              SELECT coalesce(json_agg(p.id), '[]'::json) AS ids, coalesce(json_agg(p.slug), '[]'::json) AS slugs
                FROM (SELECT $1::uuid AS id UNION SELECT r.id FROM relinked r UNION SELECT e.id FROM embedders e) x
               CROSS JOIN LATERAL (SELECT p.id, p.slug FROM pages p WHERE p.id = x.id OFFSET 0) p),
            payload AS (SELECT n.ids, n.slugs, ${PAGES_PAYLOAD('n.slugs', '$8')} AS payload FROM named n)
       SELECT (SELECT coalesce(json_agg(r.id), '[]'::json) FROM relinked r) AS "backlinksChanged",
              ${EMBEDDERS_JSON} AS embedders,
              n.ids, n.slugs, ${NOTIFY_PAGES('n.payload', '$7', '$8')} AS notified
         FROM payload n`,
      [...outboundLinksParams(pageId, links), keys, announce?.channel ?? null, announce?.sender ?? null, sameBacklinks],
    );
    return { backlinksChanged: row.backlinksChanged, embedders: row.embedders, announced: { ids: row.ids, slugs: row.slugs } };
  }

  /**
   * A created page's links and what follows from them, in one statement (they were three round trips in the save's
   * transaction): its outbound links inserted (it has none yet), each resolved; the links elsewhere that name one of
   * its `keys` resolved again (as reresolve does: a broken link to it now reaches it); and the pages that may embed it
   * read (EMBEDDERS_CTE). All three see the wiki as it was before the statement, the page's row included: the
   * embedders are found by the links naming its keys, which are the links the reresolve points at it (no link pointed
   * at its new id before), so they are the pages a read after the reresolve would find.
   */
  async insertOutboundOfNew(pageId: string, links: LinkWrite[], keys: readonly string[], db: EntityManager): Promise<EmbedderRow[]> {
    const [row]: { embedders: EmbedderRow[] }[] = await preparedQuery(
      db,
      `WITH ${WANTED_LINKS_CTE},
            inserted AS (
              INSERT INTO page_links (from_page_id, kind, target, target_key, heading, position, resolved_page_id)
              SELECT $1, w.kind, w.target, w.key, w.heading, w.position, w.resolved FROM wanted w),
            reresolved AS (
              ${RESOLVE_AGAIN('target_key = ANY ((SELECT $6::text[])::text[])')}),
            ${EMBEDDERS_CTE('ARRAY[$1]::uuid[]', '$6::text[]')}
       SELECT ${EMBEDDERS_JSON} AS embedders`,
      [...outboundLinksParams(pageId, links), keys],
    );
    return row.embedders;
  }

  /**
   * The slugs of these pages; with an announcement, also NOTIFYs its channel naming them (delivered when the
   * transaction commits), or naming none (anything may have changed) when they would not fit in one notification.
   * The ids and the channel sit behind scalar subqueries, so that every save runs one generic plan (src/db/prepared-query.ts).
   */
  async announcePages(pageIds: string[], db: EntityManager, announce: Announcement | null): Promise<string[]> {
    const [row]: { slugs: string[] }[] = await preparedQuery(
      db,
      `WITH s AS (SELECT coalesce(json_agg(DISTINCT p.slug), '[]'::json) AS slugs FROM pages p WHERE p.id = ANY ((SELECT $1::uuid[])::uuid[])),
            named AS (SELECT s.slugs, ${PAGES_PAYLOAD('s.slugs', '$3')} AS payload FROM s)
       SELECT n.slugs, ${NOTIFY_PAGES('n.payload', '$2', '$3')} AS notified
         FROM named n`,
      [pageIds, announce?.channel ?? null, announce?.sender ?? null],
    );
    return row.slugs;
  }

  /**
   * After a page appears, disappears or changes its keys: links that named one of `keys` (or pointed at the page)
   * are resolved again, so broken links turn into resolved ones at once and vice versa.
   */
  async reresolve(pageId: string, keys: string[], db: EntityManager): Promise<string[]> {
    // Only the links whose target changes are written; the pages they are on are returned (their rendering changed).
    const rows = returnedRows<{ id: string }>(await preparedQuery(
      db,
      `${RESOLVE_AGAIN('(resolved_page_id = $1 OR target_key = ANY($2::text[]))')}
       RETURNING from_page_id AS id`,
      [pageId, keys],
    ));
    return [...new Set(rows.map((r) => r.id))];
  }

  /** Every link resolved again (after a restore rebuilt every page's links and keys); returns how many moved. */
  async resolveAll(db: EntityManager): Promise<number> {
    const [, changed]: [unknown[], number] = await db.query(
      `UPDATE page_links SET resolved_page_id = r.id
         FROM (SELECT l.id AS link_id, ${RESOLVE_KEY('l.target_key')} AS id FROM page_links l) r
        WHERE page_links.id = r.link_id AND page_links.resolved_page_id IS DISTINCT FROM r.id`,
    );
    return changed;
  }

  /** Live pages (other than the page itself) that link to a page, with what a rewrite of their text needs. */
  sourcesLinkingTo(pageId: string, db: EntityManager): Promise<LinkingSource[]> {
    // Locked (in id order) before they are read: an edit of one of them that drops the link takes no lock the
    // renaming write holds, and read unlocked it could commit between this read and the rewrite, which would then
    // miss its version. A row locked here is read as last committed (a page trashed meanwhile drops out).
    return db.query(
      `SELECT p.id, p.slug, p.title, p.body, p.version FROM pages p
        WHERE p.id IN (SELECT l.from_page_id FROM page_links l WHERE l.resolved_page_id = $1)
          AND p.deleted_at IS NULL AND p.id <> $1
        ORDER BY p.id
          FOR UPDATE OF p`,
      [pageId],
    );
  }

  /** Resolves link keys to live pages without writing anything (the editor's live preview). */
  async resolveKeys(keys: string[]): Promise<Map<string, { slug: string; title: string }>> {
    if (keys.length === 0) return new Map();
    const rows: { key: string; slug: string; title: string }[] = await this.dataSource.query(
      `SELECT k.key, p.slug, p.title FROM unnest($1::text[]) AS k(key) JOIN pages p ON p.id = ${RESOLVE_KEY('k.key')}`,
      [keys],
    );
    return new Map(rows.map((r) => [r.key, { slug: r.slug, title: r.title }]));
  }

  async outbound(pageId: string): Promise<OutboundLink[]> {
    const rows: Record<string, string | null>[] = await this.dataSource.query(
      `SELECT l.kind, l.target, l.target_key, l.heading, p.slug, p.title, p.cluster
         FROM page_links l LEFT JOIN pages p ON p.id = l.resolved_page_id
        WHERE l.from_page_id = $1 ORDER BY l.position`,
      [pageId],
    );
    return rows.map((r) => ({
      kind: r.kind as LinkKind,
      target: r.target!,
      targetKey: r.target_key!,
      heading: r.heading,
      page: r.slug ? { slug: r.slug, title: r.title!, cluster: r.cluster } : null,
    }));
  }

  backlinks(pageId: string): Promise<LinkedPage[]> {
    return this.dataSource.query(
      `SELECT DISTINCT p.slug, p.title, p.cluster
         FROM page_links l JOIN pages p ON p.id = l.from_page_id
        WHERE l.resolved_page_id = $1 AND p.deleted_at IS NULL AND p.id <> $1
        ORDER BY p.title`,
      [pageId],
    );
  }

  /** Broken links grouped by target (a link that reached a stored file is not broken): the pages worth writing, most wanted first. */
  async wanted(limit: number, offset: number): Promise<{ items: WantedPage[]; total: number }> {
    const rows: { target_key: string; target: string; wanted_by: number; from_pages: LinkedPage[]; total: number }[] =
      await this.dataSource.query(
        `SELECT l.target_key, min(l.target) AS target, count(DISTINCT l.from_page_id)::int AS wanted_by,
                json_agg(DISTINCT jsonb_build_object('slug', p.slug, 'title', p.title, 'cluster', p.cluster)) AS from_pages,
                count(*) OVER ()::int AS total
           FROM page_links l JOIN pages p ON p.id = l.from_page_id
          WHERE l.resolved_page_id IS NULL AND l.resolved_attachment_id IS NULL AND p.deleted_at IS NULL
          GROUP BY l.target_key
          ORDER BY wanted_by DESC, l.target_key
          LIMIT $1 OFFSET $2`,
        [limit, offset],
      );
    return {
      items: rows.map((r) => ({ targetKey: r.target_key, target: r.target, wantedBy: r.wanted_by, fromPages: r.from_pages })),
      total: rows[0]?.total ?? 0,
    };
  }

  /** Live pages no other live page links to. */
  async orphans(limit: number, offset: number): Promise<{ items: LinkedPage[]; total: number }> {
    const rows: (LinkedPage & { total: number })[] = await this.dataSource.query(
      `SELECT p.slug, p.title, p.cluster, count(*) OVER ()::int AS total
         FROM pages p
        WHERE p.deleted_at IS NULL AND NOT EXISTS (
                SELECT 1 FROM page_links l JOIN pages src ON src.id = l.from_page_id
                 WHERE l.resolved_page_id = p.id AND src.deleted_at IS NULL AND src.id <> p.id)
        ORDER BY lower(p.title) LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    return { items: rows.map(({ total: _t, ...page }) => page), total: rows[0]?.total ?? 0 };
  }

  /** The most linked-to live pages, by how many distinct live pages link to them. */
  async hubs(limit: number): Promise<(LinkedPage & { inbound: number })[]> {
    return this.dataSource.query(
      `SELECT p.slug, p.title, p.cluster, count(DISTINCT l.from_page_id)::int AS inbound
         FROM page_links l JOIN pages p ON p.id = l.resolved_page_id JOIN pages src ON src.id = l.from_page_id
        WHERE p.deleted_at IS NULL AND src.deleted_at IS NULL AND src.id <> p.id
        GROUP BY p.id ORDER BY inbound DESC, lower(p.title) LIMIT $1`,
      [limit],
    );
  }

  /** Edges between live pages within `hops` of a page, in either direction (bounded by `maxNodes`). */
  async neighbourhood(pageId: string, hops: number, maxNodes: number): Promise<{ nodes: (LinkedPage & { id: string; depth: number })[]; edges: GraphEdge[] }> {
    const nodes: (LinkedPage & { id: string; depth: number })[] = await this.dataSource.query(
      `WITH RECURSIVE walk(id, depth) AS (
          SELECT $1::uuid, 0
          UNION
          SELECT CASE WHEN l.from_page_id = w.id THEN l.resolved_page_id ELSE l.from_page_id END, w.depth + 1
            FROM walk w JOIN page_links l ON (l.from_page_id = w.id OR l.resolved_page_id = w.id)
           WHERE w.depth < $2 AND l.resolved_page_id IS NOT NULL)
       SELECT p.id, p.slug, p.title, p.cluster, min(w.depth)::int AS depth
         FROM walk w JOIN pages p ON p.id = w.id
        WHERE p.deleted_at IS NULL
        GROUP BY p.id ORDER BY depth, lower(p.title) LIMIT $3`,
      [pageId, hops, maxNodes],
    );
    const ids = nodes.map((n) => n.id);
    const edges: { from_slug: string; to_slug: string }[] = await this.dataSource.query(
      `SELECT DISTINCT f.slug AS from_slug, t.slug AS to_slug
         FROM page_links l JOIN pages f ON f.id = l.from_page_id JOIN pages t ON t.id = l.resolved_page_id
        WHERE l.from_page_id = ANY($1::uuid[]) AND l.resolved_page_id = ANY($1::uuid[]) AND f.id <> t.id`,
      [ids],
    );
    return { nodes, edges: edges.map((e) => ({ from: e.from_slug, to: e.to_slug })) };
  }

  /** Counts for the import summary and the reports page. */
  async counts(): Promise<{ resolved: number; broken: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE l.resolved_page_id IS NOT NULL OR l.resolved_attachment_id IS NOT NULL)::int AS resolved,
              count(*) FILTER (WHERE l.resolved_page_id IS NULL AND l.resolved_attachment_id IS NULL)::int AS broken
         FROM page_links l JOIN pages p ON p.id = l.from_page_id WHERE p.deleted_at IS NULL`,
    );
    return row;
  }
}
