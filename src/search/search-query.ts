/** A search box query split into the words to rank by and the `-excluded` words. Quotes only group words. */
export interface ParsedSearchQuery {
  words: string;
  excluded: string;
}

export function parseSearchQuery(query: string): ParsedSearchQuery {
  const words: string[] = [];
  const excluded: string[] = [];
  for (const match of query.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const negated = match[1] === '-' || (match[3]?.startsWith('-') ?? false);
    const text = match[2] ?? match[3].replace(/^-+/, '');
    if (text) (negated ? excluded : words).push(text);
  }
  return { words: words.join(' '), excluded: excluded.join(' ') };
}
