-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- No edge joins a node to itself (docs/data-integrity.md). A typed self-loop ("B uses B") says nothing: a merge of
-- A into B drops the edge A→B for that reason (CurationWritesRepository.mergeNodes), and an approval refuses an edge
-- proposal whose ends are one entity (409). Yet an approval that raced a merge of its ends stored one (it resolved
-- the ends again after the merge had committed, without checking them; fixed in ReviewService.plan, which now locks
-- the ends), and so did an import as approved of an edge whose two ends, distinct in the file, led to one entity (one
-- had been merged into the other; fixed in GraphTransferService.import). A co-mention cannot be one already: its
-- CHECK (0010) wants source id < target id. This migration removes what was stored, then adds the CHECK that makes a
-- self-loop of any kind impossible.
--
-- What goes with a removed edge, and what stays:
--   kg_edge_provenance  its rows go with it (ON DELETE CASCADE), as when an admin deletes an edge or a merge drops a
--                       self-loop.
--   kg_proposals        the edge proposals it was approved from stay `approved`: that is what the admin decided, and
--                       what a merge that drops a self-loop, or an admin deleting an edge, leaves too. Their signature
--                       is not rejected, so extraction may propose the relation again; its approval is then refused
--                       while its ends are one entity.
--   kg_review_journal   an action that created or changed such an edge can no longer be undone with it: its undo
--                       finds the row changed outside review (409 `changed_since`), and an undo that would put a
--                       self-loop back is refused by the CHECK (a 409 as well).
-- ---------------------------------------------------------------------------------------------------------------
DELETE FROM kg_edges WHERE source_node_id = target_node_id;

ALTER TABLE kg_edges ADD CONSTRAINT kg_edges_no_self_loop_check CHECK (source_node_id <> target_node_id);

-- migrate:down
ALTER TABLE kg_edges DROP CONSTRAINT kg_edges_no_self_loop_check;
