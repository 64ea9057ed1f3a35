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
    fittedOn: "150 judged entity proposals of kurate-builtin-v8 (foam-docs, dendron-site), 2026-12-06",
    method: 'platt',
    judged: 150,
    kept: 122,
    rawError: 0.117,
    error: 0.012,
    map: { points: [[0,0.541],[0.025,0.553],[0.05,0.564],[0.075,0.576],[0.1,0.587],[0.125,0.599],[0.15,0.61],[0.175,0.621],[0.2,0.632],[0.225,0.643],[0.25,0.654],[0.275,0.664],[0.3,0.675],[0.325,0.685],[0.35,0.695],[0.375,0.705],[0.4,0.715],[0.425,0.724],[0.45,0.733],[0.475,0.743],[0.5,0.751],[0.525,0.76],[0.55,0.769],[0.575,0.777],[0.6,0.785],[0.625,0.793],[0.65,0.8],[0.675,0.808],[0.7,0.815],[0.725,0.822],[0.75,0.829],[0.775,0.835],[0.8,0.842],[0.825,0.848],[0.85,0.854],[0.875,0.86],[0.9,0.865],[0.925,0.871],[0.95,0.876],[0.975,0.881],[1,0.886]] },
  },
  edge: {
    fittedOn: "41 judged relation proposals of kurate-builtin-v8 (foam-docs, dendron-site), 2026-12-06",
    method: 'isotonic',
    judged: 41,
    kept: 34,
    rawError: 0.174,
    error: 0.039,
    map: { points: [[0.615,0.553],[0.63,0.553],[0.646,0.665],[0.651,0.665],[0.654,0.848],[0.7,0.848],[0.75,0.929]] },
  },
};
