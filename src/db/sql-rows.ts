/**
 * The rows an UPDATE or DELETE … RETURNING gave back. TypeORM's query() answers those two commands with
 * [rows, rowCount] (and every other command with the rows), so their RETURNING rows need unwrapping.
 */
export function returnedRows<T = Record<string, unknown>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
