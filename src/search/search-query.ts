/**
 * A search box query split into the words to rank by and the `-excluded` words. Quotes only group words.
 * `words` is what the reader typed (minus exclusions), plus the parts of tokens joined by `/`, `.` or `\`
 * (`Folder/Name` also searches `Folder Name`: PostgreSQL's parser reads such a token as one file name) and of
 * lowerCamelCase identifiers (`aliasMode` also searches `alias Mode`).
 */
export interface ParsedSearchQuery {
  words: string;
  excluded: string;
  /** The reader's own words, in order, as typed (no parts added): what "why this result" names. */
  readerWords: string[];
}

// An exclusion: one `-` at a token's start, then a word of two or more characters that starts with a letter or digit.
// `--option` (two dashes), `-v` (a one-letter flag), `-` alone and `e-mail` (a dash inside a word) are literal.
const EXCLUSION = /^-([\p{L}\p{N}][\p{L}\p{N}'’_.-]+)$/u;
// Tokens the database tokenizer would fuse: a path (`Folder/Name`, `a\b`) or a dotted name (`file.md`, `v1.2`).
const FUSED = /[\p{L}\p{N}][/\\.][\p{L}\p{N}]/u;
// A lowerCamelCase identifier (`templateHierarchy`, `aliasMode`): two lower-case letters or more, then capitalised
// words. Not a product name (`GitHub`, `KaTeX`, `iPhone`, `macOS`). The same rule as kurate_search_names (migration 0030).
const CAMEL = /^[^\p{L}\p{N}]*\p{Ll}{2,}(?:\p{Lu}\p{Ll}+)+[^\p{L}\p{N}]*$/u;

/** The parts of a fused token (`Folder/Name` → `Folder Name`, `aliasMode` → `alias Mode`), or '' when there are none. */
export function tokenParts(token: string): string {
  if (FUSED.test(token)) return token.split(/[/\\.]+/u).filter(Boolean).join(' ');
  return CAMEL.test(token) ? token.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2') : '';
}

export function parseSearchQuery(query: string): ParsedSearchQuery {
  const positive: string[] = [];
  const negative: { text: string; literal: string }[] = [];
  for (const match of query.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    if (match[2] !== undefined) {
      const text = match[2].trim();
      if (!text) continue;
      if (match[1] === '-') negative.push({ text, literal: text });
      else positive.push(text);
      continue;
    }
    const token = match[3];
    const exclusion = EXCLUSION.exec(token);
    if (exclusion) negative.push({ text: exclusion[1], literal: token });
    else positive.push(token);
  }
  // With nothing left to search for, a `-` was not meant as an exclusion ("-v" alone, "-verbose").
  const words = positive.length > 0 ? positive : negative.map((n) => n.literal);
  const excluded = positive.length > 0 ? negative.map((n) => n.text) : [];
  const hasWord = (text: string) => /[\p{L}\p{N}]/u.test(text);
  const readerWords = words.flatMap((w) => w.split(/\s+/u)).filter(hasWord);
  const parts = readerWords.map(tokenParts).filter(Boolean);
  return { words: [...words, ...parts].join(' '), excluded: excluded.join(' '), readerWords };
}
