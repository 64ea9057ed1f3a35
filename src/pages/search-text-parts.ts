/**
 * A text longer than two parts is turned into lexemes a part at a time: to_tsvector of a megabyte takes 130–180 ms,
 * which on the embedded database holds the server's main thread (PagesRepository.searchLexemes). A part takes a few
 * milliseconds.
 */
export const SEARCH_TEXT_PART_CHARS = 32_768;

/**
 * `text` cut into parts of at most `max` characters, each cut after the last line break (else space or tab) of its
 * second half, so that no word is cut; a part with no whitespace there is cut at `max`, never inside a surrogate pair.
 * The parts joined are the text.
 */
export function textParts(text: string, max: number): string[] {
  const parts: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const from = start + Math.floor(max / 2);
    let end = start + max;
    const window = text.slice(from, end);
    let cut = window.lastIndexOf('\n');
    if (cut < 0) cut = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
    if (cut >= 0) end = from + cut + 1;
    else if (/[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  parts.push(text.slice(start));
  return parts;
}
