-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- The inclusion policy: which pages may feed the knowledge graph (src/policy/, docs/kg-policy.md).
-- ---------------------------------------------------------------------------------------------------------------

CREATE TABLE kg_cluster_policy (
  cluster      text PRIMARY KEY,
  action       text NOT NULL,
  reason       text NOT NULL,
  set_by       text NOT NULL,
  set_at       timestamptz NOT NULL DEFAULT now(),
  -- Setting a policy counts as reviewing it; "mark reviewed" moves only these two.
  reviewed_at  timestamptz NOT NULL DEFAULT now(),
  reviewed_by  text NOT NULL,
  CONSTRAINT kg_cluster_policy_action_check CHECK (action IN ('include', 'exclude')),
  CONSTRAINT kg_cluster_policy_reason_check CHECK (btrim(reason) <> '')
);

CREATE TABLE kg_policy_audit (
  id               bigserial PRIMARY KEY,
  created_at       timestamptz NOT NULL DEFAULT now(),
  actor            text NOT NULL,
  event            text NOT NULL,
  cluster          text,
  previous_action  text,
  action           text,
  reason           text,
  details          jsonb NOT NULL DEFAULT '{}'::jsonb,
  CONSTRAINT kg_policy_audit_event_check CHECK (event IN ('set', 'clear', 'review', 'bootstrap', 'purge'))
);
CREATE INDEX kg_policy_audit_cluster_idx ON kg_policy_audit (cluster, id);

-- An audit trail that can be edited proves nothing: refuse UPDATE, DELETE and TRUNCATE outright.
CREATE FUNCTION kg_policy_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'kg_policy_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER kg_policy_audit_no_update_delete BEFORE UPDATE OR DELETE ON kg_policy_audit
  FOR EACH ROW EXECUTE FUNCTION kg_policy_audit_append_only();
CREATE TRIGGER kg_policy_audit_no_truncate BEFORE TRUNCATE ON kg_policy_audit
  FOR EACH STATEMENT EXECUTE FUNCTION kg_policy_audit_append_only();

-- Pages that may NOT feed the knowledge graph, with the rule that decided it; a live page without a row is included.
CREATE TABLE kg_excluded_pages (
  page_id         uuid PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
  reason          text NOT NULL,
  -- For reason cluster_policy: the cluster whose policy row decided (the page's cluster or its parent).
  policy_cluster  text,
  decided_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_excluded_pages_reason_check
    CHECK (reason IN ('page_in_trash', 'system_page', 'page_override', 'cluster_policy', 'default'))
);

-- No policy exists yet, so every page already in the wiki starts excluded (default-exclude) unless it opts in;
-- the start-up reconciliation then applies KURATE_SYSTEM_PAGE_PATTERN.
INSERT INTO kg_excluded_pages (page_id, reason)
SELECT id,
       CASE WHEN deleted_at IS NOT NULL THEN 'page_in_trash'
            WHEN is_system THEN 'system_page'
            WHEN frontmatter -> 'kg_include' = 'false'::jsonb THEN 'page_override'
            ELSE 'default' END
  FROM pages
 WHERE deleted_at IS NOT NULL OR is_system OR frontmatter -> 'kg_include' IS DISTINCT FROM 'true'::jsonb;

-- ---------------------------------------------------------------------------------------------------------------
-- The knowledge graph. Provenance is explicit, so "what derives from which page" has one exact answer:
--   chunk → page; mention → chunk; proposal → kg_proposal_support → chunk + page;
--   node → its mentions and kg_node_provenance → proposals; edge → kg_edge_provenance → proposals,
--   and a co_mention edge → the chunks that mention both of its nodes.
-- ---------------------------------------------------------------------------------------------------------------

CREATE TABLE kg_content_chunks (
  id               bigserial PRIMARY KEY,
  page_id          uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  position         integer NOT NULL,
  heading_path     text[] NOT NULL DEFAULT '{}',
  text             text NOT NULL,
  content_hash     text NOT NULL,
  token_estimate   integer NOT NULL DEFAULT 0,
  -- No fixed dimension: each vector records its model and size (an HNSW index needs one size, so it is per model).
  embedding        vector,
  embedding_model  text,
  embedding_dims   integer,
  search           tsvector,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_content_chunks_embedding_check
    CHECK (embedding IS NULL OR (embedding_model IS NOT NULL AND embedding_dims = vector_dims(embedding)))
);
CREATE INDEX kg_content_chunks_page_position_idx ON kg_content_chunks (page_id, position);
CREATE INDEX kg_content_chunks_page_hash_idx ON kg_content_chunks (page_id, content_hash);
CREATE INDEX kg_content_chunks_search_idx ON kg_content_chunks USING gin (search);

CREATE TABLE kg_nodes (
  id           bigserial PRIMARY KEY,
  signature    text NOT NULL,
  name         text NOT NULL,
  node_type    text NOT NULL,
  aliases      text[] NOT NULL DEFAULT '{}',
  description  text NOT NULL DEFAULT '',
  -- extracted: stands on the pages that support it; manual / import: stands on its own (an admin made it).
  origin       text NOT NULL DEFAULT 'extracted',
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_nodes_origin_check CHECK (origin IN ('extracted', 'manual', 'import'))
);
CREATE UNIQUE INDEX kg_nodes_signature_key ON kg_nodes (signature);

CREATE TABLE kg_node_embeddings (
  node_id     bigint NOT NULL REFERENCES kg_nodes (id) ON DELETE CASCADE,
  model       text NOT NULL,
  dims        integer NOT NULL,
  embedding   vector NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (node_id, model),
  CONSTRAINT kg_node_embeddings_dims_check CHECK (dims = vector_dims(embedding))
);

CREATE TABLE kg_edges (
  id              bigserial PRIMARY KEY,
  source_node_id  bigint NOT NULL REFERENCES kg_nodes (id) ON DELETE CASCADE,
  target_node_id  bigint NOT NULL REFERENCES kg_nodes (id) ON DELETE CASCADE,
  kind            text NOT NULL,
  -- Typed edges: a predicate of the closed list; co-mentions: 'co_mention', source id < target id.
  predicate       text NOT NULL,
  weight          real NOT NULL DEFAULT 1,
  origin          text NOT NULL DEFAULT 'extracted',
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_edges_kind_check CHECK (kind IN ('co_mention', 'typed')),
  CONSTRAINT kg_edges_origin_check CHECK (origin IN ('extracted', 'manual', 'import'))
);
CREATE UNIQUE INDEX kg_edges_source_target_kind_predicate_key ON kg_edges (source_node_id, target_node_id, kind, predicate);
CREATE INDEX kg_edges_target_idx ON kg_edges (target_node_id);

CREATE TABLE kg_proposals (
  id                bigserial PRIMARY KEY,
  kind              text NOT NULL,
  -- Nodes: normalised name + type; edges: source signature + predicate + target signature.
  signature         text NOT NULL,
  name              text,
  node_type         text,
  source_signature  text,
  source_name       text,
  predicate         text,
  target_signature  text,
  target_name       text,
  description       text NOT NULL DEFAULT '',
  confidence        real NOT NULL,
  evidence_quote    text,
  support_count     integer NOT NULL DEFAULT 0,
  status            text NOT NULL DEFAULT 'pending',
  extractor         text NOT NULL,
  model             text,
  reviewed_by       text,
  reviewed_at       timestamptz,
  review_note       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT kg_proposals_kind_check CHECK (kind IN ('node', 'edge')),
  CONSTRAINT kg_proposals_status_check CHECK (status IN ('pending', 'approved', 'rejected', 'retired')),
  CONSTRAINT kg_proposals_confidence_check CHECK (confidence >= 0 AND confidence <= 1),
  CONSTRAINT kg_proposals_shape_check CHECK (
    (kind = 'node' AND name IS NOT NULL AND node_type IS NOT NULL) OR
    (kind = 'edge' AND source_signature IS NOT NULL AND predicate IS NOT NULL AND target_signature IS NOT NULL))
);
-- One pending proposal per signature (extraction upserts into it); reviewed ones stay as history.
CREATE UNIQUE INDEX kg_proposals_pending_signature_key ON kg_proposals (kind, signature) WHERE status = 'pending';
CREATE INDEX kg_proposals_status_idx ON kg_proposals (status, id);

-- Which chunk (and so which page) said it, with the verbatim quote. page_id is the chunk's page, kept for the index.
CREATE TABLE kg_proposal_support (
  proposal_id  bigint NOT NULL REFERENCES kg_proposals (id) ON DELETE CASCADE,
  chunk_id     bigint NOT NULL REFERENCES kg_content_chunks (id) ON DELETE CASCADE,
  page_id      uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  quote        text NOT NULL,
  confidence   real,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (proposal_id, chunk_id)
);
CREATE INDEX kg_proposal_support_page_idx ON kg_proposal_support (page_id);
CREATE INDEX kg_proposal_support_chunk_idx ON kg_proposal_support (chunk_id);

-- Which approved proposals a node or an edge came from (and who approved them).
CREATE TABLE kg_node_provenance (
  node_id      bigint NOT NULL REFERENCES kg_nodes (id) ON DELETE CASCADE,
  proposal_id  bigint NOT NULL REFERENCES kg_proposals (id) ON DELETE CASCADE,
  approved_by  text NOT NULL,
  approved_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (node_id, proposal_id)
);
CREATE INDEX kg_node_provenance_proposal_idx ON kg_node_provenance (proposal_id);

CREATE TABLE kg_edge_provenance (
  edge_id      bigint NOT NULL REFERENCES kg_edges (id) ON DELETE CASCADE,
  proposal_id  bigint NOT NULL REFERENCES kg_proposals (id) ON DELETE CASCADE,
  approved_by  text NOT NULL,
  approved_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (edge_id, proposal_id)
);
CREATE INDEX kg_edge_provenance_proposal_idx ON kg_edge_provenance (proposal_id);

-- An entity named in a chunk. node_id stays null until an entity with that signature is approved.
CREATE TABLE kg_mentions (
  id          bigserial PRIMARY KEY,
  chunk_id    bigint NOT NULL REFERENCES kg_content_chunks (id) ON DELETE CASCADE,
  signature   text NOT NULL,
  node_id     bigint REFERENCES kg_nodes (id) ON DELETE SET NULL,
  surface     text NOT NULL,
  confidence  real,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX kg_mentions_chunk_signature_key ON kg_mentions (chunk_id, signature);
CREATE INDEX kg_mentions_node_idx ON kg_mentions (node_id, chunk_id);
CREATE INDEX kg_mentions_signature_idx ON kg_mentions (signature);

-- Negative knowledge: a rejected signature is not proposed again until an admin clears it.
CREATE TABLE kg_rejections (
  kind         text NOT NULL,
  signature    text NOT NULL,
  reason       text,
  rejected_by  text NOT NULL,
  rejected_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, signature),
  CONSTRAINT kg_rejections_kind_check CHECK (kind IN ('node', 'edge'))
);

-- ---------------------------------------------------------------------------------------------------------------
-- Soft exclude: every read path of the knowledge graph reads these views, never the tables, so an exclusion hides
-- what derives ONLY from excluded pages at once and a re-inclusion brings it back untouched.
-- A node, edge or proposal is hidden when it has page support and all of it is excluded; one that an admin made
-- (origin manual/import) or that has no page support at all stays visible. An edge also needs both of its nodes.
-- ---------------------------------------------------------------------------------------------------------------

CREATE VIEW kg_visible_pages AS
  SELECT p.* FROM pages p
   WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id);

CREATE VIEW kg_visible_chunks AS
  SELECT c.* FROM kg_content_chunks c
   WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id);

CREATE VIEW kg_visible_mentions AS
  SELECT m.* FROM kg_mentions m
   WHERE EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.id = m.chunk_id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id));

CREATE VIEW kg_visible_proposal_support AS
  SELECT s.* FROM kg_proposal_support s
   WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id);

CREATE VIEW kg_visible_proposals AS
  SELECT p.* FROM kg_proposals p
   WHERE NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
      OR EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id));

-- The pages a node or an edge stands on (one row per piece of evidence).
CREATE VIEW kg_node_support_pages AS
  SELECT m.node_id, c.page_id
    FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id
   WHERE m.node_id IS NOT NULL
  UNION ALL
  SELECT np.node_id, s.page_id
    FROM kg_node_provenance np JOIN kg_proposal_support s ON s.proposal_id = np.proposal_id;

CREATE VIEW kg_edge_support_pages AS
  SELECT ep.edge_id, s.page_id
    FROM kg_edge_provenance ep JOIN kg_proposal_support s ON s.proposal_id = ep.proposal_id
  UNION ALL
  SELECT e.id AS edge_id, c.page_id
    FROM kg_edges e
    JOIN kg_mentions ms ON ms.node_id = e.source_node_id
    JOIN kg_mentions mt ON mt.node_id = e.target_node_id AND mt.chunk_id = ms.chunk_id
    JOIN kg_content_chunks c ON c.id = ms.chunk_id
   WHERE e.kind = 'co_mention';

CREATE VIEW kg_visible_nodes AS
  SELECT n.* FROM kg_nodes n
   WHERE n.origin <> 'extracted'
      OR NOT EXISTS (SELECT 1 FROM kg_node_support_pages sp WHERE sp.node_id = n.id)
      OR EXISTS (SELECT 1 FROM kg_node_support_pages sp WHERE sp.node_id = n.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = sp.page_id));

CREATE VIEW kg_visible_edges AS
  SELECT e.* FROM kg_edges e
   WHERE EXISTS (SELECT 1 FROM kg_visible_nodes s WHERE s.id = e.source_node_id)
     AND EXISTS (SELECT 1 FROM kg_visible_nodes t WHERE t.id = e.target_node_id)
     AND (e.origin <> 'extracted'
          OR NOT EXISTS (SELECT 1 FROM kg_edge_support_pages sp WHERE sp.edge_id = e.id)
          OR EXISTS (SELECT 1 FROM kg_edge_support_pages sp WHERE sp.edge_id = e.id
                        AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = sp.page_id)));

-- migrate:down
DROP VIEW kg_visible_edges;
DROP VIEW kg_visible_nodes;
DROP VIEW kg_edge_support_pages;
DROP VIEW kg_node_support_pages;
DROP VIEW kg_visible_proposals;
DROP VIEW kg_visible_proposal_support;
DROP VIEW kg_visible_mentions;
DROP VIEW kg_visible_chunks;
DROP VIEW kg_visible_pages;
DROP TABLE kg_rejections;
DROP TABLE kg_mentions;
DROP TABLE kg_edge_provenance;
DROP TABLE kg_node_provenance;
DROP TABLE kg_proposal_support;
DROP TABLE kg_proposals;
DROP TABLE kg_edges;
DROP TABLE kg_node_embeddings;
DROP TABLE kg_nodes;
DROP TABLE kg_content_chunks;
DROP TABLE kg_excluded_pages;
DROP TABLE kg_policy_audit;
DROP FUNCTION kg_policy_audit_append_only();
DROP TABLE kg_cluster_policy;
