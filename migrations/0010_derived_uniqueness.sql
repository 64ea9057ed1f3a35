-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Keys the derived tables must never repeat (docs/data-integrity.md). Two extraction runs of one page that overlapped
-- on PostgreSQL could each insert the page's chunks (the second read the stored chunks from before the first one
-- committed; fixed in KgExtractionRepository.lockPage), and nothing in the schema refused the second set. This
-- migration first repairs what such runs left, then adds the constraints that make it impossible.
--
-- Every derived table, and what makes two rows for one key wrong or not:
--   kg_content_chunks      (page_id, position): one chunk per place in a page. NOT unique so far: made unique below,
--                          DEFERRABLE because KgExtractionRepository.moveChunks renumbers kept chunks in one UPDATE
--                          (a chunk may move to the place another is leaving); checked at the end of that statement.
--                          (page_id, content_hash) stays non-unique: a page may repeat a section word for word, and
--                          chunk-plan.ts matches identical chunks one to one.
--   kg_edges               (source, target, kind, predicate) is unique already. A co-mention is an unordered pair,
--                          stored from the smaller id to the larger: a CHECK makes (b, a) impossible beside (a, b).
--   kg_page_extractions    page_id is its primary key (one record per page).
--   kg_mentions            (chunk_id, signature) is unique already (one mention of an entity per chunk).
--   kg_proposal_support    (proposal_id, chunk_id) is its primary key.
--   kg_proposals           one pending proposal per (kind, signature) already (a partial unique index); reviewed
--                          ones are history and may repeat a signature.
--   kg_nodes               signature is unique already; kg_node_signatures, kg_node_embeddings (node_id, model),
--                          kg_node_provenance, kg_edge_provenance, kg_rejections, kg_excluded_pages: primary keys.
--   kg_review_journal      (action_id, table_name, row_key) is unique already.
--   kg_extraction_failures job_id is unique already; several open failures of one page (from jobs of different
--                          versions) are legitimate history and are resolved together by the page's next extraction.
--   page_links             (from_page_id, target_key) is unique already: one Page Graph edge per target. Its
--                          position only orders a page's links for display; a second unique index on it would cost
--                          every save of a link-heavy page and protect nothing a reader relies on.
-- ---------------------------------------------------------------------------------------------------------------

-- 1. Pages whose chunks repeat a position.
CREATE TEMP TABLE repaired_pages ON COMMIT DROP AS
  SELECT DISTINCT page_id FROM kg_content_chunks GROUP BY page_id, position HAVING count(*) > 1;

-- The chunks that go: all but the newest of each (page, position) (the newest came from the run that committed last,
-- whose record is the one stored), and, on a page with a record, those beyond the record's chunk count (left by the
-- run before it, for a longer version of the page).
CREATE TEMP TABLE repaired_chunks ON COMMIT DROP AS
  SELECT c.id FROM kg_content_chunks c
   WHERE c.page_id IN (SELECT page_id FROM repaired_pages)
     AND (EXISTS (SELECT 1 FROM kg_content_chunks n WHERE n.page_id = c.page_id AND n.position = c.position AND n.id > c.id)
          OR c.position >= (SELECT r.chunk_count FROM kg_page_extractions r WHERE r.page_id = c.page_id));

-- What depends on them: the proposals they support and the approved nodes they mention.
CREATE TEMP TABLE repaired_proposals ON COMMIT DROP AS
  SELECT DISTINCT proposal_id AS id FROM kg_proposal_support WHERE chunk_id IN (SELECT id FROM repaired_chunks);
CREATE TEMP TABLE repaired_nodes ON COMMIT DROP AS
  SELECT DISTINCT node_id AS id FROM kg_mentions WHERE chunk_id IN (SELECT id FROM repaired_chunks) AND node_id IS NOT NULL;

-- Their mentions and proposal support go with them (ON DELETE CASCADE).
DELETE FROM kg_content_chunks WHERE id IN (SELECT id FROM repaired_chunks);

-- Proposals count their support again; a pending one left with none is retired (as extraction does).
UPDATE kg_proposals p
   SET support_count = s.n,
       status = CASE WHEN p.status = 'pending' AND s.n = 0 THEN 'retired' ELSE p.status END,
       updated_at = now()
  FROM (SELECT r.id, (SELECT count(*) FROM kg_proposal_support x WHERE x.proposal_id = r.id)::int AS n FROM repaired_proposals r) s
 WHERE p.id = s.id;

-- Co-mention edges of the nodes that lost mentions: weighed again by their shared chunks; gone when none is left.
UPDATE kg_edges e
   SET weight = s.n, updated_at = now()
  FROM (SELECT e2.id, (SELECT count(DISTINCT a.chunk_id) FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id
                        WHERE a.node_id = e2.source_node_id AND o.node_id = e2.target_node_id) AS n
          FROM kg_edges e2
         WHERE e2.kind = 'co_mention' AND e2.origin = 'extracted'
           AND (e2.source_node_id IN (SELECT id FROM repaired_nodes) OR e2.target_node_id IN (SELECT id FROM repaired_nodes))) s
 WHERE e.id = s.id AND s.n > 0 AND e.weight IS DISTINCT FROM s.n::real;
DELETE FROM kg_edges e
 WHERE e.kind = 'co_mention' AND e.origin = 'extracted'
   AND (e.source_node_id IN (SELECT id FROM repaired_nodes) OR e.target_node_id IN (SELECT id FROM repaired_nodes))
   AND NOT EXISTS (SELECT 1 FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id
                    WHERE a.node_id = e.source_node_id AND o.node_id = e.target_node_id);

-- The repaired pages' records: their chunk count in step with the rows, and their source hash forgotten, so that the
-- page's next save, `kurate kg extract` or re-inclusion re-plans it (only chunks it lacks cost a call).
UPDATE kg_page_extractions r
   SET chunk_count = (SELECT count(*) FROM kg_content_chunks c WHERE c.page_id = r.page_id)::int,
       source_hash = 'repaired-by-0010'
 WHERE r.page_id IN (SELECT page_id FROM repaired_pages);

-- 2. Co-mentions stored the wrong way round: dropped where the right-way one exists, turned round otherwise; a
--    co-mention of a node with itself is dropped.
DELETE FROM kg_edges e
 WHERE e.kind = 'co_mention'
   AND (e.source_node_id = e.target_node_id
        OR (e.source_node_id > e.target_node_id
            AND EXISTS (SELECT 1 FROM kg_edges x WHERE x.kind = 'co_mention' AND x.predicate = e.predicate
                           AND x.source_node_id = e.target_node_id AND x.target_node_id = e.source_node_id)));
UPDATE kg_edges e SET source_node_id = e.target_node_id, target_node_id = e.source_node_id, updated_at = now()
 WHERE e.kind = 'co_mention' AND e.source_node_id > e.target_node_id;

-- 3. The constraints.
DROP INDEX kg_content_chunks_page_position_idx;
ALTER TABLE kg_content_chunks ADD CONSTRAINT kg_content_chunks_page_position_key UNIQUE (page_id, position) DEFERRABLE INITIALLY IMMEDIATE;
ALTER TABLE kg_edges ADD CONSTRAINT kg_edges_co_mention_order_check CHECK (kind <> 'co_mention' OR source_node_id < target_node_id);

-- migrate:down
ALTER TABLE kg_edges DROP CONSTRAINT kg_edges_co_mention_order_check;
ALTER TABLE kg_content_chunks DROP CONSTRAINT kg_content_chunks_page_position_key;
CREATE INDEX kg_content_chunks_page_position_idx ON kg_content_chunks (page_id, position);
