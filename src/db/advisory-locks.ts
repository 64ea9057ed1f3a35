// Transaction-scoped advisory locks on keys (link keys, file names, entity names), in two levels so that a transaction
// never holds more than a few hundred locks, whatever it touches. PostgreSQL keeps every lock in one shared table of
// max_locks_per_transaction × max_connections slots (6,400 by default): a page with 16,000 distinct links, one lock
// each, filled it, and its save (and whatever else ran then) failed with "out of shared memory".
//
// - Up to MAX_FINE_KEYS keys: each key's bucket (one of BUCKETS) is locked SHARED, then each key itself alone. Two
//   writers of different keys never wait for each other, whatever their buckets.
// - More keys: each key's bucket is locked alone (at most BUCKETS locks). Such a writer waits for, and holds off,
//   every writer of a key in those buckets.
// Buckets are always taken before keys, each level in sorted order, so no two transactions wait on each other crosswise.
export const MAX_FINE_KEYS = 512;
export const BUCKETS = 1024;

/** The namespace of a namespace's buckets (the two-integer form of advisory locks: namespace, key). */
const bucketsOf = (namespace: number) => -namespace;

/**
 * SQL that locks every key of a text[] parameter as above; its value is the number of locks taken. With
 * `sharedKeysParam`, the keys of that second text[] that are not in the first are locked SHARED at the fine level:
 * writers that only read what such a key resolves to (a page that links to it) go on together, and wait only for a
 * writer that holds the key itself (one that changes what it resolves to). A key (or a key's lock: keys whose hashes
 * collide share one) in both is taken once, alone. Beyond MAX_FINE_KEYS keys in all, every bucket is taken alone.
 */
export function lockKeysSql(namespace: number, keysParam: string, sharedKeysParam?: string): string {
  const keys = sharedKeysParam
    ? `(SELECT DISTINCT k FROM unnest(${keysParam} || ${sharedKeysParam}) k)`
    : `(SELECT DISTINCT k FROM unnest(${keysParam}) k)`;
  const buckets = `(SELECT DISTINCT hashtext(k) & ${BUCKETS - 1} AS b FROM ${keys} d ORDER BY 1)`;
  const fine = sharedKeysParam
    ? `(SELECT count(CASE WHEN f.alone THEN pg_advisory_xact_lock(${namespace}, f.h) ELSE pg_advisory_xact_lock_shared(${namespace}, f.h) END)
          FROM (SELECT hashtext(k) AS h, bool_or(k = ANY (${keysParam})) AS alone FROM ${keys} g GROUP BY 1 ORDER BY 1) f)`
    : `(SELECT count(pg_advisory_xact_lock(${namespace}, hashtext(k))) FROM (SELECT k FROM ${keys} f ORDER BY hashtext(k), k) f)`;
  return `(SELECT CASE WHEN (SELECT count(*) FROM ${keys} n) <= ${MAX_FINE_KEYS}
             THEN (SELECT count(pg_advisory_xact_lock_shared(${bucketsOf(namespace)}, b)) FROM ${buckets} s)
                + ${fine}
             ELSE (SELECT count(pg_advisory_xact_lock(${bucketsOf(namespace)}, b)) FROM ${buckets} x) END)`;
}

/** SQL that locks one key as a writer of that key alone would (what a test holds to make writers of the key queue). */
export function lockKeySql(namespace: number, keyParam: string): string {
  return `pg_advisory_xact_lock_shared(${bucketsOf(namespace)}, hashtext(${keyParam}) & ${BUCKETS - 1}), pg_advisory_xact_lock(${namespace}, hashtext(${keyParam}))`;
}
