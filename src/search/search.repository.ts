import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** BM25 parameters and the per-field boosts (the search vector weights title A, aliases and tags B, body C). */
export interface LexicalRankerSettings {
  k1: number;
  b: number;
  titleBoost: number;
  aliasBoost: number;
}

export const DEFAULT_LEXICAL_RANKER: LexicalRankerSettings = { k1: 1.2, b: 0.75, titleBoost: 3, aliasBoost: 2 };

export interface LexicalHit {
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  /** Plain text with the matched words between ⟦ and ⟧. */
  snippet: string;
  score: number;
  /** Each matched query lexeme and what it added to the score. */
  terms: { term: string; contribution: number }[];
}

export interface TitleSuggestion {
  slug: string;
  title: string;
  similarity: number;
}

// Snippets come from the Markdown, not the YAML block at the top.
const BODY_WITHOUT_FRONTMATTER = `regexp_replace(p.body, '^\\uFEFF?---\\r?\\n.*?\\r?\\n(---|\\.\\.\\.)[ \\t]*(\\r?\\n|$)', '')`;

/** The SQL of reader search: a BM25-like ranker over the pages' search vectors, and fuzzy titles (pg_trgm). */
@Injectable()
export class SearchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Pages matching any of the words (OR: a question never needs every word), ranked by BM25 with the title and
   * alias/tag boosts applied to term frequency before saturation (BM25F-like). Document frequencies, the page count
   * and the average length are read from the database per query, so every web process ranks alike.
   * `words` and `excluded` are free text; PostgreSQL stems them and drops stop words.
   */
  async lexicalSearch(words: string, excluded: string, limit: number, offset: number, settings: LexicalRankerSettings = DEFAULT_LEXICAL_RANKER): Promise<{ hits: LexicalHit[]; total: number }> {
    const rows: (LexicalHit & { total: number })[] = await this.dataSource.query(
      `WITH terms AS MATERIALIZED (
              SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', $1)) u),
            q AS (
              SELECT NULLIF(replace(plainto_tsquery('english', $1)::text, '&', '|'), '')::tsquery AS anyq,
                     NULLIF(replace(plainto_tsquery('english', $2)::text, '&', '|'), '')::tsquery AS notq),
            corpus AS MATERIALIZED (
              SELECT (SELECT count(*) FROM pages WHERE deleted_at IS NULL) AS n,
                     (SELECT greatest(avg(length), 1) FROM page_search_stats) AS avgdl),
            idf AS MATERIALIZED (
              SELECT t.lexeme,
                     ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5)) AS idf
                FROM terms t, corpus c,
                     LATERAL (SELECT count(*) AS df FROM pages p
                               WHERE p.deleted_at IS NULL AND p.search @@ quote_literal(t.lexeme)::tsquery) df),
            candidates AS MATERIALIZED (
              SELECT p.id, p.search, s.length
                FROM pages p JOIN page_search_stats s ON s.page_id = p.id, q
               WHERE p.deleted_at IS NULL AND q.anyq IS NOT NULL AND p.search @@ q.anyq
                 AND (q.notq IS NULL OR NOT p.search @@ q.notq)),
            per_term AS (
              SELECT c.id, i.lexeme,
                     i.idf * tf.tf * ($5::float8 + 1) / (tf.tf + $5::float8 * (1 - $6::float8 + $6::float8 * c.length / corpus.avgdl)) AS contribution
                FROM candidates c, corpus,
                     LATERAL unnest(c.search) u
                     JOIN idf i ON i.lexeme = u.lexeme,
                     LATERAL (SELECT sum(CASE w WHEN 'A' THEN $7::float8 WHEN 'B' THEN $8::float8 ELSE 1 END) AS tf
                                FROM unnest(CASE WHEN cardinality(u.weights) = 0 THEN ARRAY['D'] ELSE u.weights END) w) tf),
            scored AS (
              SELECT id, sum(contribution) AS score,
                     jsonb_agg(jsonb_build_object('term', lexeme, 'contribution', round(contribution::numeric, 4)) ORDER BY contribution DESC) AS terms,
                     count(*) OVER () AS total
                FROM per_term GROUP BY id
               ORDER BY score DESC, id
               LIMIT $3::int OFFSET $4::int)
       SELECT p.slug, p.title, p.cluster, p.tags, s.score::float8 AS score, s.terms, s.total::int AS total,
              ts_headline('english', ${BODY_WITHOUT_FRONTMATTER}, q.anyq,
                'StartSel=⟦, StopSel=⟧, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
         FROM scored s JOIN pages p ON p.id = s.id, q
        ORDER BY s.score DESC, p.title`,
      [words, excluded, limit, offset, settings.k1, settings.b, settings.titleBoost, settings.aliasBoost],
    );
    return { hits: rows.map(({ total: _total, ...hit }) => hit), total: rows[0]?.total ?? 0 };
  }

  /** Live pages whose title or an alias resembles the text (pg_trgm word similarity), most similar first. */
  async similarTitles(text: string, limit: number, threshold = 0.45): Promise<TitleSuggestion[]> {
    return this.dataSource.query(
      `SELECT slug, title, similarity::float8 AS similarity FROM (
         SELECT p.slug, p.title,
                greatest(word_similarity(lower($1), lower(p.title)),
                         coalesce((SELECT max(word_similarity(lower($1), lower(a))) FROM unnest(p.aliases) a), 0)) AS similarity
           FROM pages p WHERE p.deleted_at IS NULL) s
        WHERE similarity >= $3
        ORDER BY similarity DESC, title LIMIT $2`,
      [text, limit, threshold],
    );
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
