-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- A restore's rebuild still owed (src/backup/backup.service.ts). `kurate restore` loads an archive in one transaction,
-- then rebuilds what derives from it (links, search vectors and terms, the policy's decisions, word statistics,
-- extraction jobs) in steps of their own. A process killed between the two left a wiki without links or search for
-- good. The load's transaction now also writes this row; the rebuild deletes it when every step is done, and whatever
-- runs next (a server starting, or `kurate restore` again) finishes a rebuild it finds owed. At most one row.
-- Per instance: neither backed up nor restored (src/backup/backup-tables.ts).
-- ---------------------------------------------------------------------------------------------------------------
CREATE TABLE restore_rebuild_owed (
  only_row    boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
  file        text        NOT NULL,
  checksum    text        NOT NULL,
  archive_created_at text NOT NULL,
  loaded_at   timestamptz NOT NULL DEFAULT now()
);

-- migrate:down
DROP TABLE restore_rebuild_owed;
