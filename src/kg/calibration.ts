// Calibrated confidence, as pure functions (docs/extraction.md, "Calibrated confidence"): a proposal's confidence is
// the chance that an admin approves it (as proposed or after an edit), read off a monotone map of the extractor's raw
// score. Two fits are tried on the judged or reviewed proposals: Platt scaling (a logistic curve of the raw score: two
// parameters, what a few dozen reviews can carry) and isotonic regression (pool-adjacent-violators: any monotone
// shape, for when there are hundreds); the one with the lower cross-validated error is kept, and only when it beats
// the raw score itself (else the raw score is the calibration: `identity`). Hand-written: no
// npm package of either is kept up (the few there are unmaintained or pull a numeric library for these lines).

/** A calibration map: knots [raw score, chance of approval], raw increasing; linear between knots, flat beyond. */
export interface CalibrationMap {
  points: [number, number][];
}

export interface ReviewedScore {
  /** The extractor's raw score. */
  raw: number;
  /** Approved (as proposed or after an edit), or not (rejected, judged noise). */
  approved: boolean;
}

/**
 * How many pseudo-reviews at the overall approval rate each block of the fit gets: a block of one approval is not a
 * certainty. 2 keeps a block of 10 within about 0.1 of its own rate.
 */
export const PRIOR_STRENGTH = 2;

/** The identity: raw scores read as they are (an extractor without a fit). */
export const IDENTITY_MAP: CalibrationMap = { points: [[0, 0], [1, 1]] };

/** The calibrated confidence of a raw score, rounded to three decimals. */
export function calibrate(map: CalibrationMap, raw: number): number {
  const points = map.points;
  if (points.length === 0) return round(raw);
  if (raw <= points[0][0]) return round(points[0][1]);
  const last = points[points.length - 1];
  if (raw >= last[0]) return round(last[1]);
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i];
    if (raw > x1) continue;
    const [x0, y0] = points[i - 1];
    return round(x1 === x0 ? y1 : y0 + ((raw - x0) / (x1 - x0)) * (y1 - y0));
  }
  return round(last[1]);
}

/**
 * Isotonic regression of approval on raw score: the non-decreasing step function closest (least squares) to the
 * reviews, each step shrunk towards the overall rate by PRIOR_STRENGTH pseudo-reviews and made monotone again. Knots
 * sit at each step's lowest and highest raw score, so scores between two steps are interpolated.
 */
export function fitIsotonic(scores: ReviewedScore[], priorStrength = PRIOR_STRENGTH): CalibrationMap {
  if (scores.length === 0) return IDENTITY_MAP;
  const sorted = [...scores].sort((a, b) => a.raw - b.raw);
  const prior = sorted.filter((s) => s.approved).length / sorted.length;
  // One block per distinct raw score: equal scores cannot be told apart.
  const blocks: { lo: number; hi: number; n: number; k: number }[] = [];
  for (const s of sorted) {
    const last = blocks[blocks.length - 1];
    if (last && last.hi === s.raw) {
      last.n++;
      last.k += s.approved ? 1 : 0;
    } else blocks.push({ lo: s.raw, hi: s.raw, n: 1, k: s.approved ? 1 : 0 });
  }
  const pooled = poolAdjacentViolators(blocks.map((b) => ({ ...b, value: b.k / b.n, weight: b.n })));
  const shrunk = poolAdjacentViolators(pooled.map((b) => ({ ...b, value: (b.k + priorStrength * prior) / (b.n + priorStrength), weight: b.n + priorStrength })));
  const points: [number, number][] = [];
  for (const b of shrunk) {
    const y = round(b.value);
    points.push([round(b.lo), y]);
    if (b.hi !== b.lo) points.push([round(b.hi), y]);
  }
  return { points };
}

interface Block {
  lo: number;
  hi: number;
  n: number;
  k: number;
  value: number;
  weight: number;
}

/** Merges neighbouring blocks until their values never decrease (weighted means): the isotonic fit of the blocks. */
export function poolAdjacentViolators(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const block of blocks) {
    let current = { ...block };
    while (out.length > 0 && out[out.length - 1].value > current.value) {
      const prev = out.pop()!;
      const weight = prev.weight + current.weight;
      current = {
        lo: prev.lo, hi: current.hi, n: prev.n + current.n, k: prev.k + current.k,
        value: (prev.value * prev.weight + current.value * current.weight) / weight, weight,
      };
    }
    out.push(current);
  }
  return out;
}

/**
 * Expected calibration error: the scores binned by confidence (`bins` equal-width bins), the gap between each bin's
 * mean confidence and its share of approvals, weighted by the bin's size. 0 is perfectly calibrated.
 */
export function expectedCalibrationError(points: { confidence: number; approved: boolean }[], bins = 10): number {
  if (points.length === 0) return 0;
  const sums = Array.from({ length: bins }, () => ({ n: 0, confidence: 0, approved: 0 }));
  for (const p of points) {
    const bin = sums[Math.min(bins - 1, Math.max(0, Math.floor(p.confidence * bins)))];
    bin.n++;
    bin.confidence += p.confidence;
    bin.approved += p.approved ? 1 : 0;
  }
  let total = 0;
  for (const bin of sums) if (bin.n > 0) total += (bin.n / points.length) * Math.abs(bin.confidence / bin.n - bin.approved / bin.n);
  return round(total);
}

/**
 * The calibration error a fit would have on reviews it did not see: the scores (in raw order) dealt into `folds`
 * folds, each fold's scores calibrated by a map fitted on the other folds. The honest figure for a map shipped or
 * refitted on the same reviews it is reported on.
 */
export function crossValidatedError(scores: ReviewedScore[], fit: (scores: ReviewedScore[]) => CalibrationMap = (s) => fitIsotonic(s), folds = 5): number {
  const sorted = [...scores].sort((a, b) => a.raw - b.raw || Number(a.approved) - Number(b.approved));
  if (sorted.length < folds * 2) return expectedCalibrationError(sorted.map((s) => ({ confidence: calibrate(fit(sorted), s.raw), approved: s.approved })));
  const predicted: { confidence: number; approved: boolean }[] = [];
  for (let f = 0; f < folds; f++) {
    const map = fit(sorted.filter((_, i) => i % folds !== f));
    for (let i = f; i < sorted.length; i += folds) predicted.push({ confidence: calibrate(map, sorted[i].raw), approved: sorted[i].approved });
  }
  return expectedCalibrationError(predicted);
}

/**
 * Platt scaling: p = 1 / (1 + exp(−(a·raw + b))), fitted by Newton's method on the log-likelihood, with Platt's
 * targets ((approved + 1) / (approved + 2) for an approval, 1 / (rejected + 2) for a rejection) so that a set where
 * every score is approved does not send the curve to certainty. Returned as knots every 0.025 of the raw scale.
 */
/** Platt's slope is kept from running away on few, well-separated reviews: a ridge of this weight on it. */
export const PLATT_RIDGE = 0.01;

export function fitPlatt(scores: ReviewedScore[]): CalibrationMap {
  if (scores.length === 0) return IDENTITY_MAP;
  const positives = scores.filter((s) => s.approved).length;
  const negatives = scores.length - positives;
  const hi = (positives + 1) / (positives + 2);
  const lo = 1 / (negatives + 2);
  let a = 0;
  let b = Math.log((positives + 1) / (negatives + 1));
  for (let iteration = 0; iteration < 100; iteration++) {
    // Gradient and Hessian of the negative log-likelihood, with a tiny ridge so a flat set stays solvable.
    let ga = PLATT_RIDGE * a;
    let gb = 0;
    let haa = PLATT_RIDGE;
    let hab = 0;
    let hbb = 1e-9;
    for (const s of scores) {
      const p = sigmoid(a * s.raw + b);
      const t = s.approved ? hi : lo;
      const w = p * (1 - p);
      ga += (p - t) * s.raw;
      gb += p - t;
      haa += w * s.raw * s.raw;
      hab += w * s.raw;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(Math.abs(det) > 1e-12)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  // A curve that falls with the score would say the extractor's score means the opposite: keep it flat instead.
  if (a < 0) {
    a = 0;
    b = Math.log(hi * positives + lo * negatives) - Math.log(scores.length - hi * positives - lo * negatives);
  }
  const points: [number, number][] = [];
  for (let i = 0; i <= 40; i++) points.push([round(i / 40), round(sigmoid(a * (i / 40) + b))]);
  return { points };
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export type CalibrationMethod = 'platt' | 'isotonic' | 'identity';

const FITTERS: Record<CalibrationMethod, (scores: ReviewedScore[]) => CalibrationMap> = {
  platt: fitPlatt, isotonic: (s) => fitIsotonic(s), identity: () => IDENTITY_MAP,
};

/** What a fit reports: its map, how many reviews it stands on, and its calibration error before and after. */
export interface CalibrationFit {
  method: CalibrationMethod;
  map: CalibrationMap;
  reviewed: number;
  approved: number;
  /** ECE of the raw scores. */
  rawError: number;
  /** ECE of the calibrated scores, cross-validated (5 folds). */
  error: number;
}

/**
 * Both fits, and the raw score as it is: the one with the lowest cross-validated error is kept (on a tie, the one with
 * fewer parameters: the raw score, then Platt).
 */
export function fitCalibration(scores: ReviewedScore[]): CalibrationFit {
  const rawError = expectedCalibrationError(scores.map((s) => ({ confidence: s.raw, approved: s.approved })));
  const errors: Record<CalibrationMethod, number> = {
    identity: rawError, platt: crossValidatedError(scores, FITTERS.platt), isotonic: crossValidatedError(scores, FITTERS.isotonic),
  };
  const method = (['identity', 'platt', 'isotonic'] as const).reduce((best, m) => (errors[m] < errors[best] ? m : best), 'identity' as CalibrationMethod);
  return {
    method,
    map: FITTERS[method](scores),
    reviewed: scores.length,
    approved: scores.filter((s) => s.approved).length,
    rawError,
    error: errors[method],
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
