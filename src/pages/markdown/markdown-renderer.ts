import type { Env, MarkdownIt, RendererRule, StateCore, Token } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { OBSIDIAN_ALLOWED_ATTRIBUTES, OBSIDIAN_ALLOWED_TAGS, obsidianHeadingSyntax, obsidianSyntax, obsidianTransforms, stripComments, type ObsidianEnv } from './obsidian-syntax.js';
import { linkTitle, slugify } from './slug.js';
import { renderTransclusion, type Transclusion } from './transclusion.js';
import { createMarkdownParser, markdownLinkAt, wikilinkOf, type ParsedLink } from './wikilinks.js';
import { FILE_EMBED_SANITIZE, fileEmbedsPlugin, type ResolveFile } from './file-embeds.js';
import { TrustedHtmlSlots } from './trusted-html.js';

export interface ResolvedTarget {
  slug: string;
  title: string;
}

export interface TocEntry {
  level: number;
  /** Plain text: escape it when putting it into HTML. */
  text: string;
  anchor: string;
}

export interface RenderedMarkdown {
  html: string;
  toc: TocEntry[];
}

export type ResolveLink = (link: ParsedLink) => ResolvedTarget | null;

interface RenderEnv extends Env, ObsidianEnv {
  resolve: ResolveLink;
  /** Embedded pages' content, when the caller loaded it (`![[Note]]` then renders inline). */
  transclusion?: Transclusion;
  resolveFile: ResolveFile;
}

export interface RenderOptions {
  transclusion?: Transclusion;
  /** Stored files the text references (attachments), by normalised target; none when absent. */
  resolveFile?: ResolveFile;
}

type Attributes = [name: string, value: string][];

const TOC_LEVELS = { min: 2, max: 4 };
const EXTERNAL_URL = /^(?:[a-z][a-z\d+.-]*:|\/\/)/i;
const EXTERNAL_REL = 'nofollow noopener noreferrer';
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...HEADINGS,
    ...['p', 'a', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 's', 'hr', 'br'],
    ...['table', 'thead', 'tbody', 'tr', 'th', 'td', 'img', 'div', 'span', 'sup', 'sub'],
    ...['details', 'summary', 'kbd', 'dl', 'dt', 'dd'],
    ...OBSIDIAN_ALLOWED_TAGS,
    ...FILE_EMBED_SANITIZE.tags,
  ],
  allowedAttributes: mergeAttributes(OBSIDIAN_ALLOWED_ATTRIBUTES, {
    a: ['href', 'title', 'class', 'rel', 'id'],
    img: ['src', 'alt', 'title', 'width', 'height', ...FILE_EMBED_SANITIZE.attributes.img],
    audio: FILE_EMBED_SANITIZE.attributes.audio,
    video: FILE_EMBED_SANITIZE.attributes.video,
    ...Object.fromEntries(HEADINGS.map((heading) => [heading, ['id']])),
    ...Object.fromEntries(['div', 'span', 'code', 'th', 'td'].map((tag) => [tag, ['class']])),
    // Markdown renders `3. item` as <ol start="3">.
    ol: ['start'],
    details: ['open'],
  }),
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  transformTags: { ...obsidianTransforms(), a: markExternalLink, th: alignmentAsClass, td: alignmentAsClass },
};

function mergeAttributes(extra: Record<string, string[]>, base: Record<string, string[]>): Record<string, string[]> {
  const merged: Record<string, string[]> = { ...base };
  for (const [tag, names] of Object.entries(extra)) merged[tag] = [...new Set([...(merged[tag] ?? []), ...names])];
  return merged;
}

/**
 * Every heading gets an id, de-duplicated in page order: `setup`, `setup-2`, … (a later heading written `Setup 2`
 * then gets `setup-2-2`). In one pass, each name's next number remembered: markdown-it-anchor, used before, tried
 * every number from 2 again for each repeat and looked each heading up from the start of the page, so 20,000 headings
 * named alike took 16 s to render; permalinks, the rest of what it offers, are not used here.
 */
function headingIdsPlugin(md: MarkdownIt): void {
  md.core.ruler.push('heading_ids', (state) => {
    // Kept in the env, which an embedded excerpt's env shares: its headings never take an id the page's have.
    const env = state.env as { headingIds?: { taken: Set<string>; nextNumber: Map<string, number> } };
    const { taken, nextNumber } = (env.headingIds ??= { taken: new Set(), nextNumber: new Map() });
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i].type !== 'heading_open') continue;
      const base = headingAnchor(inlineText(tokens[i + 1]?.children ?? []));
      let id = base;
      if (taken.has(id)) {
        let n = nextNumber.get(base) ?? 2;
        while (taken.has(`${base}-${n}`)) n++;
        id = `${base}-${n}`;
        nextNumber.set(base, n + 1);
      }
      taken.add(id);
      tokens[i].attrSet('id', id);
    }
  });
}

export class MarkdownRenderer {
  private readonly md: MarkdownIt = createMarkdownParser()
    .use(headingIdsPlugin)
    .use(obsidianSyntax)
    .use((md) => md.core.ruler.after('inline', 'embed_cards', placeEmbedCards))
    // Registered last so that it runs first after inline parsing: a file embed is never taken for a page.
    .use(fileEmbedsPlugin);

  constructor() {
    const rules = this.md.renderer.rules;
    rules.wikilink = (tokens, idx, _options, env) => renderWikilink(wikilinkOf(tokens[idx]), env as RenderEnv);
    rules.embed_card = (tokens, idx, _options, env) => renderEmbed(wikilinkOf(tokens[idx]), env as RenderEnv, this);
    rules.link_open = renderLinkOpen;
  }

  /** Renders a page body (frontmatter already removed) to sanitised HTML plus its h2–h4 outline. */
  render(body: string, resolve: ResolveLink, options: RenderOptions = {}): RenderedMarkdown {
    const env: RenderEnv = { resolve, trusted: new TrustedHtmlSlots(), transclusion: options.transclusion, resolveFile: options.resolveFile ?? (() => null) };
    const tokens = this.md.parse(stripComments(body), env);
    const html = this.md.renderer.render(tokens, this.md.options, env);
    return { html: env.trusted!.restore(sanitizeHtml(html, SANITIZE_OPTIONS)), toc: tableOfContents(tokens) };
  }

  /** An embedded excerpt's HTML, unsanitised (the page it lands in is sanitised whole), in an env of its own. */
  renderFragment(markdown: string, env: RenderEnv, docId: string): string {
    // The host's footnotes stay the host's: the excerpt numbers its own.
    const { footnotes: _hostFootnotes, ...shared } = env;
    const inner: RenderEnv = { ...shared, docId };
    return this.md.renderer.render(this.md.parse(stripComments(markdown), inner), this.md.options, inner);
  }
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

let headingParser: MarkdownIt | null = null;

/**
 * The id each heading of a page body gets when it is rendered, by the (0-based) source line the heading starts on:
 * what a link to a section needs when a page repeats a heading (the second "Setup" is `#setup-2`).
 */
export function headingIds(body: string): Map<number, string> {
  headingParser ??= createMarkdownParser()
    .use(obsidianHeadingSyntax)
    .use(headingIdsPlugin)
    // Ids come from headings' text alone: the rest of the page's inline content is left unparsed (most of the work).
    .use((md) => md.core.ruler.at('inline', parseHeadingsInline));
  const ids = new Map<number, string>();
  for (const token of headingParser.parse(body, { resolve: () => null })) {
    if (token.type === 'heading_open' && token.map) ids.set(token.map[0], String(token.attrGet('id')));
  }
  return ids;
}

/** markdown-it's core `inline` rule, for the inline content of headings only. */
function parseHeadingsInline(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'inline' && tokens[i - 1].type === 'heading_open') {
      token.children ??= [];
      state.md.inline.parse(token.content, state.md, state.env, token.children);
    }
  }
}

/** The id a heading gets, before de-duplication (a section link falls back to it when it knows no better). */
export function headingAnchor(text: string): string {
  // Headings made only of symbols or emoji still need an id.
  return slugify(text) || 'section';
}

function inlineText(tokens: Token[]): string {
  return tokens.map(tokenText).join('');
}

function tokenText(token: Token): string {
  // Tags and formulas read as written (`## Setup #linux` is `setup-linux`).
  if (['text', 'code_inline', 'obsidian_tag', 'math_inline', 'math_inline_double'].includes(token.type)) return token.content;
  if (token.type !== 'wikilink') return '';
  const link = wikilinkOf(token);
  return link.label ?? link.target;
}

function tableOfContents(tokens: Token[]): TocEntry[] {
  const toc: TocEntry[] = [];
  tokens.forEach((token, idx) => {
    const level = Number(token.tag.slice(1));
    if (token.type !== 'heading_open' || level < TOC_LEVELS.min || level > TOC_LEVELS.max) return;
    toc.push({ level, text: inlineText(tokens[idx + 1].children ?? []), anchor: String(token.attrGet('id')) });
  });
  return toc;
}

/** A paragraph holding nothing but embeds becomes block-level cards (a <div> may not sit inside a <p>). */
function placeEmbedCards(state: StateCore): void {
  state.tokens.forEach((token, idx) => {
    const children = token.children ?? [];
    const paragraphOpen = state.tokens[idx - 1];
    if (token.type !== 'inline' || paragraphOpen?.type !== 'paragraph_open') return;
    if (!children.some(isEmbed) || !children.every((child) => isEmbed(child) || isBlank(child))) return;
    paragraphOpen.hidden = true;
    state.tokens[idx + 1].hidden = true;
    for (const child of children.filter(isEmbed)) child.type = 'embed_card';
  });
}

function isEmbed(token: Token): boolean {
  return token.type === 'wikilink' && wikilinkOf(token).kind === 'embed';
}

function isBlank(token: Token): boolean {
  return token.type === 'softbreak' || (token.type === 'text' && token.content.trim() === '');
}

function pageLinkAttributes(link: ParsedLink, target: ResolvedTarget | null): Attributes {
  if (!target) {
    const createHref = `/page/new?title=${encodeURIComponent(linkTitle(link.target))}`;
    return [
      ['class', 'wikilink wikilink-missing'],
      ['href', createHref],
      ['title', 'Create this page'],
    ];
  }
  const fragment = !link.heading ? '' : link.heading.startsWith('^') ? `#${encodeURIComponent(link.heading)}` : `#${headingAnchor(link.heading)}`;
  return [
    ['class', 'wikilink'],
    ['href', `/page/${encodeURIComponent(target.slug)}${fragment}`],
  ];
}

function renderAnchor(attributes: Attributes, text: string): string {
  const attrs = attributes.map(([name, value]) => ` ${name}="${escapeHtml(value)}"`).join('');
  return `<a${attrs}>${escapeHtml(text)}</a>`;
}

/** An embed inside running text has no room for a card, so it reads as a plain wikilink. */
function renderWikilink(link: ParsedLink, env: RenderEnv): string {
  return renderAnchor(pageLinkAttributes(link, resolveIn(env, link)), link.label ?? link.target);
}

// A plugin that renders a fragment on its own (an `ad-` admonition block) passes an env without a resolver.
function resolveIn(env: RenderEnv, link: ParsedLink): ResolvedTarget | null {
  return env.resolve ? env.resolve(link) : null;
}

function renderEmbed(link: ParsedLink, env: RenderEnv, renderer: MarkdownRenderer): string {
  const target = resolveIn(env, link);
  const transcluded = target && env.transclusion ? renderTransclusion(link, target, env.transclusion, (markdown, inner, docId) => renderer.renderFragment(markdown, { ...env, transclusion: inner }, docId)) : null;
  return transcluded ?? renderEmbedCard(link, target);
}

function renderEmbedCard(link: ParsedLink, target: ResolvedTarget | null): string {
  const title = link.label ?? target?.title ?? link.target;
  return `<div class="embed-card">${renderAnchor(pageLinkAttributes(link, target), `📄 ${title}`)}</div>\n`;
}

const renderLinkOpen: RendererRule = (tokens, idx, options, env, renderer) => {
  const link = markdownLinkAt(tokens, idx);
  if (link) {
    const target = resolveIn(env as RenderEnv, link);
    for (const [name, value] of pageLinkAttributes(link, target)) tokens[idx].attrSet(name, value);
  }
  return renderer.renderToken(tokens, idx, options);
};

function markExternalLink(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const isExternal = EXTERNAL_URL.test((attribs.href ?? '').trim());
  return { tagName, attribs: isExternal ? { ...attribs, rel: EXTERNAL_REL } : attribs };
}

// Inline styles are not allowed, so table alignment travels as a class.
function alignmentAsClass(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const alignment = /text-align:\s*(left|center|right)/i.exec(attribs.style ?? '')?.[1];
  return { tagName, attribs: alignment ? { class: `align-${alignment.toLowerCase()}` } : {} };
}
