-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Query understanding (src/search/search-names.service.ts): every app process keeps a dictionary of page titles
-- and aliases and of the approved entities' names, aliases and neighbours. These triggers tell every process, on
-- commit (NOTIFY), that it must read it again: when a page's title, aliases or liveness change, when approved
-- entities, their other names or edges change, and when the inclusion policy hides or shows pages.
-- ---------------------------------------------------------------------------------------------------------------

CREATE FUNCTION kurate_search_names_changed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM pg_notify('kurate_search_names', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER pages_search_names_insert AFTER INSERT OR DELETE ON pages
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER pages_search_names_update AFTER UPDATE ON pages
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.aliases IS DISTINCT FROM NEW.aliases
                     OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
  EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_nodes_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_node_signatures_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_node_signatures
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_edges_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_edges
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_excluded_pages_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_excluded_pages
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();

-- migrate:down
DROP TRIGGER kg_excluded_pages_search_names ON kg_excluded_pages;
DROP TRIGGER kg_edges_search_names ON kg_edges;
DROP TRIGGER kg_node_signatures_search_names ON kg_node_signatures;
DROP TRIGGER kg_nodes_search_names ON kg_nodes;
DROP TRIGGER pages_search_names_update ON pages;
DROP TRIGGER pages_search_names_insert ON pages;
DROP FUNCTION kurate_search_names_changed();
