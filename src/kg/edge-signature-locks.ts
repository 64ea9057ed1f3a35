import { lockKeysSql } from '../db/advisory-locks.js';

/** Advisory-lock namespace for edge proposal signatures (any constant; src/db/advisory-locks.ts). */
export const EDGE_SIGNATURE_LOCKS = 7_104_266;

/**
 * SQL that locks the edge signatures of a text[] expression (transaction-scoped, one lock per signature, in a fixed
 * order). Review takes them for the edge proposals it decides, before it locks those proposals; extraction takes them
 * for the edges it proposes, in a statement of its own before its upsert. Names do not serialise the two when both
 * ends are approved entities (a run locks only names no entity has yet), and the upsert alone cannot: it checks the
 * rejections and the approved edges in a snapshot taken before it waited for the pending proposal's row, and once
 * the review has made that row approved or rejected, the row no longer counts as a conflict of the pending-only
 * unique index, so the insert goes ahead and leaves a pending twin. With the lock the run waits for the review and
 * its upsert, a statement begun after the review committed, sees the approval or the rejection (or the review waits
 * for the run, and decides on the proposal with the run's support).
 */
export const lockEdgeSignaturesSql = (signatures: string) => `SELECT ${lockKeysSql(EDGE_SIGNATURE_LOCKS, signatures)} AS locked`;
