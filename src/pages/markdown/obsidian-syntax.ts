/// <reference path="./markdown-it-plugins.d.ts" />
// (The reference lets a module that imports this one compile on its own: the worker threads' modules, test/support/cli.ts.)
import katex from 'katex';
import markdownit, { type MarkdownIt, type RendererRule, type StateCore, type StateInline, type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import mark from 'markdown-it-mark';
import callouts from 'markdown-it-obsidian-callouts';
import texmath from 'markdown-it-texmath';
import type sanitizeHtml from 'sanitize-html';
import { parseFrontmatter } from './frontmatter.js';
import type { TrustedHtmlEnv } from './trusted-html.js';

/**
 * Obsidian's Markdown on top of CommonMark: callouts (folding as <details>), ==highlights==, footnotes, task lists and
 * math come from maintained markdown-it plugins; `%%comments%%`, `#tags` and `^block-id` anchors, for which none
 * exists, are here. docs/obsidian.md lists what renders and what degrades.
 */

const COMMENT = '%%';
const BACKTICK = 0x60;
const HASH = 0x23;
const MAX_COMMENT_PASSES = 8;

// ---------------------------------------------------------------------------------------------------------------
// %%comments%%
// ---------------------------------------------------------------------------------------------------------------

// Block structure only: where the fenced and indented code blocks are (a comment marker inside code is literal).
let codeBlockParser: MarkdownIt | null = null;

/**
 * The Markdown without its `%%comments%%` (inline, or across lines and blocks; an unclosed `%%` hides the rest of the
 * page, as in Obsidian). `%%` inside code spans and code blocks is kept. Every line break is kept, so line numbers
 * (heading anchors, chunk positions) stay those of the source. Every reader of page text goes through this: the
 * renderer, the search vector, snippets, extraction, MCP passages. Only the source itself (editor, export) keeps them.
 */
export function stripComments(markdown: string): string {
  if (!markdown.includes(COMMENT)) return markdown;
  let current = markdown;
  // Code ranges are those of the text being scanned: a fence opened inside a comment is no fence once the comment
  // is gone, so scan again until nothing changes.
  for (let pass = 0; pass < MAX_COMMENT_PASSES; pass++) {
    const next = stripPass(current, codeRanges(current));
    if (next === current) return next;
    current = next;
  }
  // A pathological page: err on the side of hiding.
  return current.replace(/%%[\s\S]*?(?:%%|$)/g, (comment) => comment.replace(/[^\n]/g, ''));
}

/** A page's whole source (frontmatter kept as written) without the comments of its Markdown. */
export function sourceWithoutComments(source: string): string {
  if (!source.includes(COMMENT)) return source;
  let body = source;
  try {
    body = parseFrontmatter(source).body;
  } catch {
    // A page saved before its frontmatter became invalid: all of it is read as Markdown.
  }
  const head = source.endsWith(body) ? source.slice(0, source.length - body.length) : '';
  return head + stripComments(source.slice(head.length));
}

/** Character ranges [start, end) of code blocks, from markdown-it's block parse. */
function codeRanges(markdown: string): [number, number][] {
  codeBlockParser ??= (() => {
    const md = markdownit({ html: true });
    md.core.ruler.enableOnly(['normalize', 'block']);
    return md;
  })();
  const lineStarts = [0];
  for (let i = markdown.indexOf('\n'); i >= 0; i = markdown.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const startOf = (line: number) => (line < lineStarts.length ? lineStarts[line] : markdown.length);
  const ranges: [number, number][] = [];
  for (const token of codeBlockParser.parse(markdown, {})) {
    if ((token.type === 'fence' || token.type === 'code_block') && token.map) ranges.push([startOf(token.map[0]), startOf(token.map[1])]);
  }
  return ranges;
}

function stripPass(src: string, code: [number, number][]): string {
  let out = '';
  let pos = 0;
  let block = 0;
  while (pos < src.length) {
    while (block < code.length && code[block][1] <= pos) block++;
    if (block < code.length && code[block][0] <= pos) {
      out += src.slice(pos, code[block][1]);
      pos = code[block][1];
      continue;
    }
    const code0 = src.charCodeAt(pos);
    if (code0 === 0x5c /* \ */) {
      out += src.slice(pos, pos + 2);
      pos += 2;
    } else if (code0 === BACKTICK) {
      const end = codeSpanEnd(src, pos, block < code.length ? code[block][0] : src.length);
      out += src.slice(pos, end);
      pos = end;
    } else if (src.startsWith(COMMENT, pos)) {
      const close = src.indexOf(COMMENT, pos + 2);
      const end = close < 0 ? src.length : close + 2;
      out += lineBreaksOf(src.slice(pos, end));
      pos = end;
    } else {
      out += src[pos];
      pos++;
    }
  }
  return out;
}

/** Where a code span opened at `pos` ends (after its closing backticks), or just after the opening run when it is not closed in its paragraph. */
function codeSpanEnd(src: string, pos: number, limit: number): number {
  let run = pos;
  while (src.charCodeAt(run) === BACKTICK) run++;
  const length = run - pos;
  const paragraphEnd = /\n[ \t]*(?:\n|$)/.exec(src.slice(run, limit));
  const end = paragraphEnd ? run + paragraphEnd.index : limit;
  for (let i = run; i < end; i++) {
    if (src.charCodeAt(i) !== BACKTICK) continue;
    let close = i;
    while (src.charCodeAt(close) === BACKTICK) close++;
    if (close - i === length) return close;
    i = close;
  }
  return run;
}

function lineBreaksOf(text: string): string {
  return text.replace(/[^\n]/g, '');
}

// ---------------------------------------------------------------------------------------------------------------
// The plugins
// ---------------------------------------------------------------------------------------------------------------

/** What the renderer keeps in markdown-it's env for this syntax: KaTeX's output waits in its trusted slots. */
export type ObsidianEnv = TrustedHtmlEnv;

// Math is written as MathML: browsers lay it out natively, without the inline styles KaTeX's HTML output needs
// (the Content-Security-Policy allows none). trust: false keeps \href, \htmlClass and the like out.
const KATEX_OPTIONS: katex.KatexOptions = { output: 'mathml', throwOnError: false, trust: false, strict: 'ignore', maxSize: 20, maxExpand: 200 };

// A tag's name: letters, digits, `_`, `-` and `/`, with at least one that is not a digit (`#123` is no tag).
const TAG_NAME = String.raw`[\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*`;
const TAG = new RegExp(`^#(${TAG_NAME})`, 'u');
/** Where TAG could match: a superset of the tags a text holds (the tag rule also asks what precedes the `#`). */
const MAYBE_TAG = new RegExp(`#${TAG_NAME}`, 'u');
const BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/;
const ONLY_BLOCK_ID = /^\s*\^([A-Za-z0-9-]+)\s*$/;

/** Obsidian's syntax for rendering: the plugins, with renderer rules that keep the output sanitisable. */
export function obsidianSyntax(md: MarkdownIt): void {
  md.use(mark)
    .use(footnote)
    .use(taskListPlugin)
    .use(texmath, { engine: katex, delimiters: 'dollars', katexOptions: KATEX_OPTIONS })
    .use(callouts)
    .use(tagPlugin)
    .use(blockIdPlugin);
  // texmath finds the formulas; KaTeX renders them here, so that they land in plain elements (texmath's own
  // templates use <eq> and <eqn>) and, through the env's slots, past the sanitiser untouched.
  const renderMath = (display: boolean): RendererRule => (tokens, idx, _options, env) => {
    const math = renderFormula(tokens[idx].content, display);
    const html = display ? `<div class="math math-display">${math}</div>\n` : `<span class="math math-inline">${math}</span>`;
    const slots = (env as ObsidianEnv | undefined)?.trusted;
    return slots ? slots.placeholder(html) : escapeText(tokens[idx].content);
  };
  md.renderer.rules.math_inline = renderMath(false);
  md.renderer.rules.math_inline_double = renderMath(true);
  md.renderer.rules.math_block = renderMath(true);
  md.renderer.rules.math_block_eqno = renderMath(true);
  md.renderer.rules.callout_open = calloutOpenRule(md);
}

/**
 * One formula as MathML. KaTeX colours a formula it cannot read with an inline style, which the CSP would refuse: a
 * class does it. throwOnError: false covers KaTeX's parse errors only; its recursive parser runs out of stack on a
 * formula nested a few thousand groups deep (`{{{…`, `\sqrt{\sqrt{…`), and that RangeError would fail the whole page,
 * its editor included. Any error shows the formula's source in the same error span instead.
 */
function renderFormula(tex: string, display: boolean): string {
  try {
    return katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display }).replace(/ style="color:[^"]*"/g, '');
  } catch {
    return `<span class="katex-error" title="This formula could not be shown: it nests too deeply.">${escapeText(tex)}</span>`;
  }
}

/** The plugins that change what a page's text is, for the plain-text reading of it (no renderer rules needed). */
export function obsidianParsing(md: MarkdownIt): void {
  md.use(mark)
    .use(footnote)
    .use(taskListPlugin)
    .use(texmath, { engine: { renderToString: (tex: string) => tex }, delimiters: 'dollars' })
    .use(callouts)
    .use(tagPlugin)
    .use(blockIdPlugin);
}

/**
 * The inline syntax a heading's text can hold (highlights, footnote references, math, tags): for the parser that
 * reads headings alone (`headingIds`), whose other blocks keep their inline content unparsed.
 */
export function obsidianHeadingSyntax(md: MarkdownIt): void {
  md.use(mark)
    .use(footnote)
    .use(texmath, { engine: { renderToString: (tex: string) => tex }, delimiters: 'dollars' })
    .use(tagPlugin);
}

// The plugin's own rule renders the title without the page's env (links could not resolve) and an SVG icon per
// type; this one keeps its structure, with the type as a data attribute for the stylesheet's icon.
function calloutOpenRule(md: MarkdownIt): RendererRule {
  return (tokens, idx, _options, env, self) => {
    const token = tokens[idx];
    const type = String(token.attrGet('data-callout') ?? 'note');
    const fold = String(token.attrGet('data-callout-fold') ?? '');
    const rawTitle = token.attrGet('data-callout-title');
    // The title is parsed on its own: with the page's env, core rules such as the footnotes' would run again.
    const { footnotes: _footnotes, ...titleEnv } = (env ?? {}) as Record<string, unknown>;
    const title = rawTitle ? self.render(md.parseInline(String(rawTitle).trim(), titleEnv), md.options, titleEnv) : escapeText(titleCase(type));
    const typeAttr = escapeText(type);
    const inner = `<span class="callout-title-inner">${title}</span>`;
    if (fold === '+' || fold === '-') {
      return `<details class="callout" data-callout="${typeAttr}"${fold === '+' ? ' open' : ''}>\n<summary class="callout-title">${inner}</summary>\n<div class="callout-content">`;
    }
    return `<div class="callout" data-callout="${typeAttr}">\n<div class="callout-title">${inner}</div>\n<div class="callout-content">`;
  };
}

function titleCase(type: string): string {
  return type.split(/[\s-]+/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
}

function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

// ---------------------------------------------------------------------------------------------------------------
// #tags
// ---------------------------------------------------------------------------------------------------------------

function tagPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('text', 'obsidian_tag', tagRule);
  md.renderer.rules.obsidian_tag = (tokens, idx) => {
    const tag = String(tokens[idx].meta?.tag);
    return `<a class="tag" href="/tags/${encodeURIComponent(tag)}">#${escapeText(tag)}</a>`;
  };
}

function tagRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== HASH) return false;
  // A tag starts a word: `issue#12` and `&#35;` are not tags.
  if (pos > 0 && !/[\s("'>]/.test(src[pos - 1])) return false;
  const match = TAG.exec(src.slice(pos, state.posMax));
  if (!match) return false;
  if (!silent) {
    const token = state.push('obsidian_tag', '', 0);
    token.meta = { tag: match[1] };
    token.content = match[0];
  }
  state.pos += match[0].length;
  return true;
}

let tagParser: MarkdownIt | null = null;

/** The `#tags` written in a page's text (comments already removed), as written, in order, without duplicates. */
export function inlineTags(markdown: string): string[] {
  // Parsing takes 170 ms for a megabyte of prose, on the main thread of a save: only a text with something that could
  // be a tag (TAG's pattern anywhere, whatever precedes it) is parsed. Headings (`## Part`) and `#123` are not.
  if (!MAYBE_TAG.test(markdown)) return [];
  tagParser ??= markdownit({ html: true }).use(tagPlugin);
  const tags = new Set<string>();
  for (const block of tagParser.parse(markdown, {})) {
    for (const child of block.children ?? []) if (child.type === 'obsidian_tag') tags.add(String(child.meta?.tag));
  }
  return [...tags];
}

// ---------------------------------------------------------------------------------------------------------------
// ^block-id
// ---------------------------------------------------------------------------------------------------------------

/** `text ^id` at the end of a paragraph or list item, or `^id` alone on the line after a block, anchors that block as `#^id`. */
function blockIdPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'obsidian_block_id', (state: StateCore) => {
    const tokens = state.tokens;
    for (let idx = 0; idx < tokens.length; idx++) {
      const inline = tokens[idx];
      const open = tokens[idx - 1];
      if (inline.type !== 'inline' || !open || open.type !== 'paragraph_open') continue;
      const children = inline.children ?? [];
      const last = children.at(-1);
      if (!last || last.type !== 'text') continue;
      const alone = children.length === 1 ? ONLY_BLOCK_ID.exec(last.content) : null;
      if (alone) {
        const previous = blockOpenBefore(tokens, idx - 1);
        if (previous) {
          previous.attrSet('id', `^${alone[1]}`);
          open.hidden = true;
          tokens[idx + 1].hidden = true;
          inline.children = [];
          continue;
        }
      }
      const match = BLOCK_ID.exec(last.content);
      if (!match) continue;
      last.content = last.content.slice(0, match.index);
      const target = open.hidden ? enclosingListItem(tokens, idx - 1) ?? open : open;
      target.attrSet('id', `^${match[1]}`);
    }
  });
}

/** The opening token of the block that ends just before `idx` at the same level (a list, a table, a quote), if any. */
function blockOpenBefore(tokens: Token[], idx: number): Token | null {
  const close = tokens[idx - 1];
  if (!close || close.nesting !== -1 || close.level !== tokens[idx].level) return null;
  let depth = 0;
  for (let i = idx - 1; i >= 0; i--) {
    depth += tokens[i].nesting;
    if (depth === 0) return tokens[i];
  }
  return null;
}

function enclosingListItem(tokens: Token[], idx: number): Token | null {
  const level = tokens[idx].level;
  for (let i = idx - 1; i >= 0; i--) {
    if (tokens[i].level < level && tokens[i].nesting === 1) return tokens[i].type === 'list_item_open' ? tokens[i] : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Sanitising what these plugins produce
// ---------------------------------------------------------------------------------------------------------------

/** Tags and attributes the Obsidian syntax adds to the renderer's sanitize-html allow-list. */
export const OBSIDIAN_ALLOWED_TAGS = ['mark', 'input', 'section', 'summary', 'details'];

export const OBSIDIAN_ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  // Task list checkboxes: shown, never submitted (disabled).
  input: ['type', 'checked', 'disabled', 'class'],
  details: ['open', 'class', 'data-callout'],
  div: ['class', 'data-callout'],
  summary: ['class'],
  section: ['class'],
  li: ['id', 'class'],
  p: ['id'],
  ul: ['id', 'class'],
  ol: ['id', 'class'],
  table: ['id'],
  blockquote: ['id'],
  hr: ['class'],
  sup: ['class'],
  a: ['id'],
};

const BLOCK_ANCHOR = /^\^[A-Za-z0-9-]+$/;
const FOOTNOTE_ID = /^fn(?:ref)?(?:-[A-Za-z0-9_-]+-)?\d+(?::\d+)?$/;

/** Only a block id (`^id`) or a footnote's own id may stand as an id outside headings; only checkboxes may be inputs. */
export function obsidianTransforms(): Record<string, sanitizeHtml.Transformer> {
  const keepAnchorIds = (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
    const { id, ...rest } = attribs;
    return { tagName, attribs: id !== undefined && (BLOCK_ANCHOR.test(id) || FOOTNOTE_ID.test(id)) ? { ...rest, id } : rest };
  };
  const checkbox = (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag =>
    attribs.type === 'checkbox'
      ? { tagName, attribs: { type: 'checkbox', disabled: 'disabled', ...(attribs.checked !== undefined ? { checked: 'checked' } : {}), class: 'task-list-item-checkbox' } }
      : { tagName: 'span', attribs: {} };
  return Object.fromEntries([
    ...['p', 'li', 'ul', 'ol', 'table', 'blockquote'].map((tag) => [tag, keepAnchorIds]),
    ['input', checkbox],
  ]);
}

/**
 * Task lists: a list item whose text starts `[ ] ` or `[x] ` shows a disabled checkbox (GitHub's and Obsidian's
 * syntax). The same tokens and classes as @mdit/plugin-tasklist, used before, which looked for each item's list by
 * walking back over every item before it: a list of 20,000 tasks took 4 s to render. Here one pass keeps the open
 * lists on a stack.
 */
function taskListPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'task_list', (state) => {
    const tokens = state.tokens;
    const env = state.env as { tasklistId?: number };
    env.tasklistId ||= 0;
    const openLists: Token[] = [];
    for (let m = 0; m < tokens.length; m++) {
      const token = tokens[m];
      if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') openLists.push(token);
      else if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') openLists.pop();
      if (m < 2 || token.type !== 'inline' || tokens[m - 1].type !== 'paragraph_open' || tokens[m - 2].type !== 'list_item_open') continue;
      const checked = taskMarker(token.content);
      if (checked === null || !token.children?.[0]) continue;
      token.children[0].content = token.children[0].content.slice(3);
      const checkbox = new state.Token('checkbox_input', 'input', 0);
      checkbox.attrs = [['type', 'checkbox'], ['class', 'task-list-item-checkbox'], ['id', `task-item-${env.tasklistId++}`]];
      if (checked) checkbox.attrs.push(['checked', 'checked']);
      checkbox.attrs.push(['disabled', 'disabled']);
      token.children.unshift(checkbox);
      tokens[m - 2].attrSet('class', 'task-list-item');
      openLists.at(-1)?.attrSet('class', 'task-list-container');
    }
    return true;
  });
}

/** `[ ] ` → false, `[x] ` or `[X] ` → true (a space or a no-break space after it), anything else → null. */
function taskMarker(content: string): boolean | null {
  if (content.length < 4 || content.charCodeAt(0) !== 0x5b || content.charCodeAt(2) !== 0x5d) return null;
  const after = content.charCodeAt(3);
  if (after !== 0x20 && after !== 0xa0) return null;
  const mark = content.charCodeAt(1);
  if (mark === 0x78 || mark === 0x58) return true;
  return mark === 0x20 || mark === 0xa0 ? false : null;
}
