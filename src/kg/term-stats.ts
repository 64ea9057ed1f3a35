import { CODE_SPAN, HTML_TAG, IMAGE, LABELLED_WIKILINK, MARKUP_BOUNDS, WIKILINK } from '../common/markup-patterns.js';

// Corpus statistics of words, from the wiki's own pages: how often each word is written in lower case in running text
// (an ordinary word: "the repo folder") and how often capitalised inside a sentence (a name: "open Obsidian Sync").
// Counted per page when the page is saved (kg_page_terms, one row per page and word: no two saves share a row) and
// summed over the wiki for the words an extraction asks about. The built-in extractor reads them to tell a name from
// an ordinary word written with a capital (`Folder`, `Groups`, `Delete`) whatever the page it is on.

/** Per word (lower case): occurrences in lower case, and capitalised other than at the start of a sentence. */
export type TermCounts = Map<string, { lower: number; capitalised: number }>;

// Function words are never names; leaving them out keeps a page's rows few.
const FUNCTION_WORDS = new Set(
  ('a an the and or but nor so yet for of to in on at by from with without into onto over under about above below ' +
    'as is are was were be been being am do does did done have has had having it its this that these those there here ' +
    'he she they we you i me him her them us my your our their his hers ours theirs not no yes if then than when where ' +
    'which who whom whose what why how all any some each every both either neither one two can could will would shall ' +
    'should may might must also just only very too more most much many such own same other another up down out off')
    .split(' '),
);
const MAX_WORD = 40;

// A Markdown link, read around its label (the shared patterns are src/common/markup-patterns.ts: each looks a
// bounded distance past its opening mark, as this one does; this runs in the save, on the web process's one thread).
const LINK = new RegExp(String.raw`\[([^\]\n]{0,${MARKUP_BOUNDS.label}})\]\([^)\n]{0,${MARKUP_BOUNDS.destination}}\)`, 'g');
// A table's delimiter row (`|---|`, `:---`); one run of spaces only, so a line of spaces is read once.
const TABLE_RULE = /^\s*(?:\|\s*)?:?-{3,}/;

/**
 * Counts the words of a page's Markdown (frontmatter removed). Code, URLs, HTML, link destinations and labelless
 * wikilinks (their target is a name as the link writes it, not running text) are left out; headings and lines in
 * title case are left out too (their capitals say nothing). A word first in a sentence, a list item or a clause
 * (after `:`, `;`, `(`) counts only when it is in lower case.
 */
export function termCounts(markdown: string): TermCounts {
  const counts: TermCounts = new Map();
  let fenced = false;
  for (const rawLine of markdown.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(rawLine)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || /^\s{0,3}#{1,6}\s/.test(rawLine) || TABLE_RULE.test(rawLine) || /^ {4,}\S/.test(rawLine)) continue;
    const line = withoutMarkup(rawLine)
      .replace(/\b(?:https?|ftp):\/\/\S+/g, ' , ')
      .replace(/^\s*(?:[-*+]|\d{1,9}[.)]|>)\s+(?:\[[ xX]\]\s+)?/, '')
      .replace(/[*_~]+/g, '');
    if (isTitleCaseLine(line)) continue;
    let first = true;
    for (const match of line.matchAll(/[\p{L}][\p{L}\p{N}'’-]*|[.!?:;()|"“”]/gu)) {
      const token = match[0];
      if (token.length === 1 && !/\p{L}/u.test(token)) {
        first = true;
        continue;
      }
      const word = token.replace(/['’]s$/u, '').replace(/[-'’]+$/u, '');
      const key = word.toLowerCase();
      const wasFirst = first;
      first = false;
      if (word.length < 2 || word.length > MAX_WORD || FUNCTION_WORDS.has(key)) continue;
      const lower = /^[\p{Ll}]/u.test(word);
      if (!lower && wasFirst) continue;
      let entry = counts.get(key);
      if (!entry) {
        entry = { lower: 0, capitalised: 0 };
        counts.set(key, entry);
      }
      if (lower) entry.lower++;
      else entry.capitalised++;
    }
  }
  return counts;
}

/** The line with its links, images, code spans and tags replaced (only the patterns whose closing mark it holds run). */
function withoutMarkup(line: string): string {
  let out = line;
  if (out.includes(']')) out = out.replace(LABELLED_WIKILINK, ' $1 ').replace(WIKILINK, ' , ').replace(IMAGE, ' , ').replace(LINK, ' $1 ');
  if (out.includes('`')) out = out.replace(CODE_SPAN, ' , ');
  if (out.includes('>')) out = out.replace(HTML_TAG, ' ');
  return out;
}

/** A line whose longer words are all capitalised (a table of contents, a title, a label): not running text. */
function isTitleCaseLine(line: string): boolean {
  const words = line.split(/\s+/).filter((w) => w.length >= 4 && /^\p{L}/u.test(w));
  if (words.length < 2 || line.split(/\s+/).length > 12) return false;
  return words.every((w) => /^\p{Lu}/u.test(w));
}

/** Forms a word's statistics are summed over: itself and its singular or plural (`group`, `groups`). */
export function termForms(word: string): string[] {
  const key = word.toLowerCase();
  const forms = [key];
  if (/[^s]s$/.test(key) && key.length > 3) forms.push(key.slice(0, -1));
  else if (/ies$/.test(key) && key.length > 4) forms.push(`${key.slice(0, -3)}y`);
  else if (!key.endsWith('s')) forms.push(`${key}s`);
  return forms;
}
