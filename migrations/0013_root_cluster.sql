-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- The root cluster (issue 17): pages outside any cluster (a vault's root) belong, for the inclusion policy, to the
-- cluster `root`, so that an admin can include them like any other cluster (until now no policy could). Their
-- frontmatter and the `clusters` column stay as written; the policy reads them through this function. Existing
-- pages need no rewrite: without a policy row for `root` they stay excluded by default, as they were.
-- ---------------------------------------------------------------------------------------------------------------

-- A page's clusters as the inclusion policy sees them: `{root}` for a page in none. Must match ROOT_CLUSTER and
-- policyClusters in src/policy/cluster-path.ts.
CREATE FUNCTION kurate_policy_clusters(clusters text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN coalesce(cardinality(clusters), 0) = 0 THEN ARRAY['root'] ELSE clusters END $$;

-- migrate:down
DROP FUNCTION kurate_policy_clusters(text[]);
