import { DomainErrorCode, DomainException } from '../common/domain.exception.js';

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
