// How extraction tells the spellings of one name apart from each other (pure functions, no database): the forms a
// name is written in, the signatures its mentions may carry, and which of two spellings names a proposal.
import { ENTITY_TYPES } from '../extractors/extraction.types.js';
import { variantKey } from '../extractors/builtin/name-forms.js';

/** Other names a node proposal keeps at most (the union over its support). */
export const MAX_PROPOSAL_ALIASES = 10;

/** UTF-8 bytes, the order of PostgreSQL's "C" collation: the SQL side of each choice below sorts the same way. */
const codePointOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * For each proposal, the signatures a mention of a variant of its name may carry (each lower-case form of the name
 * with each entity type), mapped to the proposal's signature.
 */
export function variantSignatures(proposals: readonly { signature: string; name: string }[]): Map<string, string> {
  const to = new Map<string, string>();
  for (const proposal of proposals) {
    for (const form of variantForms(variantKey(proposal.name))) {
      for (const type of ENTITY_TYPES) {
        const from = `${form}|${type}`;
        if (from !== proposal.signature && !to.has(from)) to.set(from, proposal.signature);
      }
    }
  }
  return to;
}

/** The lower-case forms a variant key is written in: with spaces or hyphens, singular or plural. */
export function variantForms(key: string): string[] {
  const plural = /(?:s|x|ch|sh)$/.test(key) ? `${key}es` : /[^aeiou]y$/.test(key) ? `${key.slice(0, -1)}ies` : `${key}s`;
  return [...new Set([key, `${key}s`, plural].flatMap((form) => [form, form.replace(/ /g, '-')]))];
}

/**
 * Whether an extracted entity is better support for a node proposal than its best so far: a higher raw score, or an
 * equal one with a name, type and quote first in code-point order (the upsert's `BETTER` in SQL, under "C"), so that
 * the proposal's name and type do not depend on which page was extracted first.
 */
export function proposalOutranks(
  entity: { name: string; type: string; confidence: number; evidence: string },
  proposal: { name: string; nodeType: string; rawConfidence: number; quote: string },
): boolean {
  if (entity.confidence !== proposal.rawConfidence) return entity.confidence > proposal.rawConfidence;
  const order = codePointOrder;
  return (order(entity.name, proposal.name) || order(entity.type, proposal.nodeType) || order(entity.evidence, proposal.quote)) < 0;
}

/**
 * A node proposal's other names with more added: one per spelling without case (the first in code-point order), the
 * first MAX_PROPOSAL_ALIASES without case (the upsert's UNITED_ALIASES), so the set does not depend on the order.
 */
export function otherNames(current: readonly string[], more: readonly string[]): string[] {
  const order = codePointOrder;
  const byKey = new Map<string, string>();
  for (const name of [...current, ...more]) {
    const key = name.toLowerCase();
    const seen = byKey.get(key);
    if (seen === undefined || order(name, seen) < 0) byKey.set(key, name);
  }
  return [...byKey.entries()]
    .sort(([a, x], [b, y]) => order(a, b) || order(x, y))
    .slice(0, MAX_PROPOSAL_ALIASES)
    .map(([, name]) => name);
}
