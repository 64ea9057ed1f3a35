/**
 * How far past an opening mark the patterns that read Markdown around words may look: a link's label or target, a
 * link's destination, a code span or an HTML tag. A longer one is read as words. An unbounded `[^\]]*` rescans the
 * rest of the line from every `[`, so a line of a hundred thousand `[` took from seconds to minutes; bounded, every
 * such pattern is linear in the text. Shared by what a save reads on the web thread (src/kg/term-stats.ts) and what
 * extraction reads (src/kg/chunker.ts, src/extractors/builtin/builtin.extractor.ts).
 */
export const MARKUP_BOUNDS = {
  /** A link label, a wikilink target, its section or its label; a footnote label. */
  label: 150,
  /** A Markdown link's or image's destination (and its title). */
  destination: 2000,
  /** A code span or an HTML tag. */
  span: 300,
} as const;

const { label: L, destination: D, span: S } = MARKUP_BOUNDS;

// The patterns more than one reader uses, for String.prototype.replace and matchAll (which never keep lastIndex).
/** `[[Target|label]]` (and `![[…|…]]`), the label captured. */
export const LABELLED_WIKILINK = new RegExp(String.raw`!?\[\[[^\]|\n]{0,${L}}\|([^\]\n]{0,${L}})\]\]`, 'g');
/** `[[Target]]` or `[[Target|label]]` (and `![[…]]`), whole. */
export const WIKILINK = new RegExp(String.raw`!?\[\[[^\]\n]{0,${L}}\]\]`, 'g');
/** `![alt](destination)`. */
export const IMAGE = new RegExp(String.raw`!\[[^\]\n]{0,${L}}\]\([^)\n]{0,${D}}\)`, 'g');
/** `` `code` `` on one line. */
export const CODE_SPAN = new RegExp(`\`[^\`\\n]{0,${S}}\``, 'g');
/** An HTML tag on one line. */
export const HTML_TAG = new RegExp(String.raw`<[^>\n]{1,${S}}>`, 'g');
