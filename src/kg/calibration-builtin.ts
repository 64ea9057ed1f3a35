// Written by `npm run calibrate:extraction` (eval/extraction-calibration.eval.ts): do not edit by hand; run it again
// when the built-in extractor or the judged sets change.
//
// The built-in extractor's calibration as shipped: for each kind, the better (by cross-validated error) of Platt
// scaling and isotonic regression (src/kg/calibration.ts, fitCalibration) of "an admin keeps it" (approvable as proposed or after an edit, docs/extraction-judging.md) on the raw score, over
// the pending proposals the extractor makes on the judged corpora (foam-docs: test/fixtures/extraction-judged/foam-docs.json; dendron-site: test/fixtures/extraction-judged/dendron-site.json).
// rawError is the expected calibration error (ten bins) of the raw scores on that set, error the calibrated scores'
// (cross-validated, 5 folds). A wiki with KURATE_CALIBRATION_MIN_REVIEWED reviews of its own replaces it with a fit on
// them (src/kg/kg-calibration.service.ts).
import type { CalibrationMap, CalibrationMethod } from './calibration.js';

export interface ShippedCalibration {
  fittedOn: string;
  method: CalibrationMethod;
  /** Judged proposals it was fitted on, and how many of them an admin keeps. */
  judged: number;
  kept: number;
  rawError: number;
  error: number;
  map: CalibrationMap;
}

export const BUILTIN_CALIBRATION: Record<'node' | 'edge', ShippedCalibration> = {
  node: {
    fittedOn: "155 judged entity proposals of kurate-builtin-v9 (foam-docs, dendron-site), 2026-12-06",
    method: 'platt',
    judged: 155,
    kept: 126,
    rawError: 0.118,
    error: 0.015,
    map: { points: [[0,0.585],[0.025,0.595],[0.05,0.605],[0.075,0.614],[0.1,0.624],[0.125,0.633],[0.15,0.643],[0.175,0.652],[0.2,0.661],[0.225,0.67],[0.25,0.679],[0.275,0.688],[0.3,0.697],[0.325,0.705],[0.35,0.713],[0.375,0.722],[0.4,0.73],[0.425,0.738],[0.45,0.745],[0.475,0.753],[0.5,0.76],[0.525,0.768],[0.55,0.775],[0.575,0.782],[0.6,0.789],[0.625,0.795],[0.65,0.802],[0.675,0.808],[0.7,0.815],[0.725,0.821],[0.75,0.826],[0.775,0.832],[0.8,0.838],[0.825,0.843],[0.85,0.849],[0.875,0.854],[0.9,0.859],[0.925,0.864],[0.95,0.868],[0.975,0.873],[1,0.877]] },
  },
  edge: {
    fittedOn: "47 judged relation proposals of kurate-builtin-v9 (foam-docs, dendron-site), 2026-12-06",
    method: 'platt',
    judged: 47,
    kept: 40,
    rawError: 0.16,
    error: 0.032,
    map: { points: [[0,0.004],[0.025,0.005],[0.05,0.006],[0.075,0.008],[0.1,0.01],[0.125,0.013],[0.15,0.017],[0.175,0.022],[0.2,0.028],[0.225,0.036],[0.25,0.046],[0.275,0.059],[0.3,0.075],[0.325,0.095],[0.35,0.12],[0.375,0.15],[0.4,0.186],[0.425,0.229],[0.45,0.278],[0.475,0.334],[0.5,0.394],[0.525,0.457],[0.55,0.522],[0.575,0.586],[0.6,0.648],[0.625,0.705],[0.65,0.756],[0.675,0.801],[0.7,0.839],[0.725,0.871],[0.75,0.898],[0.775,0.919],[0.8,0.937],[0.825,0.95],[0.85,0.961],[0.875,0.97],[0.9,0.977],[0.925,0.982],[0.95,0.986],[0.975,0.989],[1,0.992]] },
  },
};
