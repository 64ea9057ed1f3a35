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
 */
export function preparedQuery<T = any>(db: EntityManager | DataSource, text: string, values: unknown[]): Promise<T> {
  // TypeORM hands its first argument to node-postgres as is, and node-postgres takes a query config with a name.
  return db.query({ name: statementName(text), text } as unknown as string, values);
}
