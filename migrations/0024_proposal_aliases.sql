-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Other names an extractor gives an entity it proposes (issue 17 item 3): an LLM extractor's aliases
-- (`transclusion` for embeds, `2FA` for two-factor authentication) and the other spellings its chunk uses. They
-- travel with the node proposal (the union over its support), an admin sees them in the review, and approval adds
-- them to the entity's aliases, which search reads as names of the entity.
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE kg_proposals ADD COLUMN aliases text[] NOT NULL DEFAULT '{}';

-- A view's `*` is expanded when it is made: the view of visible proposals is made again to carry the new column.
DROP VIEW kg_visible_proposals;
CREATE VIEW kg_visible_proposals AS
  SELECT p.* FROM kg_proposals p
   WHERE NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
      OR EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id));

-- migrate:down
DROP VIEW kg_visible_proposals;
ALTER TABLE kg_proposals DROP COLUMN aliases;
CREATE VIEW kg_visible_proposals AS
  SELECT p.* FROM kg_proposals p
   WHERE NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
      OR EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id));
