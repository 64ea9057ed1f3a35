import type { EntityManager } from 'typeorm';

// One advisory lock between review and the purge: every review or curation action holds it shared for its
// transaction, a purge holds it alone. A purge computes what derives only from the purged pages, then deletes it
// table by table; an approval committing in between (a node whose provenance names a proposal the purge is about to
// delete) would leave a node without provenance, or fail the purge on a foreign key.
export const REVIEW_PURGE_LOCK_KEY = `hashtextextended('kurate.kg.review-or-purge', 0)`;
const KEY = REVIEW_PURGE_LOCK_KEY;

/** For a review or curation action: taken in its own statement, first, so that it waits for a purge to end. */
export async function shareReviewLock(tx: EntityManager): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${KEY})`);
}

/** For a purge: waits for the review actions under way to end, and keeps new ones waiting until it commits. */
export async function holdReviewLockAlone(tx: EntityManager): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${KEY})`);
}

// Purges and their dry runs take turns, whatever their cluster: a dry run runs the real deletes (then rolls them back)
// so two at once, or one beside a purge, locked the same rows in different orders, and PostgreSQL aborted one as a
// deadlock's victim (a 500 on concurrent dry runs of one cluster, found by a hostile-input audit).
const PURGE_TURN_KEY = `hashtextextended('kurate.kg.purge-turn', 0)`;

/** For a purge or its dry run: taken first, in its own statement; the next waits until this transaction ends. */
export async function takePurgeTurn(tx: EntityManager): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${PURGE_TURN_KEY})`);
}
