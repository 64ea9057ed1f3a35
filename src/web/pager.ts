export interface Pager {
  page: number;
  totalPages: number;
  total: number;
  prevHref: string | null;
  nextHref: string | null;
}

/** Previous/next links that keep the other query parameters. */
export function pager(path: string, params: Record<string, string | number | undefined>, page: number, perPage: number, total: number): Pager | null {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  if (totalPages <= 1 && page <= 1) return null;
  const href = (p: number) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, String(value));
    if (p > 1) query.set('page', String(p));
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };
  return {
    page,
    totalPages,
    total,
    prevHref: page > 1 ? href(Math.min(page - 1, totalPages)) : null,
    nextHref: page < totalPages ? href(page + 1) : null,
  };
}
