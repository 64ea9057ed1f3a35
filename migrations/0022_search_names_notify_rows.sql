-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Migration 0012's statement-level triggers told every process to read its dictionary of names again after every
-- statement on kg_excluded_pages, kg_nodes, kg_node_signatures, kg_edges (and every INSERT or DELETE on pages),
-- even one that changed no row: every page save (the policy's reconciliation runs a DELETE and an upsert on
-- kg_excluded_pages that usually touch nothing) and every extraction job (its co-mention upsert on kg_edges) made
-- every process reload the names, two heavy reads each time, under a mixed load many times a second (issue 18).
-- The same triggers, one per event with its transition table, now notify only when the statement changed a row.
-- ---------------------------------------------------------------------------------------------------------------

CREATE FUNCTION kurate_search_names_rows_changed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    PERFORM pg_notify('kurate_search_names', '');
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER kg_excluded_pages_search_names ON kg_excluded_pages;
DROP TRIGGER kg_edges_search_names ON kg_edges;
DROP TRIGGER kg_node_signatures_search_names ON kg_node_signatures;
DROP TRIGGER kg_nodes_search_names ON kg_nodes;
DROP TRIGGER pages_search_names_insert ON pages;

-- A trigger with a transition table fires on one event only: three per table (pages: insert and delete; its
-- updates keep 0012's row trigger, which already looks at what changed).
CREATE TRIGGER pages_search_names_insert AFTER INSERT ON pages REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER pages_search_names_delete AFTER DELETE ON pages REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();

CREATE TRIGGER kg_nodes_search_names_insert AFTER INSERT ON kg_nodes REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_nodes_search_names_update AFTER UPDATE ON kg_nodes REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_nodes_search_names_delete AFTER DELETE ON kg_nodes REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();

CREATE TRIGGER kg_node_signatures_search_names_insert AFTER INSERT ON kg_node_signatures REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_node_signatures_search_names_update AFTER UPDATE ON kg_node_signatures REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_node_signatures_search_names_delete AFTER DELETE ON kg_node_signatures REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();

CREATE TRIGGER kg_edges_search_names_insert AFTER INSERT ON kg_edges REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_edges_search_names_update AFTER UPDATE ON kg_edges REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_edges_search_names_delete AFTER DELETE ON kg_edges REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();

CREATE TRIGGER kg_excluded_pages_search_names_insert AFTER INSERT ON kg_excluded_pages REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_excluded_pages_search_names_update AFTER UPDATE ON kg_excluded_pages REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();
CREATE TRIGGER kg_excluded_pages_search_names_delete AFTER DELETE ON kg_excluded_pages REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_rows_changed();

-- migrate:down
DROP TRIGGER kg_excluded_pages_search_names_delete ON kg_excluded_pages;
DROP TRIGGER kg_excluded_pages_search_names_update ON kg_excluded_pages;
DROP TRIGGER kg_excluded_pages_search_names_insert ON kg_excluded_pages;
DROP TRIGGER kg_edges_search_names_delete ON kg_edges;
DROP TRIGGER kg_edges_search_names_update ON kg_edges;
DROP TRIGGER kg_edges_search_names_insert ON kg_edges;
DROP TRIGGER kg_node_signatures_search_names_delete ON kg_node_signatures;
DROP TRIGGER kg_node_signatures_search_names_update ON kg_node_signatures;
DROP TRIGGER kg_node_signatures_search_names_insert ON kg_node_signatures;
DROP TRIGGER kg_nodes_search_names_delete ON kg_nodes;
DROP TRIGGER kg_nodes_search_names_update ON kg_nodes;
DROP TRIGGER kg_nodes_search_names_insert ON kg_nodes;
DROP TRIGGER pages_search_names_delete ON pages;
DROP TRIGGER pages_search_names_insert ON pages;
DROP FUNCTION kurate_search_names_rows_changed();

CREATE TRIGGER pages_search_names_insert AFTER INSERT OR DELETE ON pages
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_nodes_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_node_signatures_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_node_signatures
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_edges_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_edges
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
CREATE TRIGGER kg_excluded_pages_search_names AFTER INSERT OR UPDATE OR DELETE ON kg_excluded_pages
  FOR EACH STATEMENT EXECUTE FUNCTION kurate_search_names_changed();
