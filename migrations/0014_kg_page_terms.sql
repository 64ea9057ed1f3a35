-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Corpus statistics for the built-in extractor (src/kg/term-stats.ts, docs/extraction.md): per live page and word,
-- how often the word is written in lower case in running text and how often capitalised inside a sentence. Written
-- with each page save (rows belong to one page: saves never wait for each other here) and summed over the wiki for
-- the few words an extraction asks about, through the term-first index.
-- ---------------------------------------------------------------------------------------------------------------
CREATE TABLE kg_page_terms (
  page_id      uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  term         text NOT NULL,
  lower        integer NOT NULL,
  capitalised  integer NOT NULL,
  PRIMARY KEY (page_id, term)
);
CREATE INDEX kg_page_terms_term_idx ON kg_page_terms (term) INCLUDE (lower, capitalised);

-- Variants of a name (`Tag`, `tags`, `web-clipper`, `Web Clipper`) join one pending proposal instead of starting twins:
-- extraction looks pending entity proposals up by their name with case and `-`/`_` ignored (the expression must match
-- PROPOSAL_VARIANT in src/kg/kg-extraction.repository.ts).
CREATE INDEX kg_proposals_pending_variant_idx ON kg_proposals (lower(regexp_replace(name, '[-_[:space:]]+', ' ', 'g')))
  WHERE kind = 'node' AND status = 'pending';

-- migrate:down
DROP INDEX kg_proposals_pending_variant_idx;
DROP TABLE kg_page_terms;
