-- migrate:up
CREATE TABLE pages (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug          text NOT NULL,
  title         text NOT NULL,
  body          text NOT NULL,
  frontmatter   jsonb NOT NULL DEFAULT '{}'::jsonb,
  cluster       text,
  clusters      text[] NOT NULL DEFAULT '{}',
  tags          text[] NOT NULL DEFAULT '{}',
  aliases       text[] NOT NULL DEFAULT '{}',
  page_type     text,
  is_system     boolean NOT NULL DEFAULT false,
  link_keys     text[] NOT NULL DEFAULT '{}',
  version       integer NOT NULL DEFAULT 1,
  content_hash  text NOT NULL,
  search        tsvector,
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    text NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  updated_by    text NOT NULL,
  deleted_at    timestamptz,
  deleted_by    text
);
CREATE UNIQUE INDEX pages_slug_key ON pages (slug);
CREATE INDEX pages_link_keys_idx ON pages USING gin (link_keys);
CREATE INDEX pages_search_idx ON pages USING gin (search);
CREATE INDEX pages_updated_at_idx ON pages (updated_at);
CREATE INDEX pages_cluster_idx ON pages (cluster);
CREATE INDEX pages_tags_idx ON pages USING gin (tags);

CREATE TABLE page_revisions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  page_id       uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  version       integer NOT NULL,
  slug          text NOT NULL,
  title         text NOT NULL,
  body          text NOT NULL,
  content_hash  text NOT NULL,
  author        text NOT NULL,
  message       text NOT NULL DEFAULT '',
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX page_revisions_page_version_key ON page_revisions (page_id, version);
CREATE INDEX page_revisions_created_at_idx ON page_revisions (created_at);

CREATE TABLE page_links (
  id                bigserial PRIMARY KEY,
  from_page_id      uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  kind              text NOT NULL,
  target            text NOT NULL,
  target_key        text NOT NULL,
  heading           text,
  position          integer NOT NULL,
  resolved_page_id  uuid REFERENCES pages (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX page_links_from_key_key ON page_links (from_page_id, target_key);
CREATE INDEX page_links_target_key_idx ON page_links (target_key);
CREATE INDEX page_links_resolved_idx ON page_links (resolved_page_id);

CREATE TABLE page_redirects (
  old_slug    text PRIMARY KEY,
  page_id     uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX page_redirects_page_idx ON page_redirects (page_id);

-- migrate:down
DROP TABLE page_redirects;
DROP TABLE page_links;
DROP TABLE page_revisions;
DROP TABLE pages;
