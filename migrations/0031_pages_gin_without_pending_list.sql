-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- The GIN indexes of `pages` take their new entries straight into the index, not into a pending list.
--
-- Every save writes a new version of the page's row (its `updated_at` is indexed, so no save is a HOT update), and
-- with GIN's default `fastupdate` each such version appends its keys to every GIN index's pending list: unsorted
-- entries that each lookup reads whole until a vacuum (or a list past `gin_pending_list_limit`, 4 MB) moves them
-- into the index. Lookups on these indexes run inside writes and searches: every save resolves its links by
-- `link_keys` (page-links.repository.ts), and search's typo suggestions read the title and alias trigrams. After ten
-- seconds of saves at 1,000 pages the link-keys list held 3,032 entries, and resolving one page's links cost 3.0 ms
-- of database time instead of 0.6 ms (bench/RESULTS.md, 2026-12-06 16:0x). A page's keys are few (its slug, title,
-- aliases; a title's trigrams), so inserting them directly costs a save little.
--
-- gin_clean_pending_list moves what the lists hold now into the indexes.
-- ---------------------------------------------------------------------------------------------------------------
ALTER INDEX pages_link_keys_idx SET (fastupdate = off);
ALTER INDEX pages_tags_idx SET (fastupdate = off);
ALTER INDEX pages_title_trgm_idx SET (fastupdate = off);
ALTER INDEX pages_aliases_trgm_idx SET (fastupdate = off);
SELECT gin_clean_pending_list(i::regclass)
  FROM unnest(ARRAY['pages_link_keys_idx', 'pages_tags_idx', 'pages_title_trgm_idx', 'pages_aliases_trgm_idx']) AS i;

-- migrate:down
ALTER INDEX pages_aliases_trgm_idx RESET (fastupdate);
ALTER INDEX pages_title_trgm_idx RESET (fastupdate);
ALTER INDEX pages_tags_idx RESET (fastupdate);
ALTER INDEX pages_link_keys_idx RESET (fastupdate);
