import type { Env, MarkdownIt, StateCore, Token } from 'markdown-it';
import { isAttachmentTarget } from '../../extractors/attachments.js';
import type { TrustedHtmlEnv, TrustedHtmlSlots } from './trusted-html.js';
import { referenceTokens, wikilinkOf } from './wikilinks.js';

/** A stored file a reference reached (src/attachments/ resolves them; the renderer only prints them). */
export interface ResolvedFile {
  /** The file's path in the wiki (as in the vault it came from): `assets/logo.png`. */
  path: string;
  /** Where it is served: `/files/assets/logo.png`. */
  url: string;
  /** The type sniffed from its bytes when it was stored. */
  mediaType: string;
  sizeBytes: number;
}

/** Looks a file reference up (the target as {@link fileTargetOf} normalised it). */
export type ResolveFile = (target: string) => ResolvedFile | null;

export type FileEmbedKind = 'image' | 'pdf' | 'audio' | 'video' | 'card';

interface FileEmbedMeta {
  file: ResolvedFile;
  fragment: string | null;
  alt: string;
  width: string | null;
  height: string | null;
}

interface FileLinkMeta {
  file: ResolvedFile;
  label: string;
  fragment: string | null;
}

interface FileEnv extends Env {
  resolveFile?: ResolveFile;
}

const URL_SCHEME = /^[a-z][a-z\d+.-]*:/i;
const FILE_EXTENSION = /\.([a-z\d]+)$/i;
const MARKDOWN_EXTENSION = /^(?:md|markdown)$/i;
// Obsidian's sizes: `|300` (width) or `|300x200`.
const SIZE = /^(\d{1,5})(?:x(\d{1,5}))?$/;

/**
 * The path a link, image or embed names when it may be a file, normalised for lookup: percent-decoding (Markdown
 * only), `./` and leading `../` steps dropped. Null for URLs, absolute and fragment-only links, Markdown notes and
 * names without an extension (those are pages).
 */
export function fileTargetOf(raw: string, options: { percentEncoded: boolean }): string | null {
  let target = raw.trim();
  if (target === '' || URL_SCHEME.test(target) || target.startsWith('/') || target.startsWith('#')) return null;
  target = target.split('#')[0].split('?')[0];
  if (options.percentEncoded) target = percentDecode(target);
  const steps = target.split('/').filter((step) => step !== '' && step !== '.');
  while (steps[0] === '..') steps.shift();
  if (steps.length === 0 || steps.includes('..')) return null;
  const extension = FILE_EXTENSION.exec(steps[steps.length - 1])?.[1];
  if (extension === undefined || MARKDOWN_EXTENSION.test(extension)) return null;
  return steps.join('/');
}

/** How a file of this type is shown when a page embeds it, the way Obsidian shows it. */
export function embedKindOf(mediaType: string): FileEmbedKind {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType === 'application/pdf') return 'pdf';
  if (mediaType.startsWith('audio/')) return 'audio';
  if (mediaType.startsWith('video/')) return 'video';
  return 'card';
}

/** A reference to what may be a file: the normalised target, and for a wikilink the target as written. */
export interface FileReference {
  target: string;
  /** The wikilink's target as the Page Graph stores it (`page_links.target`); null for images and Markdown links. */
  wikilinkTarget: string | null;
}

/** Every file reference in a page body (wikilinks and embeds, images, Markdown links), in document order, with repeats. */
export function extractFileReferences(markdownBody: string): FileReference[] {
  return fileReferencesIn(referenceTokens(markdownBody));
}

/** The file references of tokens from `referenceTokens` (wikilinks.ts), in document order, with repeats. */
export function fileReferencesIn(blocks: Token[]): FileReference[] {
  const references: FileReference[] = [];
  for (const block of blocks) {
    for (const token of block.children ?? []) {
      const reference = referenceOf(token);
      if (reference) references.push(reference);
    }
  }
  return references;
}

/** Every file a page body references, distinct, in document order. */
export function extractFileTargets(markdownBody: string): string[] {
  return distinctFileTargets(extractFileReferences(markdownBody));
}

export function distinctFileTargets(references: FileReference[]): string[] {
  return [...new Set(references.map((reference) => reference.target))];
}

function referenceOf(token: Token): FileReference | null {
  if (token.type === 'wikilink') {
    const written = wikilinkOf(token).target;
    const target = fileTargetOf(written, { percentEncoded: false });
    return target === null ? null : { target, wikilinkTarget: written };
  }
  const raw = token.type === 'image' ? token.attrGet('src') : token.type === 'link_open' ? token.attrGet('href') : null;
  const target = raw === null ? null : fileTargetOf(String(raw), { percentEncoded: true });
  return target === null ? null : { target, wikilinkTarget: null };
}

/**
 * markdown-it plugin: references that reach a stored file (through `env.resolveFile`) become images, PDF viewers,
 * players or file cards (embeds) and links to the file; an embed of a file that is not there is marked missing.
 * Runs right after inline parsing, before anything that treats embeds as pages.
 */
export function fileEmbedsPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'file_embeds', placeFiles);
  md.renderer.rules.file_embed = (tokens, idx, _options, env) => renderFileEmbed(tokens[idx].meta as unknown as FileEmbedMeta, (env as TrustedHtmlEnv | undefined)?.trusted);
  md.renderer.rules.file_link = (tokens, idx) => renderFileLink(tokens[idx].meta as unknown as FileLinkMeta);
  md.renderer.rules.file_missing = (tokens, idx) =>
    `<span class="file-missing">📎 ${escapeHtml(String((tokens[idx].meta as { target: string }).target))}</span>`;
}

function placeFiles(state: StateCore): void {
  const resolve = (state.env as FileEnv).resolveFile;
  if (!resolve) return;
  for (const block of state.tokens) {
    for (const token of block.children ?? []) {
      if (token.type === 'wikilink') placeWikilink(token, resolve);
      else if (token.type === 'image') placeImage(token, resolve);
      else if (token.type === 'link_open') placeLink(token, resolve);
    }
  }
}

function placeWikilink(token: Token, resolve: ResolveFile): void {
  const link = wikilinkOf(token);
  const target = fileTargetOf(link.target, { percentEncoded: false });
  const file = target === null ? null : resolve(target);
  if (!file) {
    if (link.kind === 'embed' && target !== null && isAttachmentTarget(target)) {
      token.type = 'file_missing';
      token.meta = { target: link.target };
    }
    return;
  }
  if (link.kind !== 'embed') {
    token.type = 'file_link';
    token.meta = { file, label: link.label ?? link.target, fragment: link.heading } satisfies FileLinkMeta;
    return;
  }
  const { alt, width, height } = altAndSize(link.label, baseName(file.path));
  token.type = 'file_embed';
  token.meta = { file, fragment: link.heading, alt, width, height } satisfies FileEmbedMeta;
}

function placeImage(token: Token, resolve: ResolveFile): void {
  const src = String(token.attrGet('src') ?? '');
  const target = fileTargetOf(src, { percentEncoded: true });
  const file = target === null ? null : resolve(target);
  if (!file) return;
  const written = (token.children ?? []).map((child) => child.content).join('');
  const { alt, width, height } = altAndSize(written || null, baseName(file.path));
  const fragment = src.includes('#') ? percentDecode(src.slice(src.indexOf('#') + 1)) : null;
  token.type = 'file_embed';
  token.meta = { file, fragment, alt, width, height } satisfies FileEmbedMeta;
}

function placeLink(token: Token, resolve: ResolveFile): void {
  const href = String(token.attrGet('href') ?? '');
  const target = fileTargetOf(href, { percentEncoded: true });
  const file = target === null ? null : resolve(target);
  if (!file) return;
  const fragment = href.includes('#') ? href.slice(href.indexOf('#')) : '';
  token.attrSet('href', file.url + fragment);
  token.attrJoin('class', 'file-link');
}

/** `alt`, `300`, `300x200` or `alt|300` (Obsidian's forms), the file name when no alt text is written. */
function altAndSize(written: string | null, fallbackAlt: string): { alt: string; width: string | null; height: string | null } {
  const text = written?.trim() ?? '';
  const bar = text.lastIndexOf('|');
  const last = bar < 0 ? text : text.slice(bar + 1).trim();
  const size = SIZE.exec(last);
  if (!size) return { alt: text || fallbackAlt, width: null, height: null };
  const alt = bar < 0 ? '' : text.slice(0, bar).trim();
  return { alt: alt || fallbackAlt, width: size[1], height: size[2] ?? null };
}

function renderFileEmbed({ file, fragment, alt, width, height }: FileEmbedMeta, trusted: TrustedHtmlSlots | undefined): string {
  const name = baseName(file.path);
  const kind = embedKindOf(file.mediaType);
  const size = `${width ? ` width="${width}"` : ''}${height ? ` height="${height}"` : ''}`;
  const url = escapeHtml(file.url);
  switch (kind) {
    case 'image':
      return `<img class="file-embed file-embed-image" src="${url}" alt="${escapeHtml(alt)}"${size}>`;
    case 'pdf': {
      // `![[doc.pdf#page=3]]` opens the viewer on that page.
      const page = fragment && /^page=\d+$/.test(fragment) ? `#${fragment}` : '';
      const caption = `<a class="file-embed-caption" href="${url}">${escapeHtml(name)}</a>`;
      // The frame passes the sanitiser only in a slot of this render; without one (no sanitising renderer) the
      // caption's link stands alone.
      if (!trusted) return caption;
      return trusted.placeholder(`<iframe class="file-embed file-embed-pdf" src="${url}${page}" title="${escapeHtml(name)}"></iframe>`) + caption;
    }
    case 'audio':
      return `<audio class="file-embed file-embed-audio" src="${url}" controls preload="metadata"></audio>`;
    case 'video':
      return `<video class="file-embed file-embed-video" src="${url}" controls preload="metadata"${size}></video>`;
    case 'card':
      return `<a class="file-card" href="${url}">📎 ${escapeHtml(name)} <span class="file-size">${formatBytes(file.sizeBytes)}</span></a>`;
  }
}

function renderFileLink({ file, label }: FileLinkMeta): string {
  return `<a class="wikilink file-link" href="${escapeHtml(file.url)}">${escapeHtml(label)}</a>`;
}

/**
 * What the sanitiser must let through for embedded files (merged into the renderer's options). No frame: an author's
 * raw <iframe> is dropped whatever its address (one at a file of the wiki made every visitor download it); the PDF
 * viewer's frame is the renderer's own and passes in a trusted slot.
 */
export const FILE_EMBED_SANITIZE = {
  tags: ['audio', 'video'],
  attributes: {
    img: ['class'],
    audio: ['src', 'controls', 'preload', 'class'],
    video: ['src', 'controls', 'preload', 'class', 'width', 'height'],
  } satisfies Record<string, string[]>,
};

/** `12 KB`, `3.4 MB`: a file's size for people. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}
