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
    fittedOn: "154 judged entity proposals of kurate-builtin-v8 (foam-docs, dendron-site), 2026-12-06",
    method: 'platt',
    judged: 154,
    kept: 125,
    rawError: 0.118,
    error: 0.05,
    map: { points: [[0,0.606],[0.025,0.615],[0.05,0.623],[0.075,0.632],[0.1,0.641],[0.125,0.649],[0.15,0.658],[0.175,0.666],[0.2,0.674],[0.225,0.682],[0.25,0.69],[0.275,0.698],[0.3,0.706],[0.325,0.714],[0.35,0.721],[0.375,0.729],[0.4,0.736],[0.425,0.743],[0.45,0.75],[0.475,0.757],[0.5,0.764],[0.525,0.77],[0.55,0.777],[0.575,0.783],[0.6,0.79],[0.625,0.796],[0.65,0.802],[0.675,0.808],[0.7,0.813],[0.725,0.819],[0.75,0.824],[0.775,0.83],[0.8,0.835],[0.825,0.84],[0.85,0.845],[0.875,0.85],[0.9,0.854],[0.925,0.859],[0.95,0.863],[0.975,0.868],[1,0.872]] },
  },
  edge: {
    fittedOn: "46 judged relation proposals of kurate-builtin-v8 (foam-docs, dendron-site), 2026-12-06",
    method: 'isotonic',
    judged: 46,
    kept: 39,
    rawError: 0.172,
    error: 0.032,
    map: { points: [[0.615,0.565],[0.63,0.565],[0.635,0.674],[0.651,0.674],[0.654,0.862],[0.7,0.862],[0.707,0.941],[0.75,0.941]] },
  },
};
