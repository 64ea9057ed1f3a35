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
    fittedOn: "159 judged entity proposals of kurate-builtin-v4 (foam-docs, dendron-site), 2026-12-02",
    method: 'platt',
    judged: 159,
    kept: 122,
    rawError: 0.072,
    error: 0.018,
    map: { points: [[0,0.126],[0.025,0.139],[0.05,0.153],[0.075,0.168],[0.1,0.185],[0.125,0.203],[0.15,0.222],[0.175,0.242],[0.2,0.263],[0.225,0.286],[0.25,0.31],[0.275,0.335],[0.3,0.36],[0.325,0.387],[0.35,0.414],[0.375,0.442],[0.4,0.47],[0.425,0.499],[0.45,0.527],[0.475,0.556],[0.5,0.583],[0.525,0.611],[0.55,0.637],[0.575,0.663],[0.6,0.688],[0.625,0.712],[0.65,0.735],[0.675,0.756],[0.7,0.777],[0.725,0.796],[0.75,0.814],[0.775,0.83],[0.8,0.846],[0.825,0.86],[0.85,0.873],[0.875,0.885],[0.9,0.896],[0.925,0.906],[0.95,0.916],[0.975,0.924],[1,0.932]] },
  },
  edge: {
    fittedOn: "21 judged relation proposals of kurate-builtin-v4 (foam-docs, dendron-site), 2026-12-02",
    method: 'platt',
    judged: 21,
    kept: 17,
    rawError: 0.172,
    error: 0.081,
    map: { points: [[0,0.266],[0.025,0.283],[0.05,0.3],[0.075,0.319],[0.1,0.337],[0.125,0.357],[0.15,0.377],[0.175,0.397],[0.2,0.418],[0.225,0.439],[0.25,0.46],[0.275,0.481],[0.3,0.503],[0.325,0.524],[0.35,0.545],[0.375,0.566],[0.4,0.587],[0.425,0.608],[0.45,0.628],[0.475,0.648],[0.5,0.667],[0.525,0.686],[0.55,0.704],[0.575,0.722],[0.6,0.738],[0.625,0.755],[0.65,0.77],[0.675,0.785],[0.7,0.799],[0.725,0.812],[0.75,0.825],[0.775,0.837],[0.8,0.849],[0.825,0.859],[0.85,0.869],[0.875,0.879],[0.9,0.888],[0.925,0.896],[0.95,0.904],[0.975,0.911],[1,0.917]] },
  },
};
