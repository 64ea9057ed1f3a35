// Written by `npm run calibrate:extraction` (eval/extraction-calibration.eval.ts): do not edit by hand; run it again
// when the built-in extractor or the judged sets change.
//
// The built-in extractor's calibration as shipped: for each kind, the better (by cross-validated error) of Platt
// scaling and isotonic regression (src/kg/calibration.ts, fitCalibration) of "an admin keeps it" (approvable as proposed or after an edit, docs/extraction-judging.md) on the raw score, over
// the pending proposals the extractor makes on the judged corpora (foam-docs: test/fixtures/extraction-judged/foam-docs.json).
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
    fittedOn: "74 judged entity proposals of kurate-builtin-v3 (foam-docs), 2026-12-02",
    method: 'platt',
    judged: 74,
    kept: 59,
    rawError: 0.082,
    error: 0.024,
    map: { points: [[0,0.059],[0.025,0.068],[0.05,0.078],[0.075,0.089],[0.1,0.102],[0.125,0.116],[0.15,0.132],[0.175,0.149],[0.2,0.169],[0.225,0.19],[0.25,0.214],[0.275,0.239],[0.3,0.267],[0.325,0.296],[0.35,0.328],[0.375,0.361],[0.4,0.395],[0.425,0.431],[0.45,0.467],[0.475,0.503],[0.5,0.54],[0.525,0.576],[0.55,0.611],[0.575,0.645],[0.6,0.678],[0.625,0.709],[0.65,0.738],[0.675,0.765],[0.7,0.79],[0.725,0.814],[0.75,0.835],[0.775,0.854],[0.8,0.871],[0.825,0.887],[0.85,0.901],[0.875,0.913],[0.9,0.924],[0.925,0.933],[0.95,0.942],[0.975,0.949],[1,0.956]] },
  },
  edge: {
    fittedOn: "17 judged relation proposals of kurate-builtin-v3 (foam-docs), 2026-12-02",
    method: 'isotonic',
    judged: 17,
    kept: 14,
    rawError: 0.203,
    error: 0.115,
    map: { points: [[0.651,0.549],[0.7,0.869]] },
  },
};
