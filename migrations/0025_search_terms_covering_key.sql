-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- The lexical ranker scores its best candidates exactly by probing page_search_terms once per candidate page and
-- query term (src/search/search.repository.ts). With table statistics (ANALYZE: autovacuum, or a restore) the
-- planner preferred the impact index for that probe, index-only, filtering the page among every page of the term:
-- 2,100 buffers and 8 ms a search at 1,000 pages, against 0.4 ms through the primary key. The key now carries the
-- scoring columns, so the probe is an index-only scan of one entry whatever the statistics say (bench/RESULTS.md,
-- 2026-12-05).
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE page_search_terms
  DROP CONSTRAINT page_search_terms_pkey,
  ADD CONSTRAINT page_search_terms_pkey PRIMARY KEY (page_id, lexeme) INCLUDE (tf_a, tf_b, tf_c, length);

-- migrate:down
ALTER TABLE page_search_terms
  DROP CONSTRAINT page_search_terms_pkey,
  ADD CONSTRAINT page_search_terms_pkey PRIMARY KEY (page_id, lexeme);
