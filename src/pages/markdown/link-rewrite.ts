import { createMarkdownParser } from './wikilinks.js';
import { linkKey } from './slug.js';

const WIKILINK = /(!?\[\[)([^\[\]|#\n]+)((?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\])/g;
const parser = createMarkdownParser();

/**
 * Rewrites `[[Old]]`, `[[Old|label]]`, `[[Old#h]]` and `![[Old]]` whose target names the page, keeping label and
 * heading. Text inside code (fenced or indented blocks, `code spans`) is an example, not a link, and stays as written.
 */
export function rewriteWikilinks(body: string, keys: Set<string>, newTitle: string): string {
  const code = codeRanges(body);
  return body.replace(WIKILINK, (whole: string, open: string, target: string, rest: string, offset: number) =>
    keys.has(linkKey(target)) && !code.some(([start, end]) => offset >= start && offset < end) ? `${open}${newTitle}${rest}` : whole,
  );
}

/** Where a Markdown text holds code, as [start, end) character offsets: code blocks (from the parser) and code spans. */
export function codeRanges(markdown: string): [number, number][] {
  const lineStarts = [0];
  for (let i = 0; i < markdown.length; i++) if (markdown[i] === '\n') lineStarts.push(i + 1);
  const offsetOfLine = (line: number) => (line < lineStarts.length ? lineStarts[line] : markdown.length);

  const blocks: [number, number][] = parser
    .parse(markdown, {})
    .filter((token) => (token.type === 'fence' || token.type === 'code_block') && token.map)
    .map((token) => [offsetOfLine(token.map![0]), offsetOfLine(token.map![1])]);
  // Code spans are looked for outside the blocks only: blank those out, keeping every offset where it was.
  let rest = markdown;
  for (const [start, end] of blocks) rest = rest.slice(0, start) + ' '.repeat(end - start) + rest.slice(end);
  return [...blocks, ...codeSpans(rest)];
}

/**
 * CommonMark code spans: a run of n backticks opens one, the next run of exactly n closes it; a run with no closer
 * (within its paragraph) is literal text. A backslash-escaped backtick opens nothing.
 */
function codeSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ start: m.index, length: m[0].length }));
  for (let i = 0; i < runs.length; i++) {
    const opener = runs[i];
    if (opener.start > 0 && text[opener.start - 1] === '\\') continue;
    const paragraphEnd = text.slice(opener.start).search(/\n[ \t]*\n/);
    const limit = paragraphEnd < 0 ? text.length : opener.start + paragraphEnd;
    const closer = runs.findIndex((run, j) => j > i && run.length === opener.length && run.start < limit);
    if (closer < 0) continue;
    spans.push([opener.start, runs[closer].start + runs[closer].length]);
    i = closer;
  }
  return spans;
}
