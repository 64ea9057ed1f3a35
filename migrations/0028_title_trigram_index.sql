-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Search's "did you mean" and fuzzy-title fallback (SearchRepository.similarTitles) scored every live page's title
-- and aliases with pg_trgm's word_similarity, a scan of the whole table: 68 ms a query at 10,000 pages
-- (eval/search-speed.eval.ts), and it grows with the wiki. These two trigram indexes let PostgreSQL find the pages
-- whose title, or one of whose aliases, holds enough of the query's trigrams (`query <% text`, under
-- `pg_trgm.word_similarity_threshold`) and score only those. The aliases are indexed as one text: a run of trigrams
-- inside one alias is a run inside the joined text too, so the joined text is never less similar than its best
-- alias, and the index finds every page the exact score (per alias, in the query) keeps.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION kurate_aliases_text(aliases text[]) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(array_to_string(aliases, ' | ')) $$;

CREATE INDEX pages_title_trgm_idx ON pages USING gin (lower(title) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX pages_aliases_trgm_idx ON pages USING gin (kurate_aliases_text(aliases) gin_trgm_ops)
  WHERE deleted_at IS NULL AND cardinality(aliases) > 0;

-- migrate:down
DROP INDEX pages_aliases_trgm_idx;
DROP INDEX pages_title_trgm_idx;
DROP FUNCTION kurate_aliases_text(text[]);
