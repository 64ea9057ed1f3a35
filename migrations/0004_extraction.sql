-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Extraction (src/kg/, docs/extraction.md). The jobs themselves live in pg-boss's own schema (`pgboss`), which
-- pg-boss creates and migrates at start-up; these tables hold what the knowledge graph needs to know about them.
-- ---------------------------------------------------------------------------------------------------------------

-- What a page's knowledge-graph rows were derived from: the page's extraction source (title, primary cluster and
-- Markdown body, hashed) at its last successful extraction. A page whose source hash differs is stale; a page with no
-- row (and no chunks) was never extracted.
CREATE TABLE kg_page_extractions (
  page_id           uuid PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
  source_hash       text NOT NULL,
  -- pages.content_hash when last checked: a page whose hash moved on may need extraction (status counts them).
  page_content_hash text NOT NULL,
  -- Title and primary cluster, hashed: they are part of every chunk's embedded text, so a change re-embeds the chunks.
  context_hash      text NOT NULL,
  chunk_count       integer NOT NULL,
  -- Extraction calls made for this page so far, all runs (each for a chunk whose content hash was new).
  extraction_calls  integer NOT NULL DEFAULT 0,
  extractor         text NOT NULL,
  model             text,
  embedding_model   text,
  extracted_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_page_extractions_counts_check CHECK (chunk_count >= 0 AND extraction_calls >= 0)
);

-- Extraction jobs that failed for good (a non-retryable error, or retries used up), with the reason, for admins.
-- A later successful extraction of the page marks its open failures resolved.
CREATE TABLE kg_extraction_failures (
  id           bigserial PRIMARY KEY,
  page_id      uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  job_id       uuid NOT NULL,
  source_hash  text NOT NULL,
  backend      text NOT NULL,
  model        text,
  reason       text NOT NULL,
  attempts     integer NOT NULL,
  failed_at    timestamptz NOT NULL DEFAULT now(),
  resolved_at  timestamptz
);
CREATE UNIQUE INDEX kg_extraction_failures_job_key ON kg_extraction_failures (job_id);
CREATE INDEX kg_extraction_failures_open_idx ON kg_extraction_failures (page_id) WHERE resolved_at IS NULL;
CREATE INDEX kg_extraction_failures_failed_at_idx ON kg_extraction_failures (failed_at);

-- migrate:down
DROP TABLE kg_extraction_failures;
DROP TABLE kg_page_extractions;
