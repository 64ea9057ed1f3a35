-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- An edit of a live page upserts its words into page_search_terms (migration 0026), and the upsert's
-- `ON CONFLICT DO UPDATE … WHERE <changed>` still locks every conflicting row, changed or not: PostgreSQL locks the
-- row before it tests the WHERE. A save that changed one sentence of a page of 300 words therefore wrote 300 row
-- locks (each a heap write and a WAL record) besides its few real changes. The rows whose counts and length are
-- unchanged are now left out before the upsert, by one probe of the primary key (which carries those columns), so a
-- save writes only the rows that change.
-- ---------------------------------------------------------------------------------------------------------------
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
      -- An edit of a live page: only the rows that change (the page's row is locked by this UPDATE, so no other
      -- write of its words runs meanwhile).
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

-- migrate:down
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
