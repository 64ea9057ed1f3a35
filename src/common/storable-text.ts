// What PostgreSQL can store as text: no NUL (U+0000), and no lone UTF-16 surrogate (half a character, which JSON can
// write as `\ud800` and JSON columns refuse). Pure, for the request rules (input-rules.ts) and the frontmatter parser.

/** U+FFFD, which CommonMark prescribes in place of U+0000. */
export const REPLACEMENT = '\uFFFD';

const nulMessage = (field: string) =>
  `The field "${field}" contains a NUL character (\\u0000), which Kurate cannot store. Remove it and send again.`;
const surrogateMessage = (field: string) =>
  `The field "${field}" contains a lone UTF-16 surrogate (half of a character, such as \\ud800), which is not text. Remove it and send again.`;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Why a text cannot be stored (NUL, a lone surrogate), as the message for its field; null when it can. */
export function unstorableText(text: string, field: string): string | null {
  if (text.includes('\0')) return nulMessage(field);
  if (LONE_SURROGATE.test(text)) return surrogateMessage(field);
  return null;
}

/** A page source's text with what cannot be stored replaced by U+FFFD, as CommonMark does for NUL. */
export const storable = (text: string) => text.replaceAll('\0', REPLACEMENT).replace(LONE_SURROGATES, REPLACEMENT);

