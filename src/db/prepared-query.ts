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
 * item (extraction writes several per page), whose plans do not depend on the parameters' values; the text must be a
 * constant, or a small fixed set of texts.
 */
export function preparedQuery<T = any>(db: EntityManager | DataSource, text: string, values: unknown[]): Promise<T> {
  return db.query(preparedStatement(text), values);
}

/**
 * What to hand TypeORM's `query()` for a prepared statement: TypeORM passes its first argument to node-postgres as
 * is, and node-postgres takes a query config with a name (it then parses the text only on a connection's first use).
 */
export function preparedStatement(text: string): string {
  return { name: statementName(text), text } as unknown as string;
}
