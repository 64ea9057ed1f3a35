-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Search's corpus statistics (how many live pages, their average length: BM25's N and avgdl) without reading every
-- page's row. Every search counted and averaged page_search_stats, one row per page: 0.19 ms of database time at
-- 1,000 pages, ten times that at 10,000, in every search (src/search/search.repository.ts, `corpus`).
--
-- page_search_totals holds the same two sums split over up to 64 rows: a change of page_search_stats adds its
-- difference (a page more or fewer, a length longer or shorter) to the row of the connection that makes it
-- (pg_backend_pid() & 63), in the same transaction, and a search sums the rows. A row per connection, not one row:
-- a connection runs one transaction at a time, so two page writes never wait for each other here (unless their
-- connections' pids share the low six bits), and a transaction only ever writes one row, so no two can deadlock on
-- them. A row's own sums mean nothing (a page created on one connection and deleted on another leaves +1 in one row
-- and −1 in the other); their totals are exact.
--
-- The sums are exact, so a search ranks as it did: N = Σ pages and avgdl = Σ length / Σ pages, the numeric division
-- avg() makes. A restore empties this table with page_search_stats, and the rebuild fills both again.
-- ---------------------------------------------------------------------------------------------------------------
CREATE TABLE page_search_totals (
  stripe  smallint PRIMARY KEY,
  pages   bigint NOT NULL,
  length  bigint NOT NULL
);

CREATE FUNCTION page_search_totals_follow() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  pages_delta bigint := 0;
  length_delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    pages_delta := pages_delta + 1;
    length_delta := length_delta + NEW.length;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    pages_delta := pages_delta - 1;
    length_delta := length_delta - OLD.length;
  END IF;
  IF pages_delta <> 0 OR length_delta <> 0 THEN
    INSERT INTO page_search_totals AS t (stripe, pages, length) VALUES ((pg_backend_pid() & 63)::smallint, pages_delta, length_delta)
      ON CONFLICT (stripe) DO UPDATE SET pages = t.pages + EXCLUDED.pages, length = t.length + EXCLUDED.length;
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
  SELECT 0, count(*), coalesce(sum(length), 0) FROM page_search_stats;

-- migrate:down
DROP TRIGGER page_search_stats_totals_truncate ON page_search_stats;
DROP TRIGGER page_search_stats_totals ON page_search_stats;
DROP FUNCTION page_search_totals_emptied();
DROP FUNCTION page_search_totals_follow();
DROP TABLE page_search_totals;
