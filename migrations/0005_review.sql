-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Review and curation of the knowledge graph (src/admin/, docs/review.md).
-- ---------------------------------------------------------------------------------------------------------------

-- Every review action (approve, reject, edit, delete, merge, import, undo…), newest last. Its journal rows hold the
-- before- and after-image of every KG row it touched, written in the action's own transaction, so that an undo can
-- put back exactly the rows that were there (and refuse when anything it touched has changed since).
CREATE TABLE kg_review_actions (
  id             bigserial PRIMARY KEY,
  action         text NOT NULL,
  actor_user_id  uuid,
  actor_name     text NOT NULL,
  target         text,
  summary        text NOT NULL,
  details        jsonb NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL DEFAULT now(),
  -- Set while the action stands undone (an undo of the undo clears it again).
  undone_at      timestamptz,
  undone_by      text,
  -- For action 'undo': the action it undid.
  undo_of        bigint REFERENCES kg_review_actions (id),
  CONSTRAINT kg_review_actions_action_check CHECK (action IN (
    'approve', 'reject', 'bulk_approve', 'bulk_reject',
    'entity_create', 'entity_update', 'entity_delete', 'entity_merge',
    'edge_create', 'edge_update', 'edge_delete', 'import', 'undo'))
);
CREATE INDEX kg_review_actions_undo_of_idx ON kg_review_actions (undo_of);

CREATE TABLE kg_review_journal (
  id          bigserial PRIMARY KEY,
  action_id   bigint NOT NULL REFERENCES kg_review_actions (id) ON DELETE CASCADE,
  table_name  text NOT NULL,
  -- The row's primary key as an object, e.g. {"id": 12} or {"node_id": 3, "proposal_id": 9}.
  row_key     jsonb NOT NULL,
  -- to_jsonb(row) before the action (null: the action created it) and after it (null: the action deleted it).
  before      jsonb,
  after       jsonb,
  CONSTRAINT kg_review_journal_table_check CHECK (table_name IN (
    'kg_proposals', 'kg_rejections', 'kg_nodes', 'kg_node_signatures', 'kg_node_embeddings', 'kg_node_provenance',
    'kg_edges', 'kg_edge_provenance', 'kg_mentions'))
);
CREATE UNIQUE INDEX kg_review_journal_row_key ON kg_review_journal (action_id, table_name, row_key);

-- Signatures that lead to a node besides its own: the name an entity had before a rename, the entities merged into
-- it, a proposal approved under another name. Extraction and edge approval resolve a signature here when no node
-- carries it, so an edge proposed between "Postgres" and "SQL" still lands on the merged "PostgreSQL".
CREATE TABLE kg_node_signatures (
  signature   text PRIMARY KEY,
  node_id     bigint NOT NULL REFERENCES kg_nodes (id) ON DELETE CASCADE,
  reason      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_node_signatures_reason_check CHECK (reason IN ('renamed', 'merged', 'approved_as'))
);
CREATE INDEX kg_node_signatures_node_idx ON kg_node_signatures (node_id);

-- The review queue pages with keyset pagination over pending proposals, whatever the sort: one partial index per
-- sort key (scanned forwards or backwards), and two for the most selective filters (type, predicate).
CREATE INDEX kg_proposals_queue_confidence_idx ON kg_proposals (confidence, id) WHERE status = 'pending';
CREATE INDEX kg_proposals_queue_support_idx ON kg_proposals (support_count, id) WHERE status = 'pending';
CREATE INDEX kg_proposals_queue_age_idx ON kg_proposals (created_at, id) WHERE status = 'pending';
CREATE INDEX kg_proposals_queue_type_idx ON kg_proposals (node_type, confidence, id) WHERE status = 'pending' AND kind = 'node';
CREATE INDEX kg_proposals_queue_predicate_idx ON kg_proposals (predicate, confidence, id) WHERE status = 'pending' AND kind = 'edge';
-- Pending edge proposals that wait for a node (approving an edge approves its pending endpoints).
CREATE INDEX kg_proposals_pending_source_idx ON kg_proposals (source_signature) WHERE status = 'pending' AND kind = 'edge';
CREATE INDEX kg_proposals_pending_target_idx ON kg_proposals (target_signature) WHERE status = 'pending' AND kind = 'edge';

-- Possible duplicates: the same normalised name, or a small edit distance (pg_trgm similarity, nearest first).
-- GiST rather than GIN: it also answers "nearest first" (<->) for the few candidates a proposal shows.
CREATE INDEX kg_nodes_lower_name_idx ON kg_nodes (lower(name));
CREATE INDEX kg_nodes_name_trgm_idx ON kg_nodes USING gist (lower(name) gist_trgm_ops);
CREATE INDEX kg_nodes_type_idx ON kg_nodes (node_type, id);

-- migrate:down
DROP INDEX kg_nodes_type_idx;
DROP INDEX kg_nodes_name_trgm_idx;
DROP INDEX kg_nodes_lower_name_idx;
DROP INDEX kg_proposals_pending_target_idx;
DROP INDEX kg_proposals_pending_source_idx;
DROP INDEX kg_proposals_queue_predicate_idx;
DROP INDEX kg_proposals_queue_type_idx;
DROP INDEX kg_proposals_queue_age_idx;
DROP INDEX kg_proposals_queue_support_idx;
DROP INDEX kg_proposals_queue_confidence_idx;
DROP TABLE kg_node_signatures;
DROP TABLE kg_review_journal;
DROP TABLE kg_review_actions;
