-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Where an imported page lives in its vault (issue 19): `kurate import` sends each note's path, and `kurate export`
-- writes the page back to that path, so that a vault goes through the wiki byte for byte, its folders' names too
-- (a cluster is a slug: `Getting started/` gives `getting-started`). vault_cluster is the `cluster:` line import
-- added to a note in a folder (null: it added none), which export leaves out again. A rename, or a save that moves
-- the page to another cluster, forgets both (src/pages/pages.repository.ts): the page then exports to
-- `<cluster>/<title>.md` like any page made in the wiki.
-- ---------------------------------------------------------------------------------------------------------------

ALTER TABLE pages ADD COLUMN vault_path text, ADD COLUMN vault_cluster text;

-- migrate:down
ALTER TABLE pages DROP COLUMN vault_path, DROP COLUMN vault_cluster;
