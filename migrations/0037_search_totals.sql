-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Search's corpus statistics (how many live pages, their average length: BM25's N and avgdl) without reading every
-- page's row. Every search counted and averaged page_search_stats, one row per page: 0.19 ms of database time at
-- 1,000 pages, ten times that at 10,000, in every search (src/search/search.repository.ts, `corpus`).
--
-- page_search_totals holds the same two sums split over 64 stripes by page: a change of page_search_stats adds its
-- difference to its page's stripe, in the same transaction, and a search sums 64 rows. Stripes, not one row: two
-- saves wait for each other here only when their pages share a stripe and their lengths change (a created, deleted
-- or restored page, or an edit that changes the page's length), and then only until the first commits. Two writes
-- that take stripes in different orders may deadlock; page writes run again when PostgreSQL aborts one
-- (src/pages/pages.service.ts, write).
--
-- The sums are exact, so a search ranks as it did: N = Σ pages and avgdl = Σ length / Σ pages, the numeric division
-- avg() makes. A restore empties this table with page_search_stats, and the rebuild fills both again.
-- ---------------------------------------------------------------------------------------------------------------
CREATE TABLE page_search_totals (
  stripe  smallint PRIMARY KEY,
  pages   bigint NOT NULL,
  length  bigint NOT NULL
);

CREATE FUNCTION page_search_totals_stripe(page uuid) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (hashtext(page::text) & 63)::smallint $$;

CREATE FUNCTION page_search_totals_follow() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO page_search_totals AS t (stripe, pages, length) VALUES (page_search_totals_stripe(NEW.page_id), 1, NEW.length)
      ON CONFLICT (stripe) DO UPDATE SET pages = t.pages + 1, length = t.length + EXCLUDED.length;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE page_search_totals SET pages = pages - 1, length = length - OLD.length WHERE stripe = page_search_totals_stripe(OLD.page_id);
  ELSIF NEW.page_id IS DISTINCT FROM OLD.page_id THEN
    UPDATE page_search_totals SET pages = pages - 1, length = length - OLD.length WHERE stripe = page_search_totals_stripe(OLD.page_id);
    INSERT INTO page_search_totals AS t (stripe, pages, length) VALUES (page_search_totals_stripe(NEW.page_id), 1, NEW.length)
      ON CONFLICT (stripe) DO UPDATE SET pages = t.pages + 1, length = t.length + EXCLUDED.length;
  ELSIF NEW.length IS DISTINCT FROM OLD.length THEN
    UPDATE page_search_totals SET length = length + NEW.length - OLD.length WHERE stripe = page_search_totals_stripe(NEW.page_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION page_search_totals_emptied() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  DELETE FROM page_search_totals;
  RETURN NULL;
END
$$;

CREATE TRIGGER page_search_stats_totals AFTER INSERT OR UPDATE OR DELETE ON page_search_stats
  FOR EACH ROW EXECUTE FUNCTION page_search_totals_follow();
CREATE TRIGGER page_search_stats_totals_truncate AFTER TRUNCATE ON page_search_stats
  FOR EACH STATEMENT EXECUTE FUNCTION page_search_totals_emptied();

INSERT INTO page_search_totals (stripe, pages, length)
  SELECT page_search_totals_stripe(page_id), count(*), coalesce(sum(length), 0) FROM page_search_stats GROUP BY 1;

-- migrate:down
DROP TRIGGER page_search_stats_totals_truncate ON page_search_stats;
DROP TRIGGER page_search_stats_totals ON page_search_stats;
DROP FUNCTION page_search_totals_emptied();
DROP FUNCTION page_search_totals_follow();
DROP FUNCTION page_search_totals_stripe(uuid);
DROP TABLE page_search_totals;
