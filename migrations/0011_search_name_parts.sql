-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Titles, aliases and tags searchable by their parts as well as whole (src/search/, docs/search.md, issue 17).
-- PostgreSQL's parser reads `Folder/Name`, `a\b` and `file.md` as one token (a file name): a search for `Name` never
-- matched an alias `Folder/Name`. The search vector's title (A) and aliases/tags (B) now hold the text as written
-- followed by the parts of such tokens; the body (C) is unchanged.
-- ---------------------------------------------------------------------------------------------------------------

-- The text, then the parts of its fused tokens: 'Plugins/Backlinks' → 'Plugins/Backlinks Plugins Backlinks'.
-- Must match tokenParts in src/search/search-query.ts (the query side).
CREATE FUNCTION kurate_search_names(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT CASE WHEN t ~ '[[:alnum:]][/\\.][[:alnum:]]'
                THEN t || ' ' || regexp_replace(
                       (SELECT string_agg(w, ' ') FROM regexp_split_to_table(t, '\s+') w WHERE w ~ '[[:alnum:]][/\\.][[:alnum:]]'),
                       '[/\\.]+', ' ', 'g')
                ELSE coalesce(t, '') END
  $$;

-- Existing pages: title and aliases/tags again, the body's lexemes (C, D) kept as they are.
UPDATE pages SET search =
       setweight(to_tsvector('english', kurate_search_names(title)), 'A') ||
       setweight(to_tsvector('english', kurate_search_names(array_to_string(aliases || tags, ' '))), 'B') ||
       ts_filter(search, '{c,d}')
 WHERE search IS NOT NULL AND (kurate_search_names(title) <> title OR kurate_search_names(array_to_string(aliases || tags, ' ')) <> array_to_string(aliases || tags, ' '));

-- migrate:down
DROP FUNCTION kurate_search_names(text);
