/**
 * The smallest normal value of PostgreSQL's `real` (float4). A number closer to zero than this, such as 1e-46, is no
 * confidence or weight anyone means, and PostgreSQL refuses to store it ("out of range for type real") instead of
 * rounding it to zero: input rounds it to zero first (input-rules.ts for JSON bodies, toNumber for query and form
 * strings), so every number a request carries fits a `real` column or cast.
 */
export const REAL_MIN = 1.1754943508222875e-38;

/** `n`, or 0 when it is too close to zero for PostgreSQL's `real`. */
export function storableNumber(n: number): number {
  return n !== 0 && Math.abs(n) < REAL_MIN ? 0 : n;
}
