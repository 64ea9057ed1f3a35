import { QueryFailedError } from 'typeorm';

/** PostgreSQL's SQLSTATE of a failed statement (`40P01` for a deadlock…), or undefined for any other error. */
export function sqlStateOf(error: unknown): string | undefined {
  return error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
}

/** The constraint a failed statement broke (a CHECK's, a unique index's…), or undefined. */
export function violatedConstraintOf(error: unknown): string | undefined {
  return error instanceof QueryFailedError ? (error.driverError as { constraint?: string } | undefined)?.constraint : undefined;
}

/** A deadlock (40P01) or a serialization failure (40001): the transaction PostgreSQL aborted may simply run again. */
export function isTransientConflict(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state === '40P01' || state === '40001';
}

/**
 * Runs `work` (a whole transaction) again when PostgreSQL aborted it as a deadlock's or serialization failure's
 * victim, at most `attempts` times in all: the run that follows reads what the winner committed.
 */
export async function againOnConflict<T>(attempts: number, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
    }
  }
}
