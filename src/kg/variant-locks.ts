import type { EntityManager } from 'typeorm';
import { lockKeysSql } from '../db/advisory-locks.js';
import { preparedQuery } from '../db/prepared-query.js';
import { variantKey } from '../extractors/builtin/name-forms.js';

/** Advisory-lock namespace for entity names (any constant; src/db/advisory-locks.ts). */
export const ENTITY_NAME_LOCKS = 7_104_265;

/**
 * Transaction-scoped locks on names, one per variant key (`Tags`, `tag` and `tag` share one), taken in a fixed order
 * in a statement of their own. Extraction takes them for the names it may propose before it touches the page's
 * mentions; review takes them for the names of the proposals it decides before it locks those proposals. So an
 * approval and a run that meets the same name take turns (never a deadlock), and the later one reads what the other
 * decided: a run waiting on an approval links its mentions to the new entity, one waiting on a rejection proposes
 * nothing, and two runs meeting one new name make one proposal.
 */
export async function lockNameVariants(names: readonly string[], tx: EntityManager): Promise<void> {
  const keys = [...new Set(names.map(variantKey))].sort();
  if (keys.length === 0) return;
  await preparedQuery(tx, `SELECT ${lockKeysSql(ENTITY_NAME_LOCKS, '$1::text[]')} AS locked`, [keys]);
}
