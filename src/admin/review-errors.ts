import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { sqlStateOf, violatedConstraintOf } from '../db/sql-state.js';

/** The errors an admin can cause while reviewing, as the app's DomainException (mapped to 4xx in one place). */
export const ReviewErrors = {
  notFound: (what: string) => new DomainException(DomainErrorCode.NotFound, `${what} does not exist (or the inclusion policy hides it).`),
  invalid: (message: string) => new DomainException(DomainErrorCode.InvalidInput, message),
  /** 409: the graph is no longer in the state the request was made against (someone else acted first, or a duplicate). */
  conflict: (reason: string, message: string, details: Record<string, unknown> = {}) =>
    new DomainException(DomainErrorCode.VersionConflict, message, { reason, ...details }),
};

/** Ids of KG rows are positive bigints, written in decimal. */
export const ID_PATTERN = /^[1-9][0-9]{0,17}$/;

/** The CHECK that no edge joins a node to itself (migration 0032). */
export const EDGE_SELF_LOOP_CHECK = 'kg_edges_no_self_loop_check';

/**
 * The 409 for a write PostgreSQL refused as an edge from an entity to itself (EDGE_SELF_LOOP_CHECK): the actions check
 * the ends first (an approval under the ends' locks, an import by node id), so this is what is left, say an undo of an
 * action journaled before the CHECK existed. Null for any other error.
 */
export function selfLoopConflict(error: unknown): DomainException | null {
  if (sqlStateOf(error) !== '23514' || violatedConstraintOf(error) !== EDGE_SELF_LOOP_CHECK) return null;
  return ReviewErrors.conflict('edge_endpoint', 'An edge cannot join an entity to itself, and this action would have written one (the entities at its two ends are one entity now). Nothing was changed.');
}
