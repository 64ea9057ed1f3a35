-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- An entity's pages (its reader page, search's entity card) were counted by joining every mention of the entity to
-- its chunk for the chunk's page: for an entity most pages name (14,274 mentions on 5,499 of 10,000 pages), 75–150
-- ms a read, most of it that join. Each mention now carries its chunk's page, set by a trigger from the chunk (a
-- chunk never moves to another page), so the pages and their counts are read from one index. The trash gets a
-- partial index of its own, so "not in the trash" is a probe of that (usually small) set.
-- The review journal's images of mentions get the column too, so that undoing an action recorded before this
-- migration finds the rows as it left them.
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE kg_mentions ADD COLUMN page_id uuid;
UPDATE kg_mentions m SET page_id = c.page_id FROM kg_content_chunks c WHERE c.id = m.chunk_id;
ALTER TABLE kg_mentions ALTER COLUMN page_id SET NOT NULL;

CREATE FUNCTION kg_mentions_page() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.page_id := (SELECT c.page_id FROM kg_content_chunks c WHERE c.id = NEW.chunk_id);
  RETURN NEW;
END
$$;
CREATE TRIGGER kg_mentions_page BEFORE INSERT OR UPDATE OF chunk_id, page_id ON kg_mentions
  FOR EACH ROW EXECUTE FUNCTION kg_mentions_page();

CREATE INDEX kg_mentions_node_page_idx ON kg_mentions (node_id, page_id);
CREATE INDEX pages_trashed_idx ON pages (id) WHERE deleted_at IS NOT NULL;

UPDATE kg_review_journal j
   SET before = CASE WHEN j.before IS NULL THEN NULL ELSE j.before || jsonb_build_object('page_id', c.page_id) END,
       after = CASE WHEN j.after IS NULL THEN NULL ELSE j.after || jsonb_build_object('page_id', c.page_id) END
  FROM kg_content_chunks c
 WHERE j.table_name = 'kg_mentions' AND c.id = (coalesce(j.before, j.after) ->> 'chunk_id')::bigint;

-- migrate:down
UPDATE kg_review_journal SET before = before - 'page_id', after = after - 'page_id' WHERE table_name = 'kg_mentions';
DROP INDEX pages_trashed_idx;
DROP INDEX kg_mentions_node_page_idx;
DROP TRIGGER kg_mentions_page ON kg_mentions;
DROP FUNCTION kg_mentions_page();
ALTER TABLE kg_mentions DROP COLUMN page_id;
