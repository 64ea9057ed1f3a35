import { ENTITY_TYPES, PREDICATES } from '../extractors/extraction.types.js';

/** The closed vocabularies of the knowledge graph, from the extraction contract (src/extractors/extraction.types.ts). */
export const REVIEW_TYPES: readonly string[] = ENTITY_TYPES;
export const REVIEW_PREDICATES: readonly string[] = PREDICATES;

export const isEntityType = (value: string): boolean => REVIEW_TYPES.includes(value);
export const isPredicate = (value: string): boolean => REVIEW_PREDICATES.includes(value);

/** "Is A", "is-a", " IS_A " → "is_a": how an imported type or predicate is compared with the vocabulary. */
export function vocabularyKey(value: string): string {
  return value.normalize('NFKC').trim().toLowerCase().replace(/[\s-]+/gu, '_');
}
