import { headingAnchor } from './markdown/markdown-renderer.js';
import { plainInline, plainText } from './markdown/plain-text.js';

export interface Highlight {
  before: string;
  match: string;
  after: string;
  /** False when the quote could not be found in the chunk (it is then shown on its own). */
  found: boolean;
}

/**
 * Finds a quote in its chunk and cuts the chunk to `context` characters either side of it, as a reader reads it:
 * both as plain text (no Markdown syntax, no comments). The quote was verified against the source (the evidence
 * matcher); here it is found again in the plain text, tolerant of case and whitespace, by its plain reading or as
 * written.
 */
export function highlightQuote(source: string, quote: string, context = 280): Highlight {
  const text = plainText(source);
  const plainQuote = plainInline(quote);
  const found = locateQuote(text, plainQuote, context);
  return found.found || plainQuote === quote.trim() ? found : locateQuote(text, quote, context);
}

function locateQuote(text: string, quote: string, context: number): Highlight {
  const words = quote.trim().split(/\s+/u).filter(Boolean);
  if (words.length === 0) return { before: clip(text, context * 2, 'end'), match: '', after: '', found: false };
  let start = text.indexOf(quote);
  let length = quote.length;
  if (start < 0) {
    const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'), 'iu');
    const match = pattern.exec(text);
    if (match) {
      start = match.index;
      length = match[0].length;
    }
  }
  if (start < 0) return { before: clip(text, context * 2, 'end'), match: '', after: '', found: false };
  return {
    before: clip(text.slice(0, start), context, 'start'),
    match: text.slice(start, start + length),
    after: clip(text.slice(start + length), context, 'end'),
    found: true,
  };
}

/** Shortens text to about `max` characters at a word boundary, cutting its start or its end. */
function clip(text: string, max: number, cut: 'start' | 'end'): string {
  if (text.length <= max) return text;
  return cut === 'start' ? `…${text.slice(text.length - max).replace(/^\S*\s/u, '')}` : `${text.slice(0, max).replace(/\s\S*$/u, '')}…`;
}

/** Where a chunk sits in its page: its heading path, and the id its heading has on the rendered page, if known. */
export interface PassageSection {
  headingPath: readonly string[];
  /** Stored with the chunk (`setup-2` for a page's second "Setup"); null at the top of the page or for a chunk made before anchors were stored. */
  anchor?: string | null;
}

/** The link to a passage: the page, at the heading the passage sits under (the id the renderer gave that heading). */
export function passageHref(slug: string, section: PassageSection): string {
  const heading = section.headingPath.at(-1);
  const anchor = section.anchor ?? (heading === undefined ? null : headingAnchor(heading));
  return `/page/${encodeURIComponent(slug)}${anchor ? `#${anchor}` : ''}`;
}

export function headingText(headingPath: string[]): string {
  return headingPath.join(' › ');
}
