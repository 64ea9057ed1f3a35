-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Attachments (src/attachments/, docs/attachments.md): files kept beside the pages, by their path in the vault.
-- The bytes live in the configured store, addressed by their SHA-256 (one copy per content); this is the catalogue.
-- Paths are unique whatever their letter case, so an export never writes two files that macOS or Windows would
-- make one.
-- ---------------------------------------------------------------------------------------------------------------
CREATE TABLE attachments (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  path        text NOT NULL,
  -- The file name in lower case: links find files by name first, then by the shortest unique path.
  name_key    text NOT NULL,
  media_type  text NOT NULL,
  size_bytes  bigint NOT NULL,
  sha256      text NOT NULL,
  store       text NOT NULL,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX attachments_path_key ON attachments (lower(path));
CREATE INDEX attachments_name_key_idx ON attachments (name_key);
CREATE INDEX attachments_sha256_idx ON attachments (sha256);

-- The bytes, when KURATE_ATTACHMENTS_STORE=database.
CREATE TABLE attachment_blobs (
  sha256      text PRIMARY KEY,
  bytes       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Every file reference in a page's current text (embeds, links, images), resolved to an attachment or not yet, with
-- the page version that added it. Access to a file follows the pages that reference it.
CREATE TABLE page_file_refs (
  page_id        uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  target         text NOT NULL,
  name_key       text NOT NULL,
  attachment_id  uuid REFERENCES attachments (id) ON DELETE SET NULL,
  added_version  integer NOT NULL,
  PRIMARY KEY (page_id, target)
);
CREATE INDEX page_file_refs_attachment_idx ON page_file_refs (attachment_id);
CREATE INDEX page_file_refs_name_key_idx ON page_file_refs (name_key);

-- A wikilink to a file that exists is not a wanted page: the Page Graph's link row says which file it reached.
-- Maintained by attachments/ (no foreign key: page_links belongs to pages/, which knows nothing of attachments).
ALTER TABLE page_links ADD COLUMN resolved_attachment_id uuid;

-- migrate:down
ALTER TABLE page_links DROP COLUMN resolved_attachment_id;
DROP TABLE page_file_refs;
DROP TABLE attachment_blobs;
DROP TABLE attachments;
