/** Where a reader finds an approved entity of the knowledge graph (relative to the wiki's root). */
export function entityHref(id: string): string {
  return `/entities/${id}`;
}
