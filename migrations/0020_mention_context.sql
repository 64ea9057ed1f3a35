-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- What a mention says about its entity (src/search/entity-context.ts, docs/search.md): the words, stemmed as the
-- lexical ranker stems them, of the sentences of its chunk that hold its surface. A sentence is a line, or text
-- ended by `.`, `!` or `?`. Search credits them to the page bearing the entity's name once the entity is approved.
-- Computed by a trigger whenever a mention is written (extraction, approval, undo, import), so that reading every
-- approved entity's context after an approval is a scan of these vectors, not a parse of every chunk.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION kurate_mention_context(chunk_text text, surface text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(to_tsvector('english', string_agg(s.sentence, E'\n')), ''::tsvector)
    FROM regexp_split_to_table(chunk_text, '[.!?]+\s+|\n+') AS s(sentence)
   WHERE surface <> '' AND position(lower(surface) IN lower(s.sentence)) > 0
$$;

ALTER TABLE kg_mentions ADD COLUMN context tsvector;

CREATE FUNCTION kg_mentions_context() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.context := kurate_mention_context((SELECT c.text FROM kg_content_chunks c WHERE c.id = NEW.chunk_id), NEW.surface);
  RETURN NEW;
END
$$;
CREATE TRIGGER kg_mentions_context BEFORE INSERT OR UPDATE OF chunk_id, surface ON kg_mentions
  FOR EACH ROW EXECUTE FUNCTION kg_mentions_context();

UPDATE kg_mentions m SET context = kurate_mention_context(c.text, m.surface) FROM kg_content_chunks c WHERE c.id = m.chunk_id;
ALTER TABLE kg_mentions ALTER COLUMN context SET NOT NULL;

-- migrate:down
DROP TRIGGER kg_mentions_context ON kg_mentions;
DROP FUNCTION kg_mentions_context();
ALTER TABLE kg_mentions DROP COLUMN context;
DROP FUNCTION kurate_mention_context(text, text);
