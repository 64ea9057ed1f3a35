/** Where a reader finds an approved entity of the knowledge graph (relative to the wiki's root). */
export function entityHref(id: string): string {
  return `/entities/${id}`;
}

/** A search for these words (the reader's search page). */
export const searchHref = (q: string): string => `/search?${new URLSearchParams({ q })}`;
