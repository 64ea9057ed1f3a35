-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- A page write's search rows (its length in page_search_stats, its words in page_search_terms) are kept by one
-- trigger instead of two. Each of the two computed the page's length from its search vector (0.095 ms a page of 140
-- words), each was a trigger call of its own, and the length's upsert locked the page's stats row on every edit even
-- when the length stayed (ON CONFLICT DO UPDATE locks the row before it tests its WHERE). Now the length is computed
-- once, a created page's length is a plain INSERT, and an edit writes it only when it changed. What the rows hold is
-- unchanged; page_search_terms_rows keeps its signature for the tests and tools that call it.
-- ---------------------------------------------------------------------------------------------------------------

-- A page's rows of page_search_terms, given its length (kurate_search_length of the vector). The length is read once
-- per page (a MATERIALIZED CTE): were this function inlined with an expression for page_length, an expression of the
-- outer query would compute it again for every lexeme (quadratic in a long page; migration 0026).
CREATE FUNCTION page_search_terms_rows_of(p_id uuid, v tsvector, page_length integer)
  RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$
    WITH doc AS MATERIALIZED (SELECT kurate_search_length_step(page_length) AS length)
    SELECT u.lexeme, p_id,
           least(count(*) FILTER (WHERE w = 'A'), 32767)::smallint,
           least(count(*) FILTER (WHERE w = 'B'), 32767)::smallint,
           least(count(*) FILTER (WHERE w NOT IN ('A', 'B')), 32767)::smallint,
           doc.length
      FROM doc, unnest(v) u,
           LATERAL unnest(CASE WHEN cardinality(u.weights) = 0 THEN ARRAY['D'] ELSE u.weights END) w
     GROUP BY u.lexeme, doc.length
  $$;

CREATE OR REPLACE FUNCTION page_search_terms_rows(p_id uuid, v tsvector)
  RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$ SELECT * FROM page_search_terms_rows_of(p_id, v, kurate_search_length(v)) $$;

CREATE FUNCTION page_search_rows_refresh() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  page_length integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- The stats row goes with the page (its foreign key cascades).
    DELETE FROM page_search_terms WHERE page_id = OLD.id;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.search IS NOT DISTINCT FROM OLD.search AND (NEW.deleted_at IS NULL) = (OLD.deleted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  IF NEW.deleted_at IS NOT NULL THEN
    IF TG_OP = 'UPDATE' THEN
      DELETE FROM page_search_stats WHERE page_id = NEW.id;
      DELETE FROM page_search_terms WHERE page_id = NEW.id;
    END IF;
    RETURN NULL;
  END IF;

  page_length := kurate_search_length(NEW.search);
  IF TG_OP = 'INSERT' THEN
    INSERT INTO page_search_stats (page_id, length) VALUES (NEW.id, page_length);
  ELSE
    UPDATE page_search_stats SET length = page_length WHERE page_id = NEW.id AND length IS DISTINCT FROM page_length;
    IF NOT FOUND THEN
      -- Unchanged, or missing (a page back from the trash): DO NOTHING neither writes nor locks an existing row.
      INSERT INTO page_search_stats (page_id, length) VALUES (NEW.id, page_length) ON CONFLICT (page_id) DO NOTHING;
    END IF;
  END IF;

  IF NEW.search IS NULL THEN
    IF TG_OP = 'UPDATE' THEN
      DELETE FROM page_search_terms WHERE page_id = NEW.id;
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL THEN
    -- An edit of a live page: only the rows that change (the page's row is locked by this UPDATE, so no other write
    -- of its words runs meanwhile), as migration 0034 wrote them.
    WITH fresh AS MATERIALIZED (SELECT * FROM page_search_terms_rows_of(NEW.id, NEW.search, page_length)),
         gone AS (DELETE FROM page_search_terms t
                   WHERE t.page_id = NEW.id AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.lexeme = t.lexeme))
    INSERT INTO page_search_terms AS t
      SELECT f.* FROM fresh f
       WHERE NOT EXISTS (SELECT 1 FROM page_search_terms o
                          WHERE o.page_id = NEW.id AND o.lexeme = f.lexeme
                            AND (o.tf_a, o.tf_b, o.tf_c, o.length) = (f.tf_a, f.tf_b, f.tf_c, f.length))
      ON CONFLICT (page_id, lexeme) DO UPDATE
        SET tf_a = EXCLUDED.tf_a, tf_b = EXCLUDED.tf_b, tf_c = EXCLUDED.tf_c, length = EXCLUDED.length;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM page_search_terms WHERE page_id = NEW.id;
  END IF;
  INSERT INTO page_search_terms SELECT * FROM page_search_terms_rows_of(NEW.id, NEW.search, page_length);
  RETURN NULL;
END
$$;

DROP TRIGGER pages_search_stats ON pages;
DROP TRIGGER pages_search_terms ON pages;
CREATE TRIGGER pages_search_rows AFTER INSERT OR DELETE OR UPDATE OF search, deleted_at ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_rows_refresh();
DROP FUNCTION page_search_stats_refresh();
DROP FUNCTION page_search_terms_refresh();

-- migrate:down
DROP TRIGGER pages_search_rows ON pages;
DROP FUNCTION page_search_rows_refresh();

CREATE FUNCTION page_search_stats_refresh() RETURNS trigger
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
    IF NEW.deleted_at IS NULL AND NEW.search IS NOT NULL AND OLD.deleted_at IS NULL THEN
      WITH fresh AS MATERIALIZED (SELECT * FROM page_search_terms_rows(NEW.id, NEW.search)),
           gone AS (DELETE FROM page_search_terms t
                     WHERE t.page_id = NEW.id AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.lexeme = t.lexeme))
      INSERT INTO page_search_terms AS t
        SELECT f.* FROM fresh f
         WHERE NOT EXISTS (SELECT 1 FROM page_search_terms o
                            WHERE o.page_id = NEW.id AND o.lexeme = f.lexeme
                              AND (o.tf_a, o.tf_b, o.tf_c, o.length) = (f.tf_a, f.tf_b, f.tf_c, f.length))
        ON CONFLICT (page_id, lexeme) DO UPDATE
          SET tf_a = EXCLUDED.tf_a, tf_b = EXCLUDED.tf_b, tf_c = EXCLUDED.tf_c, length = EXCLUDED.length;
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

CREATE TRIGGER pages_search_stats AFTER INSERT OR UPDATE OF search, deleted_at ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_stats_refresh();
CREATE TRIGGER pages_search_terms AFTER INSERT OR DELETE OR UPDATE OF search, deleted_at ON pages
  FOR EACH ROW EXECUTE FUNCTION page_search_terms_refresh();

DROP FUNCTION page_search_terms_rows_of(uuid, tsvector, integer);
-- page_search_terms_rows as migration 0026 wrote it.
CREATE OR REPLACE FUNCTION page_search_terms_rows(p_id uuid, v tsvector)
  RETURNS TABLE (lexeme text, page_id uuid, tf_a smallint, tf_b smallint, tf_c smallint, length integer)
  LANGUAGE sql STABLE
  AS $$
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
