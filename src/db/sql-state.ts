import { QueryFailedError } from 'typeorm';

/** PostgreSQL's SQLSTATE of a failed statement (`40P01` for a deadlock…), or undefined for any other error. */
export function sqlStateOf(error: unknown): string | undefined {
  return error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
}

/** A deadlock (40P01) or a serialization failure (40001): the transaction PostgreSQL aborted may simply run again. */
export function isTransientConflict(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state === '40P01' || state === '40001';
}
