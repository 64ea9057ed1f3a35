// Characters that change how a name looks without being seen: text-direction controls (the Arabic letter mark,
// left-to-right and right-to-left marks, embeddings, overrides and isolates) and invisible separators (zero-width
// space, word joiner, byte-order mark). `Invoice\u202Egnp.exe` shows as `Invoiceexe.png`, and `Foam` with a
// zero-width space inside looks like `Foam`. Joiners (U+200C, U+200D) are not among them: scripts and emoji need them.
// Pure, for page titles (pages.service.ts) and vault paths (vault-paths.ts).

/**
 * An embedding, override or isolate: what reorders the characters around it (the marks, U+200E, U+200F and U+061C,
 * only lean neutral characters one way, and right-to-left file names may carry them).
 */
export const DIRECTION_OVERRIDE = /[\u202A-\u202E\u2066-\u2069]/;
const INVISIBLE_IN_NAMES = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;

/**
 * A name (a page title) without direction controls and invisible separators, as MediaWiki strips them from titles:
 * what a reader sees is what the name is, and two titles that look alike are one.
 */
export function withoutInvisibleControls(name: string): string {
  return name.replace(INVISIBLE_IN_NAMES, '');
}
