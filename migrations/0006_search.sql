-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Search statistics for the BM25-like lexical ranker (src/search/, docs/search.md).
-- ---------------------------------------------------------------------------------------------------------------

-- The number of word positions a search vector holds: the document length BM25 normalises by. A lexeme stored
-- without positions still counts once.
CREATE FUNCTION kurate_search_length(v tsvector) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::integer FROM unnest(v) $$;

-- One row per page, kept by the trigger below in the page's own transaction, so that every web process reads the
-- same lengths (and the same average) from the database.
CREATE TABLE page_search_stats (
  page_id  uuid PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
  length   integer NOT NULL
);

CREATE FUNCTION page_search_stats_refresh() RETURNS trigger
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

INSERT INTO page_search_stats (page_id, length) SELECT id, kurate_search_length(search) FROM pages;

-- migrate:down
DROP TRIGGER pages_search_stats ON pages;
DROP FUNCTION page_search_stats_refresh();
DROP TABLE page_search_stats;
DROP FUNCTION kurate_search_length(tsvector);
