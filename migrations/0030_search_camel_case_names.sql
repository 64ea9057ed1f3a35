-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Titles, aliases and tags written as a lowerCamelCase identifier (a setting: `templateHierarchy`, `aliasMode`,
-- `todoIntegration`) are searchable by their words as well as whole (docs/search.md, issue 17): PostgreSQL reads
-- `templateHierarchy` as one word, so "which hierarchy are templates looked up in" never matched the page about that
-- setting. Only identifiers that start in lower case with two letters or more and go on in capitalised words: a
-- product name (`GitHub`, `KaTeX`, `iPhone`, `macOS`) is not split. The path parts of migration 0011 stay.
-- Must match tokenParts in src/search/search-query.ts (the query side).
-- ---------------------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION kurate_search_names(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT CASE WHEN t ~ '[[:alnum:]][/\\.][[:alnum:]]' OR t ~ '(^|[^[:alnum:]])[[:lower:]]{2,}([[:upper:]][[:lower:]]+)+($|[^[:alnum:]])'
                THEN t || ' ' || (
                       SELECT string_agg(CASE WHEN w ~ '[[:alnum:]][/\\.][[:alnum:]]' THEN regexp_replace(w, '[/\\.]+', ' ', 'g')
                                              ELSE regexp_replace(w, '([[:lower:]])([[:upper:]])', '\1 \2', 'g') END, ' ')
                         FROM regexp_split_to_table(t, '\s+') w
                        WHERE w ~ '[[:alnum:]][/\\.][[:alnum:]]' OR w ~ '^[^[:alnum:]]*[[:lower:]]{2,}([[:upper:]][[:lower:]]+)+[^[:alnum:]]*$')
                ELSE coalesce(t, '') END
  $$;

-- Existing pages whose title, aliases or tags hold such an identifier: those fields again, the body's lexemes kept.
UPDATE pages SET search =
       setweight(to_tsvector('english', kurate_search_names(title)), 'A') ||
       setweight(to_tsvector('english', kurate_search_names(array_to_string(aliases || tags, ' '))), 'B') ||
       ts_filter(search, '{c,d}')
 WHERE search IS NOT NULL
   AND array_to_string(aliases || tags || title, ' ') ~ '(^|[^[:alnum:]])[[:lower:]]{2,}([[:upper:]][[:lower:]]+)+($|[^[:alnum:]])';

-- migrate:down
CREATE OR REPLACE FUNCTION kurate_search_names(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT CASE WHEN t ~ '[[:alnum:]][/\\.][[:alnum:]]'
                THEN t || ' ' || regexp_replace(
                       (SELECT string_agg(w, ' ') FROM regexp_split_to_table(t, '\s+') w WHERE w ~ '[[:alnum:]][/\\.][[:alnum:]]'),
                       '[/\\.]+', ' ', 'g')
                ELSE coalesce(t, '') END
  $$;
UPDATE pages SET search =
       setweight(to_tsvector('english', kurate_search_names(title)), 'A') ||
       setweight(to_tsvector('english', kurate_search_names(array_to_string(aliases || tags, ' '))), 'B') ||
       ts_filter(search, '{c,d}')
 WHERE search IS NOT NULL
   AND array_to_string(aliases || tags || title, ' ') ~ '(^|[^[:alnum:]])[[:lower:]]{2,}([[:upper:]][[:lower:]]+)+($|[^[:alnum:]])';
