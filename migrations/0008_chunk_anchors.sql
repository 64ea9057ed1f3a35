-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Links to a chunk's section (search results, review evidence, entity pages, MCP passages) need the id its heading
-- has on the rendered page, which depends on the headings before it: a page's second "Setup" is `#setup-2`. The
-- extraction stores it with each chunk and keeps it current for the chunks it keeps. NULL: at the top of the page,
-- or chunked before this column existed (a worker's start enqueues those pages: their jobs make no extraction call
-- and set the anchors; until then links use the heading's own slug).
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE kg_content_chunks ADD COLUMN anchor text;

-- A view's `c.*` was expanded when it was made: it gains the new column only when made again.
CREATE OR REPLACE VIEW kg_visible_chunks AS
  SELECT c.* FROM kg_content_chunks c
   WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id);

-- migrate:down
DROP VIEW kg_visible_chunks;
ALTER TABLE kg_content_chunks DROP COLUMN anchor;
CREATE VIEW kg_visible_chunks AS
  SELECT c.* FROM kg_content_chunks c
   WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id);
