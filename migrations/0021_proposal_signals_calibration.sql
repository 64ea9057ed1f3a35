-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Why a proposal was proposed, and what its confidence means (docs/review.md, docs/extraction.md).
-- - raw_confidence: the extractor's own score (the best support's); `confidence` is that score calibrated into the
--   chance that an admin approves the proposal (src/kg/calibration.ts), refitted from each wiki's review history.
-- - signals: the extractor's reasons for the best support (`link`, `properNoun`, `repeat×2`, `sentence-pattern`, …).
-- - signal_pattern: the signals' names without their counts, sorted and joined by `+` (`heading+properNoun`), and
--   name_stem: the name without case, `-`/`_` and a plural on its last word (`tags` → `tag`); both say which earlier
--   rejections a proposal resembles ("12 similar proposals were rejected before"), through the two indexes below.
-- - kg_calibration_fits: the calibration fitted on this wiki's own reviews, per extractor and kind, once it has enough.
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE kg_proposals
  ADD COLUMN raw_confidence real,
  ADD COLUMN signals text[] NOT NULL DEFAULT '{}',
  ADD COLUMN signal_pattern text NOT NULL DEFAULT '',
  ADD COLUMN name_stem text,
  ADD CONSTRAINT kg_proposals_raw_confidence_check CHECK (raw_confidence IS NULL OR (raw_confidence >= 0 AND raw_confidence <= 1));

-- A view's `*` is expanded when it is made: the view of visible proposals is made again to carry the new columns.
DROP VIEW kg_visible_proposals;
CREATE VIEW kg_visible_proposals AS
  SELECT p.* FROM kg_proposals p
   WHERE NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
      OR EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id));

-- Proposals made before this migration had no calibration: their confidence is the extractor's score.
UPDATE kg_proposals SET raw_confidence = confidence;
UPDATE kg_proposals
   SET name_stem = regexp_replace(
         regexp_replace(lower(btrim(regexp_replace(normalize(name, NFKC), '[-_[:space:]]+', ' ', 'g'))), '([^ ]{2,})ies$', '\1y'),
         '([^ ]{2,}[^s])s$', '\1')
 WHERE kind = 'node';

CREATE INDEX kg_proposals_rejected_stem_idx ON kg_proposals (kind, name_stem) WHERE status = 'rejected';
CREATE INDEX kg_proposals_rejected_pattern_idx ON kg_proposals (kind, coalesce(node_type, predicate), signal_pattern) WHERE status = 'rejected';

CREATE TABLE kg_calibration_fits (
  extractor   text NOT NULL,
  kind        text NOT NULL,
  -- platt, isotonic or identity (the raw score): the lowest cross-validated error on these reviews (src/kg/calibration.ts).
  method      text NOT NULL,
  -- The map, as [raw, probability] knots in increasing raw order (piecewise linear between them, flat beyond).
  points      jsonb NOT NULL,
  -- The reviews it was fitted on: approved (as proposed or after an edit) and rejected proposals.
  reviewed    integer NOT NULL,
  approved    integer NOT NULL,
  -- Expected calibration error (ten bins) of the raw scores, and of the calibrated ones (cross-validated, 5 folds).
  ece_raw     real NOT NULL,
  ece         real NOT NULL,
  fitted_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (extractor, kind),
  CONSTRAINT kg_calibration_fits_kind_check CHECK (kind IN ('node', 'edge')),
  CONSTRAINT kg_calibration_fits_method_check CHECK (method IN ('platt', 'isotonic', 'identity'))
);

-- migrate:down
DROP TABLE kg_calibration_fits;
DROP INDEX kg_proposals_rejected_pattern_idx;
DROP INDEX kg_proposals_rejected_stem_idx;
DROP VIEW kg_visible_proposals;
ALTER TABLE kg_proposals
  DROP CONSTRAINT kg_proposals_raw_confidence_check,
  DROP COLUMN name_stem,
  DROP COLUMN signal_pattern,
  DROP COLUMN signals,
  DROP COLUMN raw_confidence;
CREATE VIEW kg_visible_proposals AS
  SELECT p.* FROM kg_proposals p
   WHERE NOT EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id)
      OR EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id
                    AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = s.page_id));
