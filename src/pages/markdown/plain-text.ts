import type { MarkdownIt, Token } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { obsidianParsing, stripComments } from './obsidian-syntax.js';
import { createMarkdownParser, wikilinkOf } from './wikilinks.js';

/**
 * Markdown as a person reads it, from markdown-it's token stream: no `**`, `[[Page|label]]` read as its label, code
 * without its fences, callouts without their `[!type]` marker, and `%%comments%%` gone. One line per block.
 * Snippets, "why this result", review evidence, entity quotes and MCP passages show this; the source stays underneath
 * (evidence is verified against it).
 */
export function plainText(markdown: string): string {
  const text = stripComments(markdown);
  // Plain paragraphs: a line break inside one reads as a space, as markdown-it's softbreak.
  if (!MARKUP.test(text)) return collapse(text.split(/\n[ \t]*\n/).map((paragraph) => paragraph.replace(/\n/g, ' ')).join('\n'));
  const out: string[] = [];
  walk(parser().parse(text, {}), out);
  return collapse(out.join(''));
}

/** One line of inline Markdown (a heading, a title) as plain text. */
export function plainInline(markdown: string): string {
  const out: string[] = [];
  walk(parser().parseInline(stripComments(markdown), {}), out);
  return collapse(out.join('')).replace(/\n/g, ' ');
}

// Text with none of these characters reads the same as Markdown and as plain text (most chunks of prose do not).
const MARKUP = /[*_`[\]!<>#=~$^|\\&%]|^\s*(?:[-+]|\d+[.)])\s|^ {4}|^\s*>/m;

let shared: MarkdownIt | null = null;

function parser(): MarkdownIt {
  shared ??= createMarkdownParser().use(obsidianParsing);
  return shared;
}

const BLOCK_ENDS = new Set([
  'paragraph_close', 'heading_close', 'list_item_close', 'blockquote_close', 'tr_close', 'callout_close',
  'bullet_list_close', 'ordered_list_close', 'table_close', 'footnote_close', 'dt_close', 'dd_close',
]);

function walk(tokens: Token[], out: string[]): void {
  for (const token of tokens) {
    if (token.hidden && token.type === 'paragraph_open') continue;
    switch (token.type) {
      case 'inline':
        walk(token.children ?? [], out);
        break;
      case 'text':
      case 'code_inline':
      case 'math_inline':
      case 'math_inline_double':
        out.push(token.content);
        break;
      case 'softbreak':
        out.push(' ');
        break;
      case 'hardbreak':
        out.push('\n');
        break;
      case 'wikilink': {
        const link = wikilinkOf(token);
        out.push(link.label ?? (link.heading && !link.heading.startsWith('^') ? `${link.target} › ${link.heading}` : link.target));
        break;
      }
      case 'obsidian_tag':
        out.push(token.content);
        break;
      case 'image':
        walk(token.children ?? [], out);
        break;
      case 'html_inline':
        break;
      case 'html_block':
        out.push(sanitizeHtml(token.content, { allowedTags: [], allowedAttributes: {} }), '\n');
        break;
      case 'fence':
      case 'code_block':
      case 'math_block':
      case 'math_block_eqno':
        out.push(token.content.replace(/\n$/, ''), '\n');
        break;
      case 'callout_open': {
        const title = token.attrGet('data-callout-title');
        if (title) walk(parser().parseInline(String(title).trim(), {}), out), out.push('\n');
        break;
      }
      case 'th_close':
      case 'td_close':
        out.push(' ');
        break;
      case 'hr':
        out.push('\n');
        break;
      default:
        if (BLOCK_ENDS.has(token.type)) out.push('\n');
    }
  }
}

/** Spaces collapsed, lines trimmed, no blank lines. */
function collapse(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
