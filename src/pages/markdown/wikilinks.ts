import markdownit, { type MarkdownIt, type StateInline, type Token } from 'markdown-it';
import { linkKey } from './slug.js';

export type LinkKind = 'wikilink' | 'embed' | 'markdown';

export interface ParsedLink {
  kind: LinkKind;
  target: string;
  heading: string | null;
  label: string | null;
  key: string;
}

/** `meta` of the `wikilink` tokens produced by {@link wikilinkPlugin}. */
export type WikilinkMeta = {
  target: string;
  heading: string | null;
  label: string | null;
  embed: boolean;
};

const BANG = 0x21;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;
const URL_SCHEME = /^[a-z][a-z\d+.-]*:/i;
const FILE_EXTENSION = /\.([a-z\d]+)$/i;
const MARKDOWN_EXTENSION = /^(?:md|markdown)$/i;

/** markdown-it inline rule for `[[Page#Heading|label]]` and `![[Page]]`. */
export function wikilinkPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('link', 'wikilink', wikilinkRule);
}

/** The one parser configuration shared by link extraction and rendering, so both read a page alike. */
export function createMarkdownParser(): MarkdownIt {
  // maxNesting bounds recursion on hostile input such as thousands of nested blockquotes.
  return markdownit({ html: true, linkify: false, typographer: false, maxNesting: 50 }).use(wikilinkPlugin);
}

function wikilinkRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  const embed = src.charCodeAt(pos) === BANG;
  const open = embed ? pos + 1 : pos;
  if (src.charCodeAt(open) !== OPEN_BRACKET || src.charCodeAt(open + 1) !== OPEN_BRACKET) return false;

  const close = findClosingBrackets(src, open + 2, posMax);
  const meta = close < 0 ? null : parseWikilink(src.slice(open + 2, close), embed);
  if (!meta) return false;

  if (!silent) {
    const token = state.push('wikilink', '', 0);
    token.meta = meta;
    token.content = src.slice(pos, close + 2);
  }
  state.pos = close + 2;
  return true;
}

// Giving up at the first bracket or newline keeps the scan linear even with thousands of unclosed `[[`.
function findClosingBrackets(src: string, from: number, max: number): number {
  for (let i = from; i < max; i++) {
    const code = src.charCodeAt(i);
    if (code === CLOSE_BRACKET) return i + 1 < max && src.charCodeAt(i + 1) === CLOSE_BRACKET ? i : -1;
    if (code === OPEN_BRACKET || code === NEWLINE) return -1;
  }
  return -1;
}

function parseWikilink(inner: string, embed: boolean): WikilinkMeta | null {
  const [destination, label] = splitOnce(inner, '|');
  const [target, heading] = splitOnce(destination, '#');
  if (target.trim() === '') return null;
  return { target: target.trim(), heading: nonEmpty(heading), label: nonEmpty(label), embed };
}

/** The link a `wikilink` token stands for. */
export function wikilinkOf(token: Token): ParsedLink {
  const { target, heading, label, embed } = token.meta as WikilinkMeta;
  return { kind: embed ? 'embed' : 'wikilink', target, heading, label, key: linkKey(target) };
}

/** The page link a `link_open` token stands for, or null when it points elsewhere (a URL, an anchor, a file). */
export function markdownLinkAt(tokens: Token[], idx: number): ParsedLink | null {
  const href = tokens[idx].attrGet('href');
  const destination = typeof href === 'string' ? pageDestination(href) : null;
  if (!destination) return null;
  const { target, heading } = destination;
  return { kind: 'markdown', target, heading, label: nonEmpty(linkText(tokens, idx)), key: linkKey(target) };
}

function pageDestination(href: string): { target: string; heading: string | null } | null {
  // A leading '/' also rules out protocol-relative '//host' URLs.
  if (URL_SCHEME.test(href) || href.startsWith('/') || href.startsWith('#')) return null;
  const [pathAndQuery, fragment] = splitOnce(href, '#');
  const target = percentDecode(splitOnce(pathAndQuery, '?')[0]).trim();
  const extension = FILE_EXTENSION.exec(target.slice(target.lastIndexOf('/') + 1))?.[1];
  if (extension !== undefined && !MARKDOWN_EXTENSION.test(extension)) return null;
  // Links to a folder such as `../` name no page.
  if (linkKey(target) === '') return null;
  return { target, heading: fragment === null ? null : nonEmpty(percentDecode(fragment)) };
}

function linkText(tokens: Token[], openIdx: number): string {
  let text = '';
  for (let i = openIdx + 1; i < tokens.length && tokens[i].type !== 'link_close'; i++) {
    if (tokens[i].type === 'text' || tokens[i].type === 'code_inline') text += tokens[i].content;
  }
  return text;
}

const referenceParser = createMarkdownParser();

/**
 * A Markdown body's tokens as the link and file readers need them (block tokens with their inline children). One
 * parse serves both {@link linksIn} and `fileReferencesIn` (file-embeds.ts): a save reads its links and its files.
 */
export function referenceTokens(markdownBody: string): Token[] {
  return referenceParser.parse(markdownBody, {});
}

/** Every page link in a Markdown body, in document order with duplicates; code spans and blocks are skipped. */
export function extractLinks(markdownBody: string): ParsedLink[] {
  return linksIn(referenceTokens(markdownBody));
}

/** The page links of tokens from {@link referenceTokens}, in document order with duplicates. */
export function linksIn(blocks: Token[]): ParsedLink[] {
  const links: ParsedLink[] = [];
  for (const block of blocks) {
    const children = block.children ?? [];
    children.forEach((token, idx) => {
      const link =
        token.type === 'wikilink' ? wikilinkOf(token) : token.type === 'link_open' ? markdownLinkAt(children, idx) : null;
      if (link) links.push(link);
    });
  }
  return links;
}

function splitOnce(text: string, separator: string): [string, string | null] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, null] : [text.slice(0, at), text.slice(at + 1)];
}

function nonEmpty(text: string | null): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape such as `100%` is kept as written.
    return text;
  }
}

/** A page the body links to, as the Page Graph stores it (one row per distinct target). */
export interface BodyLink {
  kind: LinkKind;
  target: string;
  targetKey: string;
  heading: string | null;
}

/** The distinct pages a body links to, in order of first appearance (one Page Graph edge per target). */
export function outboundLinks(markdown: string): BodyLink[] {
  return distinctTargets(extractLinks(markdown));
}

/** The distinct pages among parsed links, in order of first appearance: `outboundLinks` of links already parsed. */
export function distinctTargets(links: readonly ParsedLink[]): BodyLink[] {
  const seen = new Map<string, BodyLink>();
  for (const link of links) {
    if (link.key && !seen.has(link.key)) seen.set(link.key, { kind: link.kind, target: link.target, targetKey: link.key, heading: link.heading });
  }
  return [...seen.values()];
}

/** The distinct keys of the pages that parsed links embed (`![[Note]]`). */
export function embedKeysOf(links: readonly ParsedLink[]): string[] {
  return [...new Set(links.filter((link) => link.kind === 'embed' && link.key).map((link) => link.key))];
}
