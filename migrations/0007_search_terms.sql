-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Hybrid search (src/search/, docs/search.md): a per-page term table for the BM25-like ranker, so that a query reads
-- term frequencies and document frequencies from a b-tree instead of unnesting every candidate page's search vector.
-- The HNSW indexes for vector search are not here: they need one dimension per model, so the server creates them
-- (idempotently) once it knows the embedder's model (SearchVectorRepository.ensureIndex).
-- ---------------------------------------------------------------------------------------------------------------

-- One row per live page and lexeme: how often the lexeme occurs in the title (A), aliases and tags (B), and the
-- rest (C, D), and the page's length (denormalised from page_search_stats so that scoring needs no join).
-- Rows belong to one page only, so concurrent page writes never wait for each other here.
CREATE TABLE page_search_terms (
  lexeme   text NOT NULL,
  -- No foreign key: checking one for every word of every save cost more than the rows themselves; the trigger
  -- below removes a page's rows when the page row goes.
  page_id  uuid NOT NULL,
  tf_a     smallint NOT NULL,
  tf_b     smallint NOT NULL,
  tf_c     smallint NOT NULL,
  length   integer NOT NULL,
  -- Page first: one index serves the ranker's (page, lexeme) look-ups, a page's rewrite (DELETE … WHERE page_id)
  -- and the cascade; the lexeme-first look-ups use the impact index below. Every index here costs each page save
  -- one insertion per distinct word, so there are two.
  PRIMARY KEY (page_id, lexeme)
);
-- A term's pages by how much the term can weigh in each (saturated, length-normalised frequency with the default
-- boosts, typical length 400): the ranker reads each query term's best few hundred pages from here, without a sort.
-- The expression must match TERM_IMPACT in src/search/search.repository.ts.
CREATE INDEX page_search_terms_impact_idx ON page_search_terms
  (lexeme, ((tf_a * 3 + tf_b * 2 + tf_c)::real / ((tf_a * 3 + tf_b * 2 + tf_c) + 1.2 * (0.25 + 0.75 * length / 400.0))) DESC)
  INCLUDE (page_id, tf_a, tf_b, tf_c, length);

CREATE FUNCTION page_search_terms_rows(p_id uuid, v tsvector) RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$
    -- The length once per page: as an expression of the outer query it would unnest the whole vector again for
    -- every lexeme (quadratic in a long page) whenever the trigger runs on a generic plan.
    WITH doc AS MATERIALIZED (SELECT kurate_search_length(v) AS length)
    SELECT u.lexeme, p_id,
           least(count(*) FILTER (WHERE w = 'A'), 32767)::smallint,
           least(count(*) FILTER (WHERE w = 'B'), 32767)::smallint,
           least(count(*) FILTER (WHERE w NOT IN ('A', 'B')), 32767)::smallint,
           doc.length
      FROM doc, unnest(v) u,
           LATERAL unnest(CASE WHEN cardinality(u.weights) = 0 THEN ARRAY['D'] ELSE u.weights END) w
     GROUP BY u.lexeme, doc.length
  $$;

-- Kept in the page write's own transaction: a trashed page leaves the statistics, a restored one comes back.
CREATE FUNCTION page_search_terms_refresh() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM page_search_terms WHERE page_id = OLD.id;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    IF NEW.search IS NOT DISTINCT FROM OLD.search AND (NEW.deleted_at IS NULL) = (OLD.deleted_at IS NULL) THEN
      RETURN NULL;
    END IF;
    DELETE FROM page_search_terms WHERE page_id = NEW.id;
  END IF;
  IF NEW.deleted_at IS NULL AND NEW.search IS NOT NULL THEN
    INSERT INTO page_search_terms SELECT * FROM page_search_terms_rows(NEW.id, NEW.search);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER pages_search_terms AFTER INSERT OR UPDATE OF search, deleted_at OR DELETE ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_terms_refresh();

INSERT INTO page_search_terms
  SELECT t.* FROM pages p, LATERAL page_search_terms_rows(p.id, p.search) t
   WHERE p.deleted_at IS NULL AND p.search IS NOT NULL;

-- The ranker reads page_search_terms, not the pages' search vectors: their GIN index would only cost every save.
DROP INDEX pages_search_idx;

-- page_search_stats now holds live pages only, so that BM25's N and average length are read from it alone (a small
-- table) instead of counting the pages table.
CREATE OR REPLACE FUNCTION page_search_stats_refresh() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF NEW.deleted_at IS NOT NULL THEN
    DELETE FROM page_search_stats WHERE page_id = NEW.id;
  ELSE
    INSERT INTO page_search_stats (page_id, length) VALUES (NEW.id, kurate_search_length(NEW.search))
      ON CONFLICT (page_id) DO UPDATE SET length = EXCLUDED.length;
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER pages_search_stats ON pages;
CREATE TRIGGER pages_search_stats AFTER INSERT OR UPDATE OF search, deleted_at ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_stats_refresh();
DELETE FROM page_search_stats s USING pages p WHERE p.id = s.page_id AND p.deleted_at IS NOT NULL;

-- migrate:down
CREATE INDEX pages_search_idx ON pages USING gin (search);
DROP TRIGGER pages_search_stats ON pages;
CREATE OR REPLACE FUNCTION page_search_stats_refresh() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO page_search_stats (page_id, length) VALUES (NEW.id, kurate_search_length(NEW.search))
    ON CONFLICT (page_id) DO UPDATE SET length = EXCLUDED.length;
  RETURN NULL;
END
$$;
CREATE TRIGGER pages_search_stats AFTER INSERT OR UPDATE OF search ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_stats_refresh();
INSERT INTO page_search_stats (page_id, length) SELECT id, kurate_search_length(search) FROM pages ON CONFLICT (page_id) DO NOTHING;
DROP TRIGGER pages_search_terms ON pages;
DROP FUNCTION page_search_terms_refresh();
DROP FUNCTION page_search_terms_rows(uuid, tsvector);
DROP TABLE page_search_terms;
