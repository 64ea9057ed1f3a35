/**
 * Signatures: how the knowledge graph recognises the same entity or relation again, whoever writes it (extraction
 * here, review and curation in src/review and src/curation). A node's signature is its normalised name and its type; an edge's joins
 * its endpoints' signatures and the predicate.
 */

/** NFKC, lower case, whitespace collapsed, trimmed: "  PostgreSQL\u00a0 15 " → "postgresql 15". */
export function normaliseName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

export function nodeSignature(name: string, type: string): string {
  return `${normaliseName(name)}|${type}`;
}

export function edgeSignature(sourceSignature: string, predicate: string, targetSignature: string): string {
  return `${sourceSignature}|${predicate}|${targetSignature}`;
}
