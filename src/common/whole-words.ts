/**
 * Where `needle` first stands in `text` as whole words, at `from` or after: no letter or digit just before it or just
 * after it (`list` in `foam list`, not in `listing`). -1 when it does not, or when the needle is empty. Case counts as
 * given: lower both for a search that ignores it.
 */
export function wholeWordIndex(text: string, needle: string, from = 0): number {
  if (needle === '') return -1;
  for (let at = text.indexOf(needle, from); at >= 0; at = text.indexOf(needle, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + needle.length])) return at;
  }
  return -1;
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
}
