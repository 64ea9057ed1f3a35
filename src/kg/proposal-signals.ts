// What a proposal's signals and name say about the earlier rejections it resembles (migration 0021, docs/review.md):
// two proposals are "similar" when their names share a stem, or when they have the same type (a relation: the same
// predicate) and the same pattern of signals.

/**
 * The name without case, `-`/`_` and runs of spaces, and a plural `s`/`ies` on its last word: `Tags`, `tag` and
 * `web_clippers` stem to `tag` and `web clipper`. The same rule as the backfill in migrations/0021.
 */
export function nameStem(name: string): string {
  const plain = name.normalize('NFKC').replace(/[-_\s]+/g, ' ').trim().toLowerCase();
  return plain.replace(/([^ ]{2,})ies$/, '$1y').replace(/([^ ]{2,}[^s])s$/, '$1');
}

/** The signals' names without their counts (`repeat×2` → `repeat`), distinct and sorted, joined by `+`. */
export function signalPattern(signals: readonly string[]): string {
  return [...new Set(signals.map((s) => s.replace(/×\d+$/, '')))].sort().join('+');
}
