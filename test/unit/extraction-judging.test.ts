// The judged sets' sampling and the estimates the extraction evaluation makes from a sample (eval/extraction-judging.ts).
import { describe, expect, it } from 'vitest';
import { drawSample, keptEstimate } from '../../eval/extraction-judging.js';

const keys = Array.from({ length: 400 }, (_, i) => `name ${i}`);

describe('drawSample', () => {
  it('draws the asked number of distinct keys from the pool, sorted', () => {
    const sample = drawSample(keys, 150, 20261202);
    expect(sample).toHaveLength(150);
    expect(new Set(sample).size).toBe(150);
    for (const key of sample) expect(keys).toContain(key);
    expect(sample).toEqual([...sample].sort());
  });

  it('is fixed by its seed, whatever order the queue was read in, and another seed draws otherwise', () => {
    const shuffled = [...keys].reverse();
    expect(drawSample(shuffled, 150, 7)).toEqual(drawSample(keys, 150, 7));
    expect(drawSample(keys, 150, 8)).not.toEqual(drawSample(keys, 150, 7));
  });

  it('draws each key about equally often over many seeds (no key favoured by its place)', () => {
    const pool = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const counts = new Map(pool.map((k) => [k, 0]));
    for (let seed = 0; seed < 2000; seed++) for (const key of drawSample(pool, 5, seed)) counts.set(key, (counts.get(key) ?? 0) + 1);
    // Each key is drawn with probability 5/20: 500 of 2000 expected; a binomial's 4.5 standard deviations is about 87.
    for (const n of counts.values()) expect(Math.abs(n - 500)).toBeLessThan(90);
  });

  it('takes every key when asked for more than there are, counting duplicates once', () => {
    expect(drawSample(['b', 'a', 'b'], 50, 1)).toEqual(['a', 'b']);
    expect(drawSample(keys, 0, 1)).toEqual([]);
  });

  it('refuses a seed that is not a 32-bit unsigned integer', () => {
    expect(() => drawSample(keys, 1, 1.5)).toThrow(/seed/);
    expect(() => drawSample(keys, 1, -1)).toThrow(/seed/);
  });
});

describe('keptEstimate', () => {
  it('is the count itself when the whole queue was judged', () => {
    expect(keptEstimate(30, 60, 64, false)).toBe(30);
  });

  it("scales a sample's share to the queue", () => {
    expect(keptEstimate(90, 150, 300, true)).toBe(180);
    expect(keptEstimate(0, 0, 300, true)).toBe(0);
  });
});
