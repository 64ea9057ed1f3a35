import { describe, expect, it } from 'vitest';
import {
  calibrate, crossValidatedError, expectedCalibrationError, fitCalibration, fitIsotonic, fitPlatt, IDENTITY_MAP, poolAdjacentViolators, type ReviewedScore,
} from '../../src/kg/calibration.js';
import { nameStem, signalPattern } from '../../src/kg/proposal-signals.js';

/** `n` reviews at a raw score, `k` of them approved. */
function reviews(raw: number, n: number, k: number): ReviewedScore[] {
  return Array.from({ length: n }, (_, i) => ({ raw, approved: i < k }));
}

describe('calibration maps', () => {
  it('reads a map piecewise linearly between knots and flat beyond them', () => {
    const map = { points: [[0.6, 0.2], [0.8, 0.6]] as [number, number][] };
    expect(calibrate(map, 0.3)).toBe(0.2);
    expect(calibrate(map, 0.7)).toBe(0.4);
    expect(calibrate(map, 0.75)).toBe(0.5);
    expect(calibrate(map, 0.95)).toBe(0.6);
    expect(calibrate(IDENTITY_MAP, 0.637)).toBe(0.637);
  });

  it('pools adjacent violators into a non-decreasing sequence of weighted means', () => {
    const blocks = [0.5, 0.2, 0.9, 0.4].map((value, i) => ({ lo: i, hi: i, n: 1, k: 0, value, weight: 1 }));
    const pooled = poolAdjacentViolators(blocks);
    expect(pooled.map((b) => [b.lo, b.hi, Math.round(b.value * 1000) / 1000])).toEqual([[0, 1, 0.35], [2, 3, 0.65]]);
  });
});

describe('isotonic regression', () => {
  it('follows the approval rate of each score, shrunk towards the overall rate, and never falls', () => {
    const scores = [...reviews(0.6, 20, 4), ...reviews(0.7, 20, 10), ...reviews(0.8, 20, 18)];
    const map = fitIsotonic(scores);
    // 4/20 with 2 pseudo-reviews at the overall 32/60: (4 + 1.067) / 22 = 0.23.
    expect(calibrate(map, 0.6)).toBeCloseTo(0.23, 2);
    expect(calibrate(map, 0.7)).toBeCloseTo((10 + 2 * (32 / 60)) / 22, 2);
    expect(calibrate(map, 0.8)).toBeCloseTo((18 + 2 * (32 / 60)) / 22, 2);
    expect(calibrate(map, 0.75)).toBeGreaterThan(calibrate(map, 0.7));
  });

  it('pools a score that approves more than a higher one', () => {
    const map = fitIsotonic([...reviews(0.6, 10, 8), ...reviews(0.7, 10, 2)], 0);
    expect(calibrate(map, 0.6)).toBe(0.5);
    expect(calibrate(map, 0.7)).toBe(0.5);
  });
});

describe('Platt scaling', () => {
  it('fits a rising logistic curve when approvals grow with the score', () => {
    const scores = [...reviews(0.6, 30, 6), ...reviews(0.7, 30, 15), ...reviews(0.8, 30, 24)];
    const map = fitPlatt(scores);
    expect(calibrate(map, 0.6)).toBeGreaterThan(0.15);
    expect(calibrate(map, 0.6)).toBeLessThan(0.28);
    expect(calibrate(map, 0.7)).toBeCloseTo(0.5, 1);
    expect(calibrate(map, 0.8)).toBeGreaterThan(0.72);
    for (let i = 1; i < map.points.length; i++) expect(map.points[i][1]).toBeGreaterThanOrEqual(map.points[i - 1][1]);
  });

  it('stays flat at the (smoothed) approval rate when the score says nothing, and short of certainty when all are approved', () => {
    const flat = fitPlatt([...reviews(0.6, 10, 5), ...reviews(0.9, 10, 5)]);
    expect(calibrate(flat, 0.6)).toBeCloseTo(0.5, 1);
    expect(calibrate(flat, 0.9)).toBeCloseTo(0.5, 1);
    const all = fitPlatt(reviews(0.7, 12, 12));
    expect(calibrate(all, 0.7)).toBeGreaterThan(0.85);
    expect(calibrate(all, 0.7)).toBeLessThan(1);
  });

  it('does not turn a falling relation into a falling map', () => {
    const map = fitPlatt([...reviews(0.6, 20, 18), ...reviews(0.9, 20, 2)]);
    expect(calibrate(map, 0.6)).toBe(calibrate(map, 0.9));
  });
});

describe('calibration error', () => {
  it('is the size-weighted gap between mean confidence and approval rate per tenth', () => {
    // Bin 0.6: confidence 0.6, 2 of 4 approved (gap 0.1); bin 0.9: confidence 0.9, 4 of 4 (gap 0.1).
    const points = [...reviews(0.6, 4, 2), ...reviews(0.9, 4, 4)].map((r) => ({ confidence: r.raw, approved: r.approved }));
    expect(expectedCalibrationError(points)).toBe(0.1);
    expect(expectedCalibrationError([])).toBe(0);
    expect(expectedCalibrationError([{ confidence: 1, approved: true }])).toBe(0);
  });

  it('cross-validates: a fit is judged on reviews it did not see, and the better of the two fits is kept', () => {
    // Raw scores that overstate approval everywhere: every fit does better than the raw score.
    const scores = [...reviews(0.6, 25, 5), ...reviews(0.7, 25, 8), ...reviews(0.8, 25, 12), ...reviews(0.9, 25, 15)];
    const fit = fitCalibration(scores);
    expect(fit.reviewed).toBe(100);
    expect(fit.approved).toBe(40);
    expect(fit.rawError).toBeCloseTo(0.35, 2);
    expect(fit.error).toBeLessThan(0.1);
    expect(fit.error).toBe(Math.min(crossValidatedError(scores, fitPlatt), crossValidatedError(scores, (s) => fitIsotonic(s))));
    expect(['platt', 'isotonic']).toContain(fit.method);
    expect(calibrate(fit.map, 0.9)).toBeLessThan(0.7);
  });

  it('keeps the raw score when no fit beats it on unseen reviews', () => {
    // Already calibrated: 6 of 10 approved at 0.6, 8 of 10 at 0.8.
    const scores = [...reviews(0.6, 10, 6), ...reviews(0.8, 10, 8)];
    const fit = fitCalibration(scores);
    expect(fit.rawError).toBe(0);
    expect(fit.method).toBe('identity');
    expect(fit.error).toBe(0);
    expect(calibrate(fit.map, 0.6)).toBe(0.6);
  });
});

describe('what a proposal resembles', () => {
  it('stems names: case, separators and a plural on the last word', () => {
    expect(nameStem('Tags')).toBe('tag');
    expect(nameStem('web_clippers')).toBe('web clipper');
    expect(nameStem('Daily  Notes')).toBe('daily note');
    expect(nameStem('Categories')).toBe('category');
    expect(nameStem('glass')).toBe('glass');
    expect(nameStem('VS Code')).toBe('vs code');
  });

  it('reduces signals to their names, sorted, without counts', () => {
    expect(signalPattern(['properNoun', 'repeat×2', 'heading'])).toBe('heading+properNoun+repeat');
    expect(signalPattern([])).toBe('');
  });
});
