// Finds a model's "verbatim" quote in the chunk it was given, forgiving what does not change the words:
// Unicode compatibility forms (NFKC), typographic quotes and dashes, runs of whitespace, and Markdown markup.
// A match is returned as the chunk's own text (a verbatim slice), never as what the model wrote.

export type QuoteMatchKind = 'verbatim' | 'ignoring-markup' | 'case-insensitive';

export interface QuoteMatch {
  kind: QuoteMatchKind;
  /** The matching slice of the raw chunk text. */
  text: string;
  start: number;
  end: number;
}

/** A normalised copy of a text, and for each of its characters the raw range it came from. */
interface View {
  text: string;
  starts: number[];
  ends: number[];
}

interface ViewOptions {
  stripMarkup: boolean;
  lowerCase: boolean;
}

// Typographic variants NFKC leaves alone but models swap freely.
const FOLD: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'", '\u00B4': "'", '\u0060': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"', '\u00AB': '"', '\u00BB': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
};
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/;
const WHITESPACE = /\s/;
// Characters that format Markdown rather than say something; a quote is compared without them.
const MARKUP = new Set(['*', '_', '`', '[', ']', '~', '#', '>', '|']);
const MARK = /\p{M}/u;

/** The chunk a quote is checked against; its normalised views are built once, on first use. */
export class ChunkText {
  private readonly views = new Map<string, View>();
  private sentenceRanges: { start: number; end: number }[] | null = null;

  constructor(readonly raw: string) {}

  /** Where the quote occurs, trying the strict comparison first; null when it does not occur at all. */
  find(quote: string): QuoteMatch | null {
    // Fast path: an exact substring (what the built-in extractor always quotes) needs no normalised view.
    const trimmed = quote.trim();
    if (meaningfulLength(trimmed) < 3) return null;
    const exact = this.raw.indexOf(trimmed);
    if (exact >= 0) return { kind: 'verbatim', text: trimmed, start: exact, end: exact + trimmed.length };
    const tries: [QuoteMatchKind, ViewOptions][] = [
      ['verbatim', { stripMarkup: false, lowerCase: false }],
      ['ignoring-markup', { stripMarkup: true, lowerCase: false }],
      ['case-insensitive', { stripMarkup: true, lowerCase: true }],
    ];
    for (const [kind, options] of tries) {
      const needle = buildView(quote, options).text;
      if (meaningfulLength(needle) < 3) return null;
      const view = this.view(options);
      const at = view.text.indexOf(needle);
      if (at >= 0) return this.slice(kind, view, at, at + needle.length, options.stripMarkup);
    }
    return null;
  }

  /** Whether a name occurs in the chunk as whole words (case- and markup-insensitive). */
  mentions(name: string): boolean {
    return this.findWords(name, this.view({ stripMarkup: true, lowerCase: true })) >= 0;
  }

  /**
   * The first sentence of the chunk (its raw text) that mentions every one of the names, or null.
   * Used as evidence in place of a quote the model invented.
   */
  sentenceMentioning(names: string[]): string | null {
    const view = this.view({ stripMarkup: true, lowerCase: true });
    for (const range of this.sentences()) {
      const sentence = sliceView(view, range.start, range.end);
      if (names.every((name) => this.findWords(name, sentence) >= 0)) return this.raw.slice(range.start, range.end).trim();
    }
    return null;
  }

  private findWords(name: string, view: View): number {
    const needle = buildView(name, { stripMarkup: true, lowerCase: true }).text;
    if (needle.length === 0) return -1;
    for (let at = view.text.indexOf(needle); at >= 0; at = view.text.indexOf(needle, at + 1)) {
      const before = at === 0 ? ' ' : view.text[at - 1];
      const after = at + needle.length >= view.text.length ? ' ' : view.text[at + needle.length];
      if (!isWordChar(before) && !isWordChar(after)) return at;
    }
    return -1;
  }

  private view(options: ViewOptions): View {
    const key = `${options.stripMarkup}/${options.lowerCase}`;
    let view = this.views.get(key);
    if (!view) {
      view = buildView(this.raw, options);
      this.views.set(key, view);
    }
    return view;
  }

  /** Raw sentence ranges: split at line breaks between blocks and at sentence-ending punctuation. */
  private sentences(): { start: number; end: number }[] {
    if (!this.sentenceRanges) this.sentenceRanges = sentenceRanges(this.raw);
    return this.sentenceRanges;
  }

  private slice(kind: QuoteMatchKind, view: View, from: number, to: number, widen: boolean): QuoteMatch {
    let start = view.starts[from];
    let end = view.ends[to - 1];
    if (widen) {
      // Take in markup the comparison skipped at the edges (`**Foam** is` rather than `Foam** is`).
      while (start > 0 && isMarkupOrHidden(this.raw, start - 1)) start--;
      while (end < this.raw.length && isMarkupOrHidden(this.raw, end)) end++;
    }
    return { kind, text: this.raw.slice(start, end), start, end };
  }
}

function isMarkupOrHidden(raw: string, index: number): boolean {
  return MARKUP.has(raw[index]) || (raw[index] === '!' && raw[index + 1] === '[');
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}]/u.test(ch);
}

function meaningfulLength(text: string): number {
  return text.replace(/[\s\p{P}]/gu, '').length;
}

/** Raw index ranges hidden when markup is ignored: link destinations and wikilink targets before a `|`. */
function hiddenRanges(raw: string): boolean[] | null {
  if (!/[\]<|]/.test(raw)) return null;
  const hidden = new Array<boolean>(raw.length).fill(false);
  const hide = (from: number, to: number) => {
    for (let i = from; i < to; i++) hidden[i] = true;
  };
  for (const m of raw.matchAll(/\]\([^)\s]*(?:\s+"[^"]*")?\)/g)) hide(m.index + 1, m.index + m[0].length);
  for (const m of raw.matchAll(/\[\[([^\]|\n]*)\|/g)) hide(m.index + 2, m.index + m[0].length);
  for (const m of raw.matchAll(/<\/?[A-Za-z][^>\n]*>/g)) hide(m.index, m.index + m[0].length);
  return hidden;
}

function buildView(raw: string, options: ViewOptions): View {
  const hidden = options.stripMarkup ? hiddenRanges(raw) : null;
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  const emit = (chars: string, start: number, end: number) => {
    for (const ch of chars) {
      if (WHITESPACE.test(ch)) {
        // Runs of whitespace become one space; none at the start.
        if (text.length === 0) continue;
        if (text[text.length - 1] === ' ') ends[ends.length - 1] = end;
        else {
          text += ' ';
          starts.push(start);
          ends.push(end);
        }
        continue;
      }
      const folded = FOLD[ch] ?? ch;
      text += folded;
      for (let i = 0; i < folded.length; i++) {
        starts.push(start);
        ends.push(end);
      }
    }
  };
  let i = 0;
  while (i < raw.length) {
    const code = raw.charCodeAt(i);
    let end = i + 1;
    // A cluster: one code point and the combining marks after it (`e` + U+0301), normalised together.
    if (code >= 0xd800 && code <= 0xdbff && end < raw.length) end++;
    while (end < raw.length && raw.charCodeAt(end) >= 0x300 && MARK.test(raw[end])) end++;
    const start = i;
    i = end;
    if (hidden?.[start]) continue;
    const cluster = raw.slice(start, end);
    const ascii = code < 128 && cluster.length === 1;
    if (!ascii && INVISIBLE.test(cluster)) continue;
    if (options.stripMarkup && (MARKUP.has(cluster) || (cluster === '!' && raw[end] === '['))) continue;
    let normal = ascii ? cluster : cluster.normalize('NFKC');
    if (options.lowerCase) normal = normal.toLowerCase();
    emit(normal, start, end);
  }
  if (text.endsWith(' ')) {
    text = text.slice(0, -1);
    starts.pop();
    ends.pop();
  }
  return { text, starts, ends };
}

/** The part of a view that came from raw[start, end). */
function sliceView(view: View, start: number, end: number): View {
  let from = 0;
  while (from < view.starts.length && view.starts[from] < start) from++;
  let to = from;
  while (to < view.starts.length && view.starts[to] < end) to++;
  return { text: view.text.slice(from, to), starts: view.starts.slice(from, to), ends: view.ends.slice(from, to) };
}

const ABBREVIATIONS = /(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|No|Fig|Inc|Ltd|Co)|\b[A-Z])\.$/;

/**
 * Sentence ranges of a Markdown chunk, in raw offsets. Blocks (paragraphs, list items, headings, table rows)
 * end at line breaks; within a block a sentence ends at `.`, `!` or `?` followed by a space and an upper-case
 * letter, a digit or an opening mark. Fenced code is skipped. Shared with the built-in extractor.
 */
export function sentenceRanges(raw: string): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  let fence: string | null = null;
  let blockStart = -1;
  let blockEnd = -1;
  const flush = () => {
    if (blockStart >= 0) splitBlock(raw, blockStart, blockEnd, ranges);
    blockStart = -1;
  };
  let lineStart = 0;
  while (lineStart <= raw.length) {
    let lineEnd = raw.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = raw.length;
    const line = raw.slice(lineStart, lineEnd);
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMark && fenceMark[1][0] === fence[0] && fenceMark[1].length >= fence.length) fence = null;
    } else if (fenceMark) {
      flush();
      fence = fenceMark[1];
    } else if (/^\s*$/.test(line) || /^\s*\|?\s*:?-{3,}/.test(line)) {
      flush();
    } else {
      // A heading, list item, quote or table row starts a block of its own.
      if (/^\s{0,3}(#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>|\|)/.test(line) || /^\s{0,3}#{1,6}\s/.test(raw.slice(blockStart, blockEnd))) flush();
      if (blockStart < 0) blockStart = lineStart;
      blockEnd = lineEnd;
    }
    lineStart = lineEnd + 1;
  }
  flush();
  return ranges;
}

function splitBlock(raw: string, start: number, end: number, out: { start: number; end: number }[]): void {
  let sentenceStart = start;
  const block = raw.slice(start, end);
  const boundary = /[.!?]["')\]*_]*\s+(?=["'(\[*_]*[\p{Lu}\p{N}])/gu;
  for (const m of block.matchAll(boundary)) {
    const cut = start + m.index + m[0].trimEnd().length;
    if (ABBREVIATIONS.test(raw.slice(Math.max(sentenceStart, cut - 12), cut).replace(/["')\]*_]+$/, ''))) continue;
    pushTrimmed(raw, sentenceStart, cut, out);
    sentenceStart = start + m.index + m[0].length;
  }
  pushTrimmed(raw, sentenceStart, end, out);
}

function pushTrimmed(raw: string, start: number, end: number, out: { start: number; end: number }[]): void {
  while (start < end && WHITESPACE.test(raw[start])) start++;
  while (end > start && WHITESPACE.test(raw[end - 1])) end--;
  if (end > start) out.push({ start, end });
}
