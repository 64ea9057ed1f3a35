import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

const names = new Map<string, string>();

/** A statement's name on a connection: derived from its text, so one name never stands for two texts. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `kurate_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs a statement as a named prepared statement of its connection (node-postgres prepares it on first use there):
 * PostgreSQL parses and analyses the text once per connection, and after a few runs may keep one generic plan for it,
 * instead of parsing, analysing and planning it again on every call. For the statements a busy path runs for every
 * item (extraction runs several per page), whose plans do not depend on the parameters' values and whose result
 * columns are listed (not `*`, which a later schema change could alter under a prepared statement). The text must be
 * a constant.
 *
 * PostgreSQL plans the first five runs with their values (custom plans) and then keeps one generic plan only if its
 * estimated cost is no higher than theirs on average. Where the planner can use a value (a function of it folded to a
 * constant, an array's length), the custom plans look cheaper and every run is planned again: for the search's result
 * cards that took longer than running them (0.4 of 1.0 ms). A hot statement therefore hides such values from the
 * planner: a value computed in a `MATERIALIZED` CTE, an array behind a scalar subquery (`(SELECT $1::uuid[])::uuid[]`).
 * The bench's server hook lists every connection's prepared statements with their custom and generic plan counts
 * (`/plans`, bench/server-hook.mjs).
 */
export function preparedQuery<T = any>(db: EntityManager | DataSource, text: string, values: unknown[]): Promise<T> {
  // TypeORM hands its first argument to node-postgres as is, and node-postgres takes a query config with a name.
  return db.query({ name: statementName(text), text } as unknown as string, values);
}
