-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- One page per vault file: when an import records that a page came from a path, another page that came from the same
-- path (compared without letter case, as `kurate export` compares them) forgets it (src/pages/pages.repository.ts,
-- setVaultOrigin). This index finds that page without reading every page, once per imported note.
-- ---------------------------------------------------------------------------------------------------------------

CREATE INDEX pages_vault_path_lower_idx ON pages (lower(vault_path)) WHERE vault_path IS NOT NULL;

-- migrate:down
DROP INDEX pages_vault_path_lower_idx;
