// Transaction-scoped advisory locks on keys (link keys, file names, entity names). Each key maps to one of
// LOCK_BUCKETS locks of its namespace, so a transaction holds at most that many whatever it touches: PostgreSQL keeps
// every lock in a shared table of max_locks_per_transaction × max_connections slots (6,400 by default), and a page
// with 16,000 distinct links, one lock each, filled it ("out of shared memory") for every session. Two keys that
// share a bucket only take turns they did not need to.
export const LOCK_BUCKETS = 1024;

/** SQL that locks, in bucket order (two transactions never wait on each other crosswise), every key of a text[]. */
export function lockKeysSql(namespace: number, keysParam: string): string {
  return `(SELECT count(pg_advisory_xact_lock(${namespace}, b))
             FROM (SELECT DISTINCT hashtext(k) & ${LOCK_BUCKETS - 1} AS b FROM unnest(${keysParam}) k ORDER BY 1) buckets)`;
}

/** SQL that locks one key's bucket (what a test holds to make writers of that key queue). */
export function lockKeySql(namespace: number, keyParam: string): string {
  return `pg_advisory_xact_lock(${namespace}, hashtext(${keyParam}) & ${LOCK_BUCKETS - 1})`;
}
