-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- A save rewrote every row of the page in page_search_terms (a DELETE of all its words, then an INSERT of all),
-- even when the edit changed one sentence: ~150 dead rows and ~450 index entries per save. Where autovacuum is slow
-- or off, the ranker then waded through them (the lexical statement 4 ms → 11 ms after two minutes of mixed load at
-- 1,000 pages, bench/RESULTS.md 2026-12-05). A save now changes only the rows of the words whose counts changed,
-- deletes the words that left and adds the new ones.
--
-- Every row also carries the page's length (for the impact index's order and BM25's length normalisation), so any
-- edit that changed the word count still touched every row. The rows now hold the length rounded to a step of
-- 1/16 on a log scale (about 6%; exact up to 16 words): BM25 normalises by length / average length with b = 0.75,
-- so a length off by at most 3% moves a term's weight by at most about 2%, and an edit rewrites the other rows only
-- when the page's length crosses a step. page_search_stats keeps the exact length (the corpus average).
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION kurate_search_length_step(n integer) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN n <= 16 THEN n ELSE round(exp(round(ln(n::float8) * 16) / 16))::integer END $$;

CREATE OR REPLACE FUNCTION page_search_terms_rows(p_id uuid, v tsvector) RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$
    -- The length once per page: as an expression of the outer query it would unnest the whole vector again for
    -- every lexeme (quadratic in a long page) whenever the trigger runs on a generic plan.
    WITH doc AS MATERIALIZED (SELECT kurate_search_length_step(kurate_search_length(v)) AS length)
    SELECT u.lexeme, p_id,
           least(count(*) FILTER (WHERE w = 'A'), 32767)::smallint,
           least(count(*) FILTER (WHERE w = 'B'), 32767)::smallint,
           least(count(*) FILTER (WHERE w NOT IN ('A', 'B')), 32767)::smallint,
           doc.length
      FROM doc, unnest(v) u,
           LATERAL unnest(CASE WHEN cardinality(u.weights) = 0 THEN ARRAY['D'] ELSE u.weights END) w
     GROUP BY u.lexeme, doc.length
  $$;

CREATE OR REPLACE FUNCTION page_search_terms_refresh() RETURNS trigger
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
    IF NEW.deleted_at IS NULL AND NEW.search IS NOT NULL AND OLD.deleted_at IS NULL THEN
      -- An edit of a live page: only the rows that change.
      WITH fresh AS MATERIALIZED (SELECT * FROM page_search_terms_rows(NEW.id, NEW.search)),
           gone AS (DELETE FROM page_search_terms t
                     WHERE t.page_id = NEW.id AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.lexeme = t.lexeme))
      INSERT INTO page_search_terms AS t SELECT * FROM fresh
        ON CONFLICT (page_id, lexeme) DO UPDATE
          SET tf_a = EXCLUDED.tf_a, tf_b = EXCLUDED.tf_b, tf_c = EXCLUDED.tf_c, length = EXCLUDED.length
        WHERE (t.tf_a, t.tf_b, t.tf_c, t.length) IS DISTINCT FROM (EXCLUDED.tf_a, EXCLUDED.tf_b, EXCLUDED.tf_c, EXCLUDED.length);
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

-- The page's own statistics row: written only when its length changed.
CREATE OR REPLACE FUNCTION page_search_stats_refresh() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF NEW.deleted_at IS NOT NULL THEN
    DELETE FROM page_search_stats WHERE page_id = NEW.id;
  ELSE
    INSERT INTO page_search_stats AS s (page_id, length) VALUES (NEW.id, kurate_search_length(NEW.search))
      ON CONFLICT (page_id) DO UPDATE SET length = EXCLUDED.length WHERE s.length IS DISTINCT FROM EXCLUDED.length;
  END IF;
  RETURN NULL;
END
$$;

UPDATE page_search_terms SET length = kurate_search_length_step(length) WHERE length <> kurate_search_length_step(length);

-- migrate:down
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
CREATE OR REPLACE FUNCTION page_search_terms_refresh() RETURNS trigger
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
CREATE OR REPLACE FUNCTION page_search_terms_rows(p_id uuid, v tsvector) RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$
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
UPDATE page_search_terms t SET length = s.length FROM page_search_stats s WHERE s.page_id = t.page_id AND t.length <> s.length;
DROP FUNCTION kurate_search_length_step(integer);
