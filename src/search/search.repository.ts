import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LRUCache } from 'lru-cache';
import type { PageLink } from './linked-slots.js';
import { preparedQuery } from '../db/prepared-query.js';
import { SEARCH_CORPUS } from '../db/search-corpus.js';
import { MARK_END, MARK_START } from './snippets.js';

/** BM25 parameters and the per-field boosts (the search vector weights title A, aliases and tags B, body C). */
export interface LexicalRankerSettings {
  k1: number;
  b: number;
  titleBoost: number;
  aliasBoost: number;
}

export const DEFAULT_LEXICAL_RANKER: LexicalRankerSettings = { k1: 1.2, b: 0.75, titleBoost: 3, aliasBoost: 2 };

/** Narrowing a search to a cluster (or a sub-cluster), a tag, or a page type. */
export interface SearchFilters {
  cluster?: string;
  tag?: string;
  type?: string;
}

export interface LexicalHit {
  pageId: string;
  score: number;
  /** Each matched query lexeme and what it added to the score. */
  terms: { term: string; contribution: number }[];
}

/** What a result shows: the page, the text its snippet comes from (Markdown) and the section it comes from. */
export interface PageCard {
  pageId: string;
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  type: string | null;
  /** Names `text` for good: `c:` and the chunk's content hash, or `p:` and the page's. */
  textKey: string;
  /**
   * The chunk's text, or the page's Markdown without frontmatter when no chunk matches; null when its key was among
   * those the caller said it holds (`knownTextKeys`).
   */
  text: string | null;
  /** The heading path of the chunk the snippet comes from (empty: the page's top, or no chunk). */
  headingPath: string[];
  /** That chunk's heading id on the rendered page (null: the page's top, no chunk, or not stored yet). */
  anchor: string | null;
}

export interface TitleSuggestion {
  slug: string;
  title: string;
  similarity: number;
}

// Snippets come from the Markdown, not the YAML block at the top.
const BODY_WITHOUT_FRONTMATTER = `regexp_replace(p.body, '^\\uFEFF?---\\r?\\n.*?\\r?\\n(---|\\.\\.\\.)[ \\t]*(\\r?\\n|$)', '')`;


/**
 * How much one page's occurrences of a term can weigh (BM25's saturated, length-normalised term frequency with the
 * default boosts and a fixed typical length): the order of `page_search_terms_impact_idx` (migrations/0007), which
 * this text must match exactly for PostgreSQL to read a term's best pages straight from that index.
 */
const TERM_IMPACT = `((d.tf_a * 3 + d.tf_b * 2 + d.tf_c)::real / ((d.tf_a * 3 + d.tf_b * 2 + d.tf_c) + 1.2 * (0.25 + 0.75 * d.length / 400.0)))`;

/** One term's BM25 contribution in one page, from a page_search_terms row `r` (parameters $4 k1, $5 b, $6/$7 boosts). */
function termScore(r: string, idf: string): string {
  const tf = `(${r}.tf_a * $6::float8 + ${r}.tf_b * $7::float8 + ${r}.tf_c)`;
  return `${idf} * ${tf} * ($4::float8 + 1) / (${tf} + $4::float8 * (1 - $5::float8 + $5::float8 * ${r}.length / c.avgdl))`;
}

/**
 * Runs a query with PostgreSQL's JIT off. The search queries' cost estimates are high enough for the JIT to compile
 * them, which takes longer than running them (tens of milliseconds). Every connection of the pool has it off
 * (`-c jit=off`, src/db/database.module.ts; the embedded database has no JIT): before, each search query took a
 * transaction of its own to SET LOCAL it, three more round trips.
 */
export function withoutJit<T>(dataSource: DataSource, sql: string, params: unknown[]): Promise<T> {
  return dataSource.query(sql, params) as Promise<T>;
}

/**
 * The page holds none of the `-excluded` words (the `unwanted` CTE): one primary-key probe per unwanted word, driven
 * by that (usually empty) list. Written as a join, PostgreSQL read every term of every candidate page instead; and
 * without the `OFFSET 0` fence it turned the inner EXISTS into a hash of every term of every page (a sequential scan
 * of page_search_terms, 60 ms a search with a `-word` at 1,000 pages, against 10 without).
 */
function withoutUnwanted(pageId: string): string {
  return `NOT EXISTS (SELECT 1 FROM unwanted u WHERE EXISTS (SELECT 1 FROM page_search_terms nx WHERE nx.page_id = ${pageId} AND nx.lexeme = u.lexeme OFFSET 0))`;
}

/** The SQL condition on page alias `p` for these filters, its parameters numbered from `first`. */
export function pageFilterSql(filters: SearchFilters, first: number): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (filters.cluster) parts.push(`$${first + params.push(filters.cluster) - 1} = ANY (p.clusters)`);
  if (filters.tag) parts.push(`$${first + params.push(filters.tag) - 1} = ANY (p.tags)`);
  if (filters.type) parts.push(`p.page_type = $${first + params.push(filters.type) - 1}`);
  return { sql: parts.length ? parts.join(' AND ') : 'true', params };
}

/**
 * Words searched for besides the reader's, each set with the weight its terms get (the reader's own words weigh 1).
 * With `whenRare`, only while the reader's word it stands in for is in fewer than `pages` pages (a stopword, which
 * has no stem, never is): decided in the statement that ranks, so it costs no statement of its own.
 */
export interface QueryExpansion {
  words: string;
  weight: number;
  whenRare?: { word: string; pages: number };
}

/**
 * The query's lexemes with their weights: the reader's words (`words`, a text) at 1, each expansion (`expansions`,
 * JSON) at its weight; a lexeme in several at the highest.
 */
const QUERY_TERMS = (words: string, expansions: string) => `SELECT x.lexeme, max(x.w)::float8 AS w FROM (
                SELECT u.lexeme, 1.0::float8 AS w FROM unnest(to_tsvector('english', ${words})) u
                UNION ALL SELECT u.lexeme, e.weight FROM jsonb_to_recordset(${expansions}::jsonb) AS e(words text, weight float8, "whenRare" jsonb)
                  CROSS JOIN LATERAL unnest(to_tsvector('english', e.words)) u
                 WHERE e.weight > 0 AND (e."whenRare" IS NULL OR (
                   length(to_tsvector('english', e."whenRare"->>'word')) > 0
                   AND NOT EXISTS (
                     SELECT 1 FROM unnest(to_tsvector('english', e."whenRare"->>'word')) r
                      WHERE (SELECT count(*) FROM (SELECT 1 FROM page_search_terms d WHERE d.lexeme = r.lexeme LIMIT (e."whenRare"->>'pages')::int) z)
                            >= (e."whenRare"->>'pages')::int)))) x
               GROUP BY x.lexeme`;

/**
 * How many live pages hold one of the query's terms (none of the `-excluded` words): every page in the terms' heads
 * when no term is in more pages than a head holds (`$8`: each head is then all of its term's pages), else a count of
 * the terms' pages, read by lexeme (the `idf` and `heads` CTEs of SearchRepository.lexicalSearch).
 */
const TOTAL_WITHOUT_FILTERS = `CASE WHEN (SELECT coalesce(max(i.df), 0) FROM idf i) <= $8::int THEN (SELECT count(DISTINCT h.page_id) FROM heads h)
         ELSE (SELECT count(*) FROM (
           SELECT d.page_id FROM terms t CROSS JOIN LATERAL (SELECT d.page_id FROM page_search_terms d WHERE d.lexeme = t.lexeme OFFSET 0) d
            WHERE ${withoutUnwanted('d.page_id')} GROUP BY d.page_id) z) END`;

/** A word's lexemes under PostgreSQL's `english` configuration (SearchRepository.wordsOfLexemes). */
const lexemesOfWord = new LRUCache<string, string[]>({ max: 20_000 });

/**
 * The SQL of reader search: a BM25-like ranker over per-page term statistics, fuzzy titles (pg_trgm), result cards.
 * The statements every search runs are prepared statements of their connection (src/db/prepared-query.ts): parsing
 * and planning them again on each search was a sixth of their database time (bench/RESULTS.md, 2026-12-04).
 */
@Injectable()
export class SearchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Live pages matching any of the words (OR: a question never needs every word), best `limit` first, ranked by BM25
   * with the title and alias/tag boosts applied to term frequency before saturation (BM25F-like). Term and document
   * frequencies come from `page_search_terms`, the live-page count and average length from `page_search_totals`
   * (src/db/search-corpus.ts; both kept by triggers in each page write's transaction), so every web process ranks
   * alike. `words` and `excluded` are free text; PostgreSQL stems them and drops stop words.
   *
   * Candidates: for each query term only its `max(300, 2·limit)` highest-impact pages (`headSize`; an index ordered
   * by the saturated, length-normalised term frequency); the `2·limit` pages those heads score best are then scored
   * exactly over all terms, from the heads' own rows where they hold the page's term, else by a probe. A page
   * outside the heads, or ranked low by them, could in principle be missed (WAND-like engines make the same trade);
   * with filters, every matching page is a candidate and scored exactly.
   *
   * The planner takes a query's lexemes for 10 rows (unnest's default estimate) of ~570 pages each, and so joined
   * `page_search_terms` by hashing all of it (two sequential scans of every term of every page, ~50 ms of database
   * CPU per search at 1,000 pages). The two lookups by lexeme are therefore LATERAL subqueries fenced with
   * `OFFSET 0`: an index probe per query term (per candidate page and term for the exact scores), whatever the
   * estimates say.
   *
   * Each hit's matched terms (`read.terms`; only a search that explains itself shows them) are gathered in the same
   * pass that sums its score (two arrays, in no order: rounded and sorted here; an ordered aggregate sorted each hit's
   * terms apart, in the database), and the total counts distinct
   * pages by hashing: a JSON aggregate per hit scanned every scored row again for each of the `limit` hits, and with
   * the sorted count was a sixth of the statement (bench/RESULTS.md, 2026-12-07). A term's document frequency is a
   * count by lexeme, and the total is read from the heads when they hold every page of every term: the statement no
   * longer keeps every posting of the query's terms (a tenth of it at 1,000 pages).
   */
  async lexicalSearch(
    words: string,
    excluded: string,
    limit: number,
    filters: SearchFilters = {},
    settings: LexicalRankerSettings = DEFAULT_LEXICAL_RANKER,
    expansions: readonly QueryExpansion[] = [],
    headSize = Math.max(300, 2 * limit),
    read: { terms: boolean } = { terms: true },
  ): Promise<{ hits: LexicalHit[]; total: number }> {
    const filter = pageFilterSql(filters, 10);
    // With filters every matching page is a candidate, and each of its terms is probed; without, the candidates are
    // the pages the terms' heads score best (below).
    const exactScoring = `per_term AS MATERIALIZED (
              SELECT pt.page_id, pt.lexeme, ${termScore('pt', 'i.idf')} AS contribution
                FROM candidates k CROSS JOIN idf i
                     CROSS JOIN LATERAL (SELECT * FROM page_search_terms pt WHERE pt.page_id = k.page_id AND pt.lexeme = i.lexeme OFFSET 0) pt
                     CROSS JOIN corpus c
               WHERE ${withoutUnwanted('pt.page_id')})`;
    const ranking = filter.params.length
      ? `candidates AS MATERIALIZED (
              SELECT DISTINCT d.page_id FROM idf i JOIN page_search_terms d ON d.lexeme = i.lexeme
               WHERE $8::int > 0 AND EXISTS (SELECT 1 FROM pages p WHERE p.id = d.page_id AND ${filter.sql})),
            ${exactScoring}`
      : // Each term's head: its $8 highest-impact rows, already scored. A term in no more pages than that has all of
        // them in its head, so a candidate's score needs a probe only for terms in more pages (common words), and
        // only where the page is not in that term's head: at 1,000 pages a two-word search probed 200 rows for none.
        `heads AS MATERIALIZED (
              SELECT h.page_id, h.lexeme, x.contribution FROM idf i CROSS JOIN LATERAL (
                SELECT d.page_id, d.lexeme, d.tf_a, d.tf_b, d.tf_c, d.length FROM page_search_terms d
                 WHERE d.lexeme = i.lexeme ORDER BY ${TERM_IMPACT} DESC LIMIT $8::int) h CROSS JOIN corpus c,
                LATERAL (SELECT ${termScore('h', 'i.idf')} AS contribution) x
               WHERE ${withoutUnwanted('h.page_id')}),
            candidates AS MATERIALIZED (
              SELECT h.page_id FROM heads h GROUP BY h.page_id ORDER BY sum(h.contribution) DESC LIMIT 2 * $3::int),
            per_term AS MATERIALIZED (
              SELECT h.page_id, h.lexeme, h.contribution FROM heads h WHERE h.page_id IN (SELECT k.page_id FROM candidates k)
              UNION ALL
              SELECT pt.page_id, pt.lexeme, ${termScore('pt', 'i.idf')} AS contribution
                FROM candidates k CROSS JOIN idf i
                     CROSS JOIN LATERAL (SELECT * FROM page_search_terms pt WHERE pt.page_id = k.page_id AND pt.lexeme = i.lexeme OFFSET 0) pt
                     CROSS JOIN corpus c
               WHERE i.df > $8::int AND NOT EXISTS (SELECT 1 FROM heads h WHERE h.page_id = k.page_id AND h.lexeme = i.lexeme))`;
    const rows = await preparedQuery<{ pageId: string; score: number; lexemes: string[] | null; contributions: number[] | null; total: number }[]>(
      this.dataSource,
      `WITH terms AS MATERIALIZED (
              ${QUERY_TERMS('$1', '$9')}),
            unwanted AS MATERIALIZED (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', $2)) u),
            corpus AS MATERIALIZED (${SEARCH_CORPUS}),
            idf AS MATERIALIZED (
              SELECT t.lexeme, df.df, t.w * ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5)) AS idf
                FROM terms t CROSS JOIN corpus c
                CROSS JOIN LATERAL (SELECT count(*) AS df FROM page_search_terms d WHERE d.lexeme = t.lexeme) df),
            ${ranking},
            scored AS (
              SELECT page_id, sum(contribution) AS score,
                     ${read.terms ? 'array_agg(lexeme) AS lexemes, array_agg(contribution::float8) AS contributions' : 'NULL::text[] AS lexemes, NULL::float8[] AS contributions'}
                FROM per_term GROUP BY page_id
               ORDER BY score DESC, page_id LIMIT $3::int)
       SELECT s.page_id AS "pageId", s.score::float8 AS score, s.lexemes, s.contributions,
              (${filter.params.length ? 'SELECT count(DISTINCT m.page_id) FROM per_term m' : TOTAL_WITHOUT_FILTERS})::int AS total
         FROM scored s
        ORDER BY s.score DESC, s.page_id`,
      [words, excluded, limit, settings.k1, settings.b, settings.titleBoost, settings.aliasBoost, headSize, JSON.stringify(expansions), ...filter.params],
    );
    const hits = rows.map((row): LexicalHit => ({
      pageId: row.pageId,
      score: row.score,
      terms: (row.lexemes ?? [])
        .map((term, i) => ({ term, contribution: Math.round(row.contributions![i] * 10_000) / 10_000 }))
        .sort((a, b) => b.contribution - a.contribution),
    }));
    return { hits, total: rows[0]?.total ?? 0 };
  }

  /** The query's stems as the lexical ranker weighs them: 1 for the reader's words, each expansion's weight for its words. */
  async queryTerms(words: string, expansions: readonly QueryExpansion[] = []): Promise<{ lexeme: string; weight: number }[]> {
    const rows: { lexeme: string; w: number }[] = await preparedQuery(this.dataSource, QUERY_TERMS('$1', '$2'), [words, JSON.stringify(expansions)]);
    return rows.map((r) => ({ lexeme: r.lexeme, weight: Number(r.w) }));
  }

  /**
   * Which of the reader's words each lexeme comes from (the first word that gives it), so that "why this result"
   * shows `configuring`, not `configur`. A word's lexemes depend on nothing but the word (PostgreSQL's `english`
   * configuration), so they are kept in process (a bounded LRU): readers' words repeat, and a search that explains
   * itself sent this statement every time.
   */
  async wordsOfLexemes(words: string[]): Promise<Map<string, string>> {
    const unknown = [...new Set(words.filter((w) => !lexemesOfWord.has(w)))];
    if (unknown.length > 0) {
      const rows: { word: string; lexemes: string[] }[] = await preparedQuery(
        this.dataSource,
        `SELECT t.word, ARRAY(SELECT u.lexeme FROM unnest(to_tsvector('english', t.word)) u ORDER BY u.lexeme) AS lexemes
           FROM unnest($1::text[]) AS t(word)`,
        [unknown],
      );
      for (const row of rows) lexemesOfWord.set(row.word, row.lexemes);
    }
    const wordOf = new Map<string, string>();
    for (const word of words) {
      for (const lexeme of lexemesOfWord.get(word) ?? []) if (!wordOf.has(lexeme)) wordOf.set(lexeme, word);
    }
    return wordOf;
  }

  /**
   * Live page ids among these that hold one of the words (or of the expansions' that apply): the `-excluded` words,
   * which leave every list, not only the lexical one; or the query's, for the pages a linked slot may take.
   */
  async pagesWithWords(pageIds: string[], words: string, expansions: readonly QueryExpansion[] = []): Promise<Set<string>> {
    if (pageIds.length === 0 || !words.trim()) return new Set();
    const rows: { id: string }[] = await preparedQuery(
      this.dataSource,
      `SELECT DISTINCT pt.page_id AS id FROM page_search_terms pt
        WHERE pt.page_id = ANY ($1::uuid[]) AND pt.lexeme IN (SELECT t.lexeme FROM (${QUERY_TERMS('$2', '$3')}) t)`,
      [pageIds, words, JSON.stringify(expansions)],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Live page ids among these that pass the filters, in no particular order. */
  async pagesMatching(pageIds: string[], filters: SearchFilters): Promise<Set<string>> {
    if (pageIds.length === 0) return new Set();
    const filter = pageFilterSql(filters, 2);
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT p.id FROM pages p WHERE p.id = ANY ($1::uuid[]) AND p.deleted_at IS NULL AND ${filter.sql}`,
      [pageIds, ...filter.params],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The cards of the results shown, in the given order: the snippet comes from the given chunk (vector search's
   * closest), else from the chunk that best matches the words, else from the page's text. Chunks are read from
   * `kg_visible_chunks` unless `includeExcluded` (an admin's explicit bypass). The query's tsquery is a MATERIALIZED
   * CTE so that no plan depends on the words: PostgreSQL then keeps one generic plan (src/db/prepared-query.ts). A
   * text whose key the caller holds (`knownTextKeys`: it keeps the sentences of the texts it read before) is not
   * sent again: a page's Markdown is kilobytes, and most searches show pages shown before.
   */
  async pageCards(wanted: { pageId: string; chunkId: string | null; knownTextKeys?: string[] }[], words: string, includeExcluded: boolean): Promise<PageCard[]> {
    if (wanted.length === 0) return [];
    const chunks = includeExcluded ? 'kg_content_chunks' : 'kg_visible_chunks';
    return preparedQuery(
      this.dataSource,
      `WITH q AS MATERIALIZED (SELECT NULLIF(replace(plainto_tsquery('english', $2)::text, '&', '|'), '')::tsquery AS anyq),
            wanted AS (SELECT x.page_id, x.chunk_id, x.ord, x.known FROM jsonb_to_recordset($1::jsonb) AS x(page_id uuid, chunk_id bigint, ord int, known text[]))
       SELECT p.id AS "pageId", p.slug, p.title, p.cluster, p.tags, p.page_type AS type,
              coalesce(ch.heading_path, '{}') AS "headingPath", ch.anchor, k.key AS "textKey",
              CASE WHEN k.key = ANY (w.known) THEN NULL ELSE coalesce(ch.text, ${BODY_WITHOUT_FRONTMATTER}) END AS text
         FROM wanted w CROSS JOIN LATERAL (SELECT * FROM pages p WHERE p.id = w.page_id OFFSET 0) p CROSS JOIN q
         LEFT JOIN LATERAL (
              SELECT c.heading_path, c.anchor, c.text, c.content_hash FROM ${chunks} c
               WHERE c.page_id = p.id AND (c.id = w.chunk_id OR (w.chunk_id IS NULL AND q.anyq IS NOT NULL AND c.search @@ q.anyq))
               ORDER BY (c.id = w.chunk_id) DESC NULLS LAST, ts_rank(c.search, coalesce(q.anyq, ''::tsquery)) DESC, c.position
               LIMIT 1) ch ON true
         CROSS JOIN LATERAL (SELECT CASE WHEN ch.content_hash IS NOT NULL THEN 'c:' || ch.content_hash ELSE 'p:' || p.content_hash END AS key) k
        ORDER BY w.ord`,
      [JSON.stringify(wanted.map((w, ord) => ({ page_id: w.pageId, chunk_id: w.chunkId, ord, known: w.knownTextKeys ?? [] }))), words],
    );
  }

  /**
   * For each card, the best of its candidate sentences for the words (ts_rank_cd, PostgreSQL's stemming) and the
   * sentences around it with the matched words between MARK_START and MARK_END (the reader's words, as the text
   * writes them). The tsquery is a MATERIALIZED CTE, as in `pageCards`.
   */
  async markSentences(sentences: { card: number; i: number; sentence: string; candidate: boolean }[], words: string): Promise<{ card: number; best: number; i: number; marked: string }[]> {
    if (sentences.length === 0) return [];
    return preparedQuery(
      this.dataSource,
      `WITH q AS MATERIALIZED (SELECT NULLIF(replace(plainto_tsquery('english', $2)::text, '&', '|'), '')::tsquery AS anyq),
            s AS (SELECT x.card, x.i, x.sentence, x.candidate FROM jsonb_to_recordset($1::jsonb) AS x(card int, i int, sentence text, candidate boolean)),
            best AS (SELECT DISTINCT ON (s.card) s.card, s.i FROM s CROSS JOIN q WHERE s.candidate
                      ORDER BY s.card, CASE WHEN q.anyq IS NULL THEN 0 ELSE ts_rank_cd(to_tsvector('english', s.sentence), q.anyq) END DESC, s.i)
       SELECT b.card, b.i AS best, s.i,
              CASE WHEN q.anyq IS NULL THEN s.sentence
                   ELSE ts_headline('english', s.sentence, q.anyq, $3) END AS marked
         FROM best b JOIN s ON s.card = b.card AND s.i BETWEEN b.i - 3 AND b.i + 3 CROSS JOIN q`,
      [JSON.stringify(sentences), words, `HighlightAll=true, StartSel=${MARK_START}, StopSel=${MARK_END}`],
    );
  }

  /**
   * The Page Graph's links from these pages to live pages that pass the filters, with each target's inlink count
   * (page_links is the Page Graph's own table; read here like `pages`, for ranking only), and whether the target
   * holds one of the query's words or of its expansions' that apply (`holdsWords`): a linked slot needs that or
   * another reason, and asking it here spares the search a statement of its own. The page ids are behind a scalar
   * subquery so that no plan depends on how many there are (src/db/prepared-query.ts), and drive the statement: each
   * id an index probe of page_links, each target a probe of pages (LATERAL, fenced with OFFSET 0). Written as a join
   * with `= ANY(…)`, its generic plan read every link and every page by a sequential scan in every search (2.7 of
   * 3 ms at 1,000 pages, and growing with the wiki). `holdsWords` is a probe per target and query term too: as a join
   * of the terms with the target's rows, it was planned as a hash of every term of every target (a hit linking to a
   * hundred pages read 12,000 rows: 8 of 9 ms).
   */
  linksFrom(pageIds: string[], filters: SearchFilters, words: string, expansions: readonly QueryExpansion[] = []): Promise<(PageLink & { holdsWords: boolean })[]> {
    if (pageIds.length === 0) return Promise.resolve([]);
    const filter = pageFilterSql(filters, 4);
    return preparedQuery(
      this.dataSource,
      `WITH terms AS MATERIALIZED (${QUERY_TERMS('$2', '$3')}),
            links AS MATERIALIZED (
              SELECT DISTINCT l.from_page_id, l.resolved_page_id FROM unnest((SELECT $1::uuid[])) AS f(id)
               CROSS JOIN LATERAL (SELECT l.from_page_id, l.resolved_page_id FROM page_links l WHERE l.from_page_id = f.id OFFSET 0) l
               CROSS JOIN LATERAL (SELECT p.deleted_at, p.clusters, p.tags, p.page_type FROM pages p WHERE p.id = l.resolved_page_id OFFSET 0) p
               WHERE l.resolved_page_id <> l.from_page_id AND p.deleted_at IS NULL AND ${filter.sql})
       SELECT l.from_page_id AS "fromId", l.resolved_page_id AS "toId",
              (SELECT count(DISTINCT i.from_page_id) FROM page_links i WHERE i.resolved_page_id = l.resolved_page_id)::int AS inlinks,
              EXISTS (SELECT 1 FROM terms t
                       CROSS JOIN LATERAL (SELECT 1 FROM page_search_terms pt WHERE pt.page_id = l.resolved_page_id AND pt.lexeme = t.lexeme OFFSET 0) pt) AS "holdsWords"
         FROM links l`,
      [pageIds, words, JSON.stringify(expansions), ...filter.params],
    );
  }

  /**
   * Live pages whose title or an alias resembles the text (pg_trgm word similarity), most similar first. The trigram
   * indexes of migration 0028 find the candidates (`<%` under the threshold, set for this transaction only); each is
   * then scored exactly, title and every alias apart.
   */
  async similarTitles(text: string, limit: number, threshold = 0.45): Promise<(TitleSuggestion & { pageId: string })[]> {
    return this.dataSource.transaction(async (db) => {
      await db.query(`SELECT set_config('pg_trgm.word_similarity_threshold', $1, true)`, [String(threshold)]);
      return db.query(
        `SELECT id AS "pageId", slug, title, similarity::float8 AS similarity FROM (
           SELECT p.id, p.slug, p.title,
                  greatest(word_similarity(lower($1), lower(p.title)),
                           coalesce((SELECT max(word_similarity(lower($1), lower(a))) FROM unnest(p.aliases) a), 0)) AS similarity
             FROM pages p
            WHERE p.deleted_at IS NULL
              AND (lower($1) <% lower(p.title) OR (cardinality(p.aliases) > 0 AND lower($1) <% kurate_aliases_text(p.aliases)))) s
          WHERE similarity >= $3
          ORDER BY similarity DESC, title LIMIT $2`,
        [text, limit, threshold],
      );
    });
  }

  /** Live pages whose title starts with, or contains, the typed text: the search box's suggestions. */
  async titlesStartingWith(prefix: string, limit: number): Promise<{ slug: string; title: string }[]> {
    return this.dataSource.query(
      `SELECT slug, title FROM pages
        WHERE deleted_at IS NULL AND (title ILIKE $1 || '%' ESCAPE '\\' OR title ILIKE '%' || $1 || '%' ESCAPE '\\')
        ORDER BY (title ILIKE $1 || '%' ESCAPE '\\') DESC, length(title), title LIMIT $2`,
      [prefix.replace(/[\\%_]/g, (c) => `\\${c}`), limit],
    );
  }
}
