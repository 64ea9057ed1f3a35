/** Where a reader finds an approved entity of the knowledge graph (relative to the wiki's root). */
export function entityHref(id: string): string {
  return `/entities/${id}`;
}

/** The admin's curation page of the same entity. */
export function adminEntityHref(id: string): string {
  return `/admin/knowledge-graph/ui/entities/${id}`;
}
