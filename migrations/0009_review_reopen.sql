-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Taking a rejection back (POST /admin/knowledge-graph/proposals/:id/reopen, POST …/rejections/forget) is a review
-- action like the others: journaled, undoable, in the audit trail.
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE kg_review_actions DROP CONSTRAINT kg_review_actions_action_check;
ALTER TABLE kg_review_actions ADD CONSTRAINT kg_review_actions_action_check CHECK (action IN (
  'approve', 'reject', 'bulk_approve', 'bulk_reject', 'reopen',
  'entity_create', 'entity_update', 'entity_delete', 'entity_merge',
  'edge_create', 'edge_update', 'edge_delete', 'import', 'undo'));

-- migrate:down
-- The reopen actions go with the kind (their effects stay: the proposals and rejections as they are now).
UPDATE kg_review_actions SET undo_of = NULL WHERE undo_of IN (SELECT id FROM kg_review_actions WHERE action = 'reopen');
DELETE FROM kg_review_journal WHERE action_id IN (SELECT id FROM kg_review_actions WHERE action = 'reopen');
DELETE FROM kg_review_actions WHERE action = 'reopen';
ALTER TABLE kg_review_actions DROP CONSTRAINT kg_review_actions_action_check;
ALTER TABLE kg_review_actions ADD CONSTRAINT kg_review_actions_action_check CHECK (action IN (
  'approve', 'reject', 'bulk_approve', 'bulk_reject',
  'entity_create', 'entity_update', 'entity_delete', 'entity_merge',
  'edge_create', 'edge_update', 'edge_delete', 'import', 'undo'));
