// The names mentions may carry: every form of an approved entity's names (held by that entity alone) and of a pending
// node proposal's name. Read by the consistency check (src/consistency) and by curation, which links the mentions an
// entity's new name or synonym names.
import type { EntityManager } from 'typeorm';
import { variantKey } from '../extractors/builtin/name-forms.js';
import { variantForms } from './name-variants.js';

/**
 * The lower-case forms of the names of approved entities and pending node proposals (mentionForms): the signature's
 * name a mention of each may carry, with the entity it names (only when one entity holds it) or the proposal's signature.
 */
export interface MentionForms {
  forms: string[];
  /** The pending proposal's signature, or null for an entity's form. */
  targets: (string | null)[];
  /** The entity's id, or null for a proposal's form. */
  nodes: (string | null)[];
}

// Unlinked mentions whose signature's name is a form of an approved entity's name (link them) or of a pending node
// proposal's (give them its signature; one per chunk, none where the chunk has one already). $1–$3: MentionForms.
export const MISNAMED_MENTIONS = `
  SELECT DISTINCT ON (m.chunk_id, coalesce(f.target, m.signature)) m.id, m.chunk_id, m.signature, f.target, f.node
    FROM unnest($1::text[], $2::text[], $3::bigint[]) AS f(form, target, node)
    JOIN kg_mentions m ON left(m.signature, length(m.signature) - strpos(reverse(m.signature), '|')) = f.form
   WHERE m.node_id IS NULL
     AND (f.node IS NOT NULL
          OR (m.signature <> f.target AND NOT EXISTS (SELECT 1 FROM kg_mentions o WHERE o.chunk_id = m.chunk_id AND o.signature = f.target)))
   ORDER BY m.chunk_id, coalesce(f.target, m.signature), m.id`;

/** The forms of the names of every approved entity and pending node proposal (MentionForms). */
export async function mentionForms(db: EntityManager): Promise<MentionForms> {
  const nodes: { id: string; names: string[] }[] = await db.query(`SELECT id::text AS id, array_prepend(name, aliases) AS names FROM kg_nodes ORDER BY id`);
  const pending: { signature: string; name: string }[] = await db.query(
    `SELECT signature, name FROM kg_proposals WHERE kind = 'node' AND status = 'pending' ORDER BY signature`,
  );
  const byForm = new Map<string, { target: string | null; node: string | null }>();
  const ambiguous = new Set<string>();
  for (const node of nodes) {
    for (const form of new Set(node.names.flatMap((name) => variantForms(variantKey(name))))) {
      const seen = byForm.get(form);
      if (seen && seen.node !== node.id) ambiguous.add(form);
      else byForm.set(form, { target: null, node: node.id });
    }
  }
  for (const form of ambiguous) byForm.delete(form);
  for (const proposal of pending) {
    for (const form of variantForms(variantKey(proposal.name))) {
      if (!byForm.has(form) && !ambiguous.has(form)) byForm.set(form, { target: proposal.signature, node: null });
    }
  }
  const entries = [...byForm.entries()];
  return { forms: entries.map(([form]) => form), targets: entries.map(([, v]) => v.target), nodes: entries.map(([, v]) => v.node) };
}
