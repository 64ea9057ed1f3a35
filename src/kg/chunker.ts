import { createHash } from 'node:crypto';
import { MARKUP_BOUNDS } from '../common/markup-patterns.js';

/**
 * Heading-aware chunking of a page's Markdown body (frontmatter already removed), for extraction and vector search.
 *
 * - Every chunk carries its heading path (`Setup › Linux`); sections are chunked on their own, so an edit in one
 *   section never changes another section's chunks.
 * - Fenced code, tables, lists and block quotes are kept whole (up to `hardMaxTokens`, beyond which they are split
 *   at line or item boundaries, the fence or table header repeated); long paragraphs are split at sentence ends.
 * - Inside a section, chunk boundaries are content-defined: a boundary follows a block whose first words hash to a
 *   chosen residue, and size only forces one when a chunk would pass `maxTokens`. Boundaries therefore depend on
 *   the text around them, not on its position, so editing one paragraph changes its own chunk (and, through the
 *   overlap, at most the next one) instead of shifting every later chunk of the section.
 * - Consecutive chunks of one section share a short overlap: the next one starts with the last sentence(s) of the
 *   previous one. Overlap never crosses a heading.
 * - A tiny section (a heading with a line under it) is merged forward into the next section's first chunk, with its
 *   heading kept as a line of text; the merged chunk's heading path is what both have in common.
 * - The content hash covers heading path and text, not the position: a chunk keeps its hash when text elsewhere in
 *   the page changes, which is what makes re-extraction incremental.
 */

export interface ChunkerOptions {
  /** A chunk holds at most about this many estimated tokens (unless one block alone is bigger). */
  maxTokens: number;
  /** Overlap carried into the next chunk of the same section. */
  overlapTokens: number;
  /** Sections smaller than this are merged into the next section's first chunk. */
  minSectionTokens: number;
  /** Runs of blocks smaller than this are joined with their neighbour instead of standing alone. */
  minChunkTokens: number;
  /** On average one block in this many ends a chunk (content-defined boundaries). */
  boundaryEvery: number;
  /** A code block, table or list bigger than this is split (at lines or items) rather than kept whole. */
  hardMaxTokens: number;
}

export const DEFAULT_CHUNKER_OPTIONS: ChunkerOptions = {
  maxTokens: 512,
  overlapTokens: 48,
  minSectionTokens: 48,
  minChunkTokens: 128,
  boundaryEvery: 6,
  hardMaxTokens: 1024,
};

export interface Chunk {
  position: number;
  headingPath: string[];
  text: string;
  tokenEstimate: number;
  contentHash: string;
  /**
   * The source line (0-based, of the Markdown given) of the heading the chunk sits under, the last of its heading
   * path; null at the top of the page. Not part of the content hash: it tells where the section is, for links.
   */
  headingLine: number | null;
}

/** The separator used to show a heading path. */
export const HEADING_PATH_SEPARATOR = ' › ';

/** About 4 characters per token for English text (runs of whitespace count once). */
export function estimateTokens(text: string): number {
  // ceil(text.replace(/\s+/g, ' ').trim().length / 4), counted without building that string: chunking asks this of
  // every growing candidate chunk. Chunk boundaries, and so content hashes, depend on it: it must not change.
  let length = 0;
  let gap = false;
  for (let i = 0; i < text.length; i++) {
    if (isWhitespace(text.charCodeAt(i))) {
      if (length > 0) gap = true;
    } else {
      length += gap ? 2 : 1;
      gap = false;
    }
  }
  return Math.ceil(length / 4);
}

/** What `\s` matches in a JavaScript regular expression (and what `trim()` removes), one UTF-16 code unit. */
function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f ||
    c === 0x3000 || c === 0xfeff
  );
}

/** The hash that identifies a chunk's content: its heading path and its text, never its position. */
export function chunkHash(headingPath: readonly string[], text: string): string {
  return createHash('sha256').update(headingPath.join('\u001f')).update('\u0000').update(text).digest('hex');
}

export function chunkMarkdown(markdown: string, overrides: Partial<ChunkerOptions> = {}): Chunk[] {
  const options = { ...DEFAULT_CHUNKER_OPTIONS, ...overrides };
  const sections = parseSections(markdown);
  const drafts: Draft[][] = sections.map((section) => chunkSection(section, options));
  return mergeTinySections(sections, drafts, options).map((draft, position) => {
    const text = draft.text;
    const headingLine = draft.path.length > 0 ? draft.parts[0].headings[draft.path.length - 1].line : null;
    return { position, headingPath: draft.path, text, tokenEstimate: estimateTokens(text), contentHash: chunkHash(draft.path, text), headingLine };
  });
}

// ─── Parsing: sections of blocks ──────────────────────────────────────────────────────────────────────────────────

type BlockKind = 'paragraph' | 'quote' | 'html' | 'code' | 'table' | 'list';

interface Block {
  kind: BlockKind;
  text: string;
}

interface Heading {
  level: number;
  title: string;
  /** Where it starts in the source (0-based line). */
  line: number;
}

interface Section {
  /** The enclosing headings, outermost first (the last is this section's own). */
  headings: Heading[];
  blocks: Block[];
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const ATX_OPEN = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
/**
 * A run of more spaces and tabs than any layout needs inside a line is read as one space (Markdown shows one): a
 * run of a megabyte would otherwise count as a single token and make a chunk of a megabyte, which the extractors
 * then read in one piece. Indentation (at the start of a line) is kept.
 */
const LONG_BLANK_RUN = /(?<=\S)[ \t]{65,}/g;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const QUOTE = /^ {0,3}>/;
const HTML_START = /^ {0,3}<(?:[A-Za-z][A-Za-z0-9-]*(?:\s|\/?>|$)|\/[A-Za-z]|!--)/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const INDENTED = /^(?: {2,}|\t)/;
/**
 * A link reference definition on one line (`[label]: destination 'Title'`, CommonMark 4.7): it renders as nothing.
 * Foam writes a block of them under every page, one per link; kept, they would read as one long "sentence" naming
 * every linked page, and so as a mention of each of them beside all the others. A footnote (`[^1]: …`) is text.
 */
const LINK_DEFINITION = /^ {0,3}\[(?!\^)(?:[^\]\\\n]|\\.){1,999}\]:[ \t]*(?:<[^<>\n]*>|\S+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$/;

function parseSections(markdown: string): Section[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n').map((line) => withoutTrailingBlanks(line).replace(LONG_BLANK_RUN, ' '));
  const sections: Section[] = [{ headings: [], blocks: [] }];
  let stack: Heading[] = [];
  const current = () => sections[sections.length - 1];
  const startSection = (level: number, rawTitle: string, line: number) => {
    stack = stack.filter((h) => h.level < level);
    stack.push({ level, title: headingTitle(rawTitle), line });
    sections.push({ headings: [...stack], blocks: [] });
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[2][0] === '`' && fence[3].includes('`'))) {
      const end = closingFence(lines, i, fence[2]);
      current().blocks.push({ kind: 'code', text: lines.slice(i, end + 1).join('\n') });
      i = end + 1;
      continue;
    }
    const atx = atxHeading(line);
    if (atx) {
      startSection(atx.level, atx.title, i);
      i++;
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      i++;
      continue;
    }
    if (isTableStart(lines, i)) {
      let end = i + 2;
      while (end < lines.length && lines[end].trim() !== '' && lines[end].includes('|')) end++;
      current().blocks.push({ kind: 'table', text: lines.slice(i, end).join('\n') });
      i = end;
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const end = listEnd(lines, i);
      current().blocks.push({ kind: 'list', text: trimBlankEdges(lines.slice(i, end)).join('\n') });
      i = end;
      continue;
    }
    if (QUOTE.test(line)) {
      let end = i + 1;
      while (end < lines.length && lines[end].trim() !== '' && !startsOtherBlock(lines, end, true)) end++;
      current().blocks.push({ kind: 'quote', text: lines.slice(i, end).join('\n') });
      i = end;
      continue;
    }
    if (HTML_START.test(line)) {
      let end = i + 1;
      while (end < lines.length && lines[end].trim() !== '') end++;
      current().blocks.push({ kind: 'html', text: lines.slice(i, end).join('\n') });
      i = end;
      continue;
    }
    // Link reference definitions open a paragraph or stand alone (they cannot interrupt one): not text, left out.
    if (LINK_DEFINITION.test(line)) {
      i++;
      continue;
    }
    // A paragraph: until a blank line or the start of another block; an underline makes it a (setext) heading.
    let end = i + 1;
    let setextLevel = 0;
    while (end < lines.length && lines[end].trim() !== '') {
      const underline = SETEXT_UNDERLINE.exec(lines[end]);
      if (underline) {
        setextLevel = underline[1][0] === '=' ? 1 : 2;
        break;
      }
      if (startsOtherBlock(lines, end, false)) break;
      end++;
    }
    if (setextLevel > 0) {
      startSection(setextLevel, lines.slice(i, end).map((l) => l.trim()).join(' '), i);
      i = end + 1;
      continue;
    }
    current().blocks.push({ kind: 'paragraph', text: lines.slice(i, end).map((l) => l.trim()).join('\n') });
    i = end;
  }
  // Headings without text stay (their words may matter: they are merged into the next section); an empty start goes.
  return sections.filter((section) => section.blocks.length > 0 || section.headings.length > 0);
}

/**
 * An ATX heading (`## Title ##`): its level and its text without the closing hashes. Read by hand, not by one
 * pattern: a pattern with a lazy title before optional closing hashes backtracks over every space of a long line
 * (seconds for a heading line of 100,000 spaces), and any page may hold one.
 */
function atxHeading(line: string): { level: number; title: string } | null {
  const open = ATX_OPEN.exec(line);
  if (!open) return null;
  let end = line.length;
  while (end > open[0].length && isBlank(line.charCodeAt(end - 1))) end--;
  let hashes = end;
  while (hashes > open[0].length && line.charCodeAt(hashes - 1) === 35) hashes--;
  // Closing hashes count only after a space (or when they are all there is).
  if (hashes < end && (hashes === open[0].length || isBlank(line.charCodeAt(hashes - 1)))) end = hashes;
  return { level: open[1].length, title: line.slice(open[0].length, end).trim() };
}

/** The line without trailing spaces and tabs (by hand: `/[ \t]+$/` is quadratic on a long run of inner spaces). */
function withoutTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && isBlank(line.charCodeAt(end - 1))) end--;
  return end === line.length ? line : line.slice(0, end);
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

function closingFence(lines: string[], open: number, marker: string): number {
  const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
  for (let j = open + 1; j < lines.length; j++) if (close.test(lines[j])) return j;
  // An unclosed fence runs to the end of the document (as CommonMark reads it).
  return lines.length - 1;
}

/** A header row (a pipe outside [[wikilinks]]) over a delimiter row with a pipe, as GFM tables need. */
function isTableStart(lines: string[], i: number): boolean {
  if (i + 1 >= lines.length || !lines[i + 1].includes('|') || !TABLE_DELIMITER.test(lines[i + 1])) return false;
  return lines[i].replace(/\[\[[^\]]*\]\]/g, '').includes('|');
}

/** A list runs over its items, their indented continuations and lazy lines, and blank lines between items. */
function listEnd(lines: string[], start: number): number {
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end];
    if (line.trim() === '') {
      let next = end + 1;
      while (next < lines.length && lines[next].trim() === '') next++;
      if (next < lines.length && (LIST_ITEM.test(lines[next]) || INDENTED.test(lines[next]))) {
        end = next;
        continue;
      }
      return end;
    }
    if (!INDENTED.test(line) && (atxHeading(line) !== null || FENCE_OPEN.test(line) || THEMATIC_BREAK.test(line) || isTableStart(lines, end))) return end;
    end++;
  }
  return end;
}

function startsOtherBlock(lines: string[], i: number, inQuote: boolean): boolean {
  const line = lines[i];
  if (atxHeading(line) !== null || FENCE_OPEN.test(line) || THEMATIC_BREAK.test(line) || isTableStart(lines, i)) return true;
  if (!inQuote && QUOTE.test(line)) return true;
  // A list item interrupts a paragraph (a bullet, or an ordered list starting at 1, as CommonMark has it).
  const item = LIST_ITEM.exec(line);
  return item !== null && (!/^\d/.test(item[2]) || /^1[.)]$/.test(item[2])) && line.slice(item[0].length).trim() !== '';
}

function trimBlankEdges(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') end--;
  return lines.slice(0, end);
}

// A heading's links, read a bounded distance past their opening mark (src/common/markup-patterns.ts).
const HEADING_WIKILINK = new RegExp(String.raw`!?\[\[([^\]|#]{0,${MARKUP_BOUNDS.label}})(?:#[^\]|]{0,${MARKUP_BOUNDS.label}})?(?:\|([^\]]{0,${MARKUP_BOUNDS.label}}))?\]\]`, 'g');
const HEADING_LINK = new RegExp(String.raw`!?\[([^\]]{0,${MARKUP_BOUNDS.label}})\]\([^)]{0,${MARKUP_BOUNDS.destination}}\)`, 'g');

/** A heading as plain words: links and wikilinks become their labels, emphasis and code marks go. */
function headingTitle(raw: string): string {
  return raw
    .replace(HEADING_WIKILINK, (_m, target: string, label?: string) => (label ?? target).trim())
    .replace(HEADING_LINK, '$1')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// ─── Units: what packing works with ─────────────────────────────────────────────────────────────────────────────

interface Unit {
  text: string;
  tokens: number;
  /** How the unit joins the one before it in a chunk: a new block, or the next sentence of the same paragraph. */
  glue: '\n\n' | ' ';
  /** Prose can lend its last sentence to the next chunk as overlap; code, tables and lists cannot. */
  prose: boolean;
  /** Whether a chunk may end after this unit (content-defined; depends only on the unit's opening words). */
  boundary: boolean;
  /** Where an over-sized segment is cut first (lowest first); also from the opening words. */
  rank: number;
}

function unitsOf(blocks: Block[], options: ChunkerOptions): Unit[] {
  const units: Unit[] = [];
  const proseLimit = Math.max(16, options.maxTokens - options.overlapTokens);
  for (const block of blocks) {
    const prose = block.kind === 'paragraph' || block.kind === 'quote' || block.kind === 'html';
    const tokens = estimateTokens(block.text);
    let pieces: { text: string; glue: '\n\n' | ' ' }[];
    if (prose) {
      pieces = tokens > proseLimit ? splitProse(block.text, proseLimit).map((text, k) => ({ text, glue: k === 0 ? '\n\n' : ' ' })) : [{ text: block.text, glue: '\n\n' }];
    } else {
      pieces = tokens > options.hardMaxTokens ? splitAtomic(block, options.maxTokens).map((text) => ({ text, glue: '\n\n' })) : [{ text: block.text, glue: '\n\n' }];
    }
    for (const piece of pieces) {
      const anchor = openingWords(piece.text);
      units.push({ text: piece.text, tokens: estimateTokens(piece.text), glue: piece.glue, prose, boundary: fnv1a(anchor) % options.boundaryEvery === 0, rank: fnv1a(`rank:${anchor}`) });
    }
  }
  return units;
}

/** A unit's opening words (of its first sentence): edits to the rest of a paragraph leave them, and so the boundaries, alone. */
function openingWords(text: string): string {
  const firstSentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
  return firstSentence.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 8).join(' ') ?? text.slice(0, 40);
}

function isBoundary(text: string, every: number): boolean {
  return fnv1a(openingWords(text)) % every === 0;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const MIN_PIECE_TOKENS = 64;
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });
/**
 * Text is segmented a window at a time: in Node 20 every segment Intl.Segmenter hands out holds its own copy of the
 * whole input, so a 586 KB paragraph of 25,000 sentences took more than 4 GB (the worker died, and a dry run of
 * extraction took the web process with it). Each window's sentences but its last are complete; the last starts the
 * next window.
 */
const SEGMENT_WINDOW = 2048;

export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SEGMENT_WINDOW);
    // A window ends at a space, so that no word is cut in two (a sentence longer than a window is split there).
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space + 1;
      // Never between the two halves of a character outside the BMP (an emoji).
      else if (/[\uD800-\uDBFF]/.test(text[end - 1])) end--;
    }
    const segments = [...SENTENCES.segment(text.slice(start, end))].map((s) => s.segment);
    const complete = end === text.length || segments.length === 1 ? segments : segments.slice(0, -1);
    for (const segment of complete) {
      const sentence = segment.trim();
      if (sentence) out.push(sentence);
    }
    start += complete.reduce((n, segment) => n + segment.length, 0);
  }
  return out;
}

/** Splits a long paragraph into pieces of whole sentences (a single over-long sentence at word boundaries). */
function splitProse(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    if (current) pieces.push(current);
    current = '';
  };
  for (const sentence of sentencesOf(text.replace(/\n/g, ' '))) {
    for (const part of estimateTokens(sentence) > limit ? splitWords(sentence, limit) : [sentence]) {
      const candidate = current ? `${current} ${part}` : part;
      if (current && estimateTokens(candidate) > limit) {
        flush();
        current = part;
      } else {
        current = candidate;
      }
    }
    // A piece may end after any sentence whose opening words say so (content-defined, like chunk boundaries), so an
    // edited sentence changes its own piece rather than shifting every later one.
    if (estimateTokens(current) >= MIN_PIECE_TOKENS && isBoundary(sentence, 2)) flush();
  }
  flush();
  return pieces;
}

function splitWords(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let current = '';
  // A "word" longer than a chunk (a run of a hundred thousand `[`) is cut: no chunk grows past a few thousand
  // characters, so what reads a chunk (the extractors) never meets one of a megabyte.
  const words = text.split(/\s+/).flatMap((word) => (word.length > limit * 4 ? (word.match(new RegExp(`[^]{1,${limit * 4}}`, 'gu')) ?? []) : [word]));
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (current && estimateTokens(candidate) > limit) {
      pieces.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

/** An over-sized code block, table or list, split at line (or item) boundaries; each piece stays valid Markdown. */
function splitAtomic(block: Block, limit: number): string[] {
  const lines = block.text.split('\n');
  let head: string[] = [];
  let tail: string[] = [];
  let body = lines;
  if (block.kind === 'code') {
    const last = lines.length > 1 && FENCE_OPEN.test(lines[lines.length - 1]) ? lines.length - 1 : lines.length;
    head = [lines[0]];
    tail = [lines[0].trim().replace(/^(`{3,}|~{3,}).*$/, '$1')];
    body = lines.slice(1, last);
  } else if (block.kind === 'table') {
    head = lines.slice(0, 2);
    body = lines.slice(2);
  }
  // Lists break between top-level items when they can; code and tables between lines.
  let groups: string[][] = body.map((line) => [line]);
  if (block.kind === 'list') {
    const topIndent = LIST_ITEM.exec(body[0])?.[1].length ?? 0;
    groups = [];
    for (const line of body) {
      const item = LIST_ITEM.exec(line);
      if (groups.length === 0 || (item && item[1].length <= topIndent)) groups.push([line]);
      else groups[groups.length - 1].push(line);
    }
  }
  const frame = estimateTokens([...head, ...tail].join('\n'));
  const pieces: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) pieces.push([...head, ...current, ...tail].join('\n'));
    current = [];
  };
  for (const group of groups) {
    const lineGroups = frame + estimateTokens(group.join('\n')) > limit ? group.map((line) => [line]) : [group];
    for (const g of lineGroups) {
      if (current.length > 0 && frame + estimateTokens([...current, ...g].join('\n')) > limit) flush();
      current.push(...g);
    }
  }
  flush();
  return pieces;
}

// ─── Packing a section ────────────────────────────────────────────────────────────────────────────────────────────

interface Draft {
  path: string[];
  /** The sections (by index into the heading lists) whose text it holds, in order, with that text. */
  parts: { headings: Heading[]; text: string }[];
  tokens: number;
  text: string;
}

function chunkSection(section: Section, options: ChunkerOptions): Draft[] {
  if (section.blocks.length === 0) return [];
  const units = unitsOf(section.blocks, options);
  const path = section.headings.map((h) => h.title);
  const whole = joinUnits('', units);
  // A section that fits is one chunk: splitting it would only add calls, and an edit changes it either way.
  if (estimateTokens(whole) <= options.maxTokens) return [{ path, parts: [{ headings: section.headings, text: whole }], tokens: estimateTokens(whole), text: whole }];
  // Content-defined segments: a segment ends after a boundary unit.
  let segments: Unit[][] = [];
  let open: Unit[] = [];
  for (const unit of units) {
    open.push(unit);
    if (unit.boundary) {
      segments.push(open);
      open = [];
    }
  }
  if (open.length > 0) segments.push(open);
  segments = joinSmallSegments(segments, options);

  const drafts: Draft[] = [];
  let previous: Unit[] | null = null;
  for (const piece of segments.flatMap((segment) => splitOversized(segment, options))) {
    const text = joinUnits(previous ? overlapOf(previous, options.overlapTokens) : '', piece);
    drafts.push({ path, parts: [{ headings: section.headings, text }], tokens: estimateTokens(text), text });
    previous = piece;
  }
  return drafts;
}

/**
 * A segment too big for one chunk is cut after its "strongest" unit (the lowest rank, from its opening words), then
 * each side again, until every piece fits. The cut points depend on content, not on sizes from the start of the
 * section, so a paragraph that grows splits its own piece in two instead of pushing every later boundary along.
 */
function splitOversized(units: Unit[], options: ChunkerOptions): Unit[][] {
  const size = units.reduce((sum, u) => sum + u.tokens, 0);
  if (units.length <= 1 || size + options.overlapTokens <= options.maxTokens) return [units];
  let cut = -1;
  let fallback = 0;
  let running = 0;
  for (let k = 0; k < units.length - 1; k++) {
    running += units[k].tokens;
    // Prefer cuts that leave both sides big enough to be worth a call; any cut will do when none does.
    if (units[fallback].rank > units[k].rank) fallback = k;
    const balanced = running >= options.minChunkTokens && size - running >= options.minChunkTokens;
    if (balanced && (cut < 0 || units[k].rank < units[cut].rank)) cut = k;
  }
  const at = cut >= 0 ? cut : fallback;
  return [...splitOversized(units.slice(0, at + 1), options), ...splitOversized(units.slice(at + 1), options)];
}

/** A segment smaller than minChunkTokens joins the next one (or, at the end, the previous one) when both fit. */
function joinSmallSegments(segments: Unit[][], options: ChunkerOptions): Unit[][] {
  const size = (segment: Unit[]) => segment.reduce((sum, u) => sum + u.tokens, 0);
  const out: Unit[][] = [];
  let carry: Unit[] = [];
  for (const segment of segments) {
    const joined = [...carry, ...segment];
    if (carry.length > 0 && size(joined) + options.overlapTokens > options.maxTokens) {
      out.push(carry);
      carry = segment;
    } else {
      carry = joined;
    }
    if (size(carry) >= options.minChunkTokens) {
      out.push(carry);
      carry = [];
    }
  }
  if (carry.length > 0) {
    const last = out[out.length - 1];
    if (last && size(last) + size(carry) + options.overlapTokens <= options.maxTokens) out[out.length - 1] = [...last, ...carry];
    else out.push(carry);
  }
  return out;
}

function joinUnits(overlap: string, units: Unit[]): string {
  let text = overlap;
  for (const unit of units) text = text ? `${text}${unit.glue}${unit.text}` : unit.text;
  return text;
}

/** The last sentence(s) of a chunk's final prose unit, within the overlap budget; nothing after code, tables or lists. */
function overlapOf(units: Unit[], budget: number): string {
  const last = units[units.length - 1];
  if (!last || !last.prose || budget <= 0) return '';
  const sentences = sentencesOf(last.text.replace(/\n/g, ' '));
  let overlap = '';
  for (let k = sentences.length - 1; k >= 0; k--) {
    const candidate = overlap ? `${sentences[k]} ${overlap}` : sentences[k];
    if (estimateTokens(candidate) > budget) break;
    overlap = candidate;
  }
  return overlap;
}

// ─── Tiny sections merge forward ──────────────────────────────────────────────────────────────────────────────────

function mergeTinySections(sections: Section[], drafts: Draft[][], options: ChunkerOptions): Draft[] {
  const out: Draft[] = [];
  let carry: Draft | null = null;
  const fits = (a: Draft, b: Draft) => a.tokens + b.tokens + 8 <= options.maxTokens;
  for (let s = 0; s < drafts.length; s++) {
    const chunks = drafts[s];
    if (chunks.length === 0) {
      // A heading with no text of its own: carried like a tiny section (its words stay findable). A carry that has
      // grown to a chunk's size goes out as one: headings upon headings cost each the size of the carry so far.
      const heading: Draft = { path: sections[s].headings.map((h) => h.title), parts: [{ headings: sections[s].headings, text: '' }], tokens: 0, text: '' };
      if (carry && !fits(carry, heading)) {
        out.push(carry);
        carry = heading;
      } else carry = carry ? combine(carry, heading) : heading;
      continue;
    }
    // A heading without text whose section continues in this one is already in its heading path.
    if (carry) carry = withoutAncestorsOf(carry, sections[s].headings);
    const tiny = chunks.length === 1 && chunks[0].tokens < options.minSectionTokens;
    if (carry && fits(carry, chunks[0])) {
      chunks[0] = combine(carry, chunks[0]);
      carry = null;
    } else if (carry) {
      out.push(carry);
      carry = null;
    }
    if (tiny && s < drafts.length - 1) {
      carry = chunks[0];
      continue;
    }
    out.push(...chunks);
  }
  // Trailing headings without any text are dropped; trailing tiny text joins the chunk before it when it fits.
  if (carry && carry.parts.some((p) => p.text !== '')) {
    const last = out[out.length - 1];
    if (last && fits(last, carry)) out[out.length - 1] = combine(last, carry);
    else out.push(carry);
  }
  return out.map(render);
}

function withoutAncestorsOf(carry: Draft, headings: Heading[]): Draft | null {
  const parts = carry.parts.filter((p) => p.text !== '' || !p.headings.every((h, k) => headings[k] === h));
  if (parts.length === 0) return null;
  if (parts.length === carry.parts.length) return carry;
  const path = commonPrefix(parts.map((p) => p.headings.map((h) => h.title)));
  const text = render({ path, parts, tokens: 0, text: '' }).text;
  return { path, parts, tokens: estimateTokens(text), text };
}

function combine(a: Draft, b: Draft): Draft {
  const parts = [...a.parts, ...b.parts];
  const path = commonPrefix(parts.map((p) => p.headings.map((h) => h.title)));
  const draft = { path, parts, tokens: 0, text: '' };
  const text = render(draft).text;
  return { ...draft, tokens: estimateTokens(text), text };
}

/** A chunk's text: the parts in order; a part deeper than the chunk's heading path gets its headings as lines. */
function render(draft: Draft): Draft {
  if (draft.parts.length === 1 && draft.parts[0].headings.length === draft.path.length) return draft;
  const shown: Heading[] = draft.parts[0].headings.slice(0, draft.path.length);
  const blocks: string[] = [];
  for (const part of draft.parts) {
    for (let depth = draft.path.length; depth < part.headings.length; depth++) {
      const heading = part.headings[depth];
      if (shown[depth] === heading) continue;
      shown.length = depth;
      shown[depth] = heading;
      blocks.push(`${'#'.repeat(heading.level)} ${heading.title}`);
    }
    shown.length = part.headings.length;
    part.headings.forEach((h, k) => (shown[k] = h));
    if (part.text !== '') blocks.push(part.text);
  }
  const text = blocks.join('\n\n');
  return { ...draft, text, tokens: estimateTokens(text) };
}

function commonPrefix(paths: string[][]): string[] {
  const [first, ...rest] = paths;
  let length = first.length;
  for (const path of rest) {
    let k = 0;
    while (k < length && k < path.length && path[k] === first[k]) k++;
    length = k;
  }
  return first.slice(0, length);
}
