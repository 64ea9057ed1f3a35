import markdownit, { type MarkdownIt, type Token } from 'markdown-it';
import { stripComments } from './obsidian-syntax.js';
import { plainInline, plainText } from './plain-text.js';
import { slugify } from './slug.js';
import { extractLinks, type ParsedLink } from './wikilinks.js';

/**
 * Transclusion: `![[Note]]`, `![[Note#Heading]]` and `![[Note#^block-id]]` show the embedded page, section or block
 * inline, with a link to its source. Embeds nest up to MAX_TRANSCLUSION_DEPTH; a page already being embedded on the
 * way down (a cycle) and anything deeper show as a link card instead.
 */
export const MAX_TRANSCLUSION_DEPTH = 4;
/**
 * What one rendering (or one save's search text) transcludes at most, over all its embeds at every depth: beyond it
 * an embed shows as a link card. Without a bound a small page could multiply its embeds (100 embeds of a page of 100
 * embeds of…) into minutes of work and a response of gigabytes.
 */
export const MAX_EMBEDS_PER_RENDER = 200;
export const MAX_EMBEDDED_CHARS = 1_000_000;

export interface EmbeddedPage {
  /** The page's id, when it came from the database (its files are looked up by it). */
  id?: string;
  slug: string;
  title: string;
  /** The page's Markdown without frontmatter. */
  markdown: string;
}

/** What rendering needs to transclude: the embedded pages (loaded beforehand), and where on the way down it is. */
export interface Transclusion {
  page: (link: ParsedLink) => EmbeddedPage | null;
  /** Slugs of the pages being embedded on the way down, the host page first. */
  chain: readonly string[];
  /**
   * Shared by every level of one rendering: numbers its embeds (so that footnote ids of different excerpts never
   * collide), counts what it has transcluded against the budget, and keeps each excerpt it has cut once.
   */
  counter: EmbedBudget;
}

export interface EmbedBudget {
  next: number;
  chars: number;
  excerpts: Map<string, string | null>;
}

export function startTransclusion(hostSlug: string, page: (link: ParsedLink) => EmbeddedPage | null): Transclusion {
  return { page, chain: [hostSlug], counter: newBudget() };
}

const newBudget = (): EmbedBudget => ({ next: 0, chars: 0, excerpts: new Map() });

/** The excerpt an embed shows, cut once per page and heading in one rendering; null past the budget or when none. */
function budgetedExcerpt(budget: EmbedBudget, page: EmbeddedPage, heading: string | null): string | null {
  if (budget.next >= MAX_EMBEDS_PER_RENDER) return null;
  const key = `${page.slug}\u0000${heading ?? ''}`;
  let excerpt = budget.excerpts.get(key);
  if (excerpt === undefined) {
    excerpt = excerptOf(page.markdown, heading);
    budget.excerpts.set(key, excerpt);
  }
  if (excerpt === null || budget.chars + excerpt.length > MAX_EMBEDDED_CHARS) return null;
  budget.chars += excerpt.length;
  return excerpt;
}

export type RenderFragment = (markdown: string, inner: Transclusion, docId: string) => string;

/**
 * The HTML of an embed (unsanitised: it lands in the page, which is sanitised whole), or null when it shows as a link
 * card: the page is not loaded, the section or block does not exist, a cycle, or too deep.
 */
export function renderTransclusion(link: ParsedLink, target: { slug: string; title: string }, transclusion: Transclusion, render: RenderFragment): string | null {
  if (transclusion.chain.length > MAX_TRANSCLUSION_DEPTH || transclusion.chain.includes(target.slug)) return null;
  const page = transclusion.page(link);
  if (!page) return null;
  const excerpt = budgetedExcerpt(transclusion.counter, page, link.heading);
  if (excerpt === null) return null;
  const inner: Transclusion = { ...transclusion, chain: [...transclusion.chain, target.slug] };
  const docId = `t${transclusion.counter.next++}`;
  const where = link.heading && !link.heading.startsWith('^') ? ` › ${lastSegment(link.heading)}` : '';
  const fragment = !link.heading ? '' : link.heading.startsWith('^') ? `#${encodeURIComponent(link.heading)}` : `#${slugify(lastSegment(link.heading)) || 'section'}`;
  const source = `<a class="wikilink transclusion-link" href="/page/${encodeURIComponent(target.slug)}${fragment}">${escapeText(`${page.title}${where}`)}</a>`;
  return `<div class="transclusion"><div class="transclusion-source">${source}</div><div class="transclusion-content">\n${render(excerpt, inner, docId)}</div></div>\n`;
}

/**
 * The part of a page's Markdown an embed shows: all of it, the section under a heading (the heading included, to the
 * next heading of the same or a higher level), or the block anchored `^id`. Null when there is no such part.
 */
export function excerptOf(markdown: string, heading: string | null): string | null {
  const text = stripComments(markdown);
  if (!heading) return text;
  const lines = text.split('\n');
  const tokens = blockParser().parse(text, {});
  const range = heading.startsWith('^') ? blockRange(tokens, lines, heading.slice(1)) : sectionRange(tokens, lastSegment(heading));
  if (!range) return null;
  const excerpt = lines.slice(range[0], range[1]);
  // A block's range may end on the blank line after it.
  while (heading.startsWith('^') && excerpt.length > 1 && excerpt.at(-1)!.trim() === '') excerpt.pop();
  return dedent(excerpt).join('\n');
}

// A nested list item keeps its indentation in the source; on its own it must not read as a code block.
function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim()).map((line) => /^[ \t]*/.exec(line)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return common ? lines.map((line) => line.slice(Math.min(common, /^[ \t]*/.exec(line)![0].length))) : lines;
}

/** The plain text an embedding page holds through its embeds (for its search vector), depth-limited, cycles cut. */
export function transcludedText(hostSlug: string, markdown: string, transclusion: Pick<Transclusion, 'page'>, resolveSlug: (link: ParsedLink) => string | null): string {
  const parts: string[] = [];
  const budget = newBudget();
  // The words of one excerpt count once, however often it is embedded (distinctWords keeps each word once anyway).
  const seen = new Set<string>();
  const visit = (source: string, chain: string[]) => {
    if (chain.length > MAX_TRANSCLUSION_DEPTH) return;
    for (const link of extractLinks(stripComments(source))) {
      if (link.kind !== 'embed' || budget.next >= MAX_EMBEDS_PER_RENDER) continue;
      const slug = resolveSlug(link);
      if (!slug || chain.includes(slug)) continue;
      const visitKey = `${chain.join('\u0000')}\u0001${slug}\u0000${link.heading ?? ''}`;
      if (seen.has(visitKey)) continue;
      seen.add(visitKey);
      const page = transclusion.page(link);
      const excerpt = page ? budgetedExcerpt(budget, page, link.heading) : null;
      if (excerpt === null) continue;
      budget.next++;
      parts.push(plainText(excerpt));
      visit(excerpt, [...chain, slug]);
    }
  };
  visit(markdown, [hostSlug]);
  return parts.join('\n');
}

/**
 * Each word of the transcluded text once, and none the page's own text has: the embedding page is found by the
 * embedded words, but it does not outrank the page they come from for them (the search evaluation lost nDCG@10 when
 * embedded text counted in full: Dendron's docs embed whole notes).
 */
export function distinctWords(text: string, own: string): string {
  const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu) ?? [];
  const known = new Set(words(own));
  return [...new Set(words(text))].filter((word) => !known.has(word)).join(' ');
}

let shared: MarkdownIt | null = null;

function blockParser(): MarkdownIt {
  shared ??= (() => {
    const md = markdownit({ html: true });
    md.core.ruler.enableOnly(['normalize', 'block']);
    return md;
  })();
  return shared;
}

// `Note#Section#Subsection` names the subsection.
function lastSegment(heading: string): string {
  return heading.split('#').filter((part) => part.trim()).at(-1)?.trim() ?? heading;
}

function sectionRange(tokens: Token[], heading: string): [number, number] | null {
  const wanted = slugify(heading);
  for (let i = 0; i < tokens.length; i++) {
    const open = tokens[i];
    if (open.type !== 'heading_open' || open.level !== 0 || !open.map) continue;
    if (slugify(plainInline(tokens[i + 1].content)) !== wanted) continue;
    const level = Number(open.tag.slice(1));
    let end: number | null = null;
    for (let j = i + 1; j < tokens.length && end === null; j++) {
      const next = tokens[j];
      if (next.type === 'heading_open' && next.level === 0 && Number(next.tag.slice(1)) <= level && next.map) end = next.map[0];
    }
    return [open.map[0], end ?? Number.MAX_SAFE_INTEGER];
  }
  return null;
}

function blockRange(tokens: Token[], lines: string[], id: string): [number, number] | null {
  const marker = new RegExp(`(?:^|\\s)\\^${id.replace(/[^A-Za-z0-9-]/g, '')}\\s*$`);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type !== 'inline' || !token.map || !marker.test(lines[token.map[1] - 1] ?? '')) continue;
    const paragraph = tokens[i - 1];
    // `^id` alone on its line names the block before it (a list, a table, a quote).
    if (/^\s*\^[A-Za-z0-9-]+\s*$/.test(token.content)) {
      const previous = openBefore(tokens, i - 1);
      return previous?.map ? [previous.map[0], previous.map[1]] : null;
    }
    const item = enclosing(tokens, i - 1, 'list_item_open');
    const block = item ?? paragraph;
    return block.map ? [block.map[0], block.map[1]] : null;
  }
  return null;
}

function openBefore(tokens: Token[], idx: number): Token | null {
  const close = tokens[idx - 1];
  if (!close || close.nesting !== -1) return null;
  let depth = 0;
  for (let i = idx - 1; i >= 0; i--) {
    depth += tokens[i].nesting;
    if (depth === 0) return tokens[i];
  }
  return null;
}

function enclosing(tokens: Token[], idx: number, type: string): Token | null {
  const level = tokens[idx].level;
  for (let i = idx - 1; i >= 0; i--) {
    if (tokens[i].nesting === 1 && tokens[i].level === level - 1) return tokens[i].type === type ? tokens[i] : null;
  }
  return null;
}

function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
