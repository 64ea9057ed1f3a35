-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- The wiki's word counts (kg_page_terms, migration 0014) lose their foreign key to pages, as page_search_terms did
-- (migration 0006): a saved page writes about a hundred rows here, and the key checked every one of them, each check
-- a trigger event queued to the end of the statement and a probe of pages. A created page's rows cost 1.03 ms of
-- database time with the key and 0.63 ms without (bench/RESULTS.md, 2026-12-07 20:1x).
--
-- What the key guaranteed still holds, enforced once per page instead of once per row:
-- - no counts for a page that is gone: deleting a page row deletes its counts (the trigger below; the app itself only
--   moves pages to the trash, and a restore empties this table with the rest);
-- - a writer of counts takes the page's row lock and writes only for a live page (src/kg/kg-extraction.repository.ts,
--   TERMS_REPLACED), so a page moved to the trash or deleted meanwhile keeps none.
-- ---------------------------------------------------------------------------------------------------------------
DELETE FROM kg_page_terms t WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = t.page_id);
ALTER TABLE kg_page_terms DROP CONSTRAINT kg_page_terms_page_id_fkey;

CREATE FUNCTION kg_page_terms_pages_deleted() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  DELETE FROM kg_page_terms t USING deleted_pages d WHERE t.page_id = d.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER pages_kg_page_terms_delete AFTER DELETE ON pages
  REFERENCING OLD TABLE AS deleted_pages
  FOR EACH STATEMENT EXECUTE FUNCTION kg_page_terms_pages_deleted();

-- migrate:down
DROP TRIGGER pages_kg_page_terms_delete ON pages;
DROP FUNCTION kg_page_terms_pages_deleted();
DELETE FROM kg_page_terms t WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = t.page_id);
ALTER TABLE kg_page_terms ADD CONSTRAINT kg_page_terms_page_id_fkey FOREIGN KEY (page_id) REFERENCES pages (id) ON DELETE CASCADE;
