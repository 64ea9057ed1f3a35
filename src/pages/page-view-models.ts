import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import type { TocEntry } from './markdown/markdown-renderer.js';
import type { PageRevisionEntity } from './page-revision.entity.js';
import type { PageEntity } from './page.entity.js';
import type { RevisionDiff } from './revision-diff.js';

/** Shapes service results into what the Handlebars views print. No I/O here: pure functions, easy to test. */

export type FormResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Validates a submitted form against an API DTO (the same rules as the JSON API), without throwing: a bad form is
 * shown again with the user's text, never replaced by an error page.
 */
export function readForm<T extends object>(dto: ClassConstructor<T>, body: unknown): FormResult<T> {
  const plain = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const value = plainToInstance(dto, plain);
  const errors = validateSync(value, { whitelist: true, forbidNonWhitelisted: false });
  if (errors.length === 0) return { ok: true, value };
  const message = errors.flatMap((e) => Object.values(e.constraints ?? {})).join('; ');
  return { ok: false, message: `The form could not be saved: ${message}.` };
}

/** The raw text of a form field, so that whatever the user typed can be shown again (arrays from repeated fields joined). */
export function fieldText(body: unknown, name: string): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join('\n');
  return '';
}

/**
 * HTTP status of the domain errors a form shows inline, with the user's text kept (the same statuses as
 * domain-exception.filter.ts); null for anything else (permissions, sessions…), which the global filter answers.
 */
export function formErrorStatus(error: DomainException): number | null {
  switch (error.code) {
    case DomainErrorCode.InvalidFrontmatter:
    case DomainErrorCode.InvalidInput:
      return 400;
    case DomainErrorCode.NotFound:
      return 404;
    case DomainErrorCode.VersionConflict:
    case DomainErrorCode.SlugTaken:
    case DomainErrorCode.PageInTrash:
      return 409;
    default:
      return null;
  }
}

export interface FormError {
  message: string;
  /** The source line a frontmatter error is on (1-based), when known, and its text. */
  line: number | null;
  lineText: string | null;
  /** Set when a page with the submitted title already exists (or is in the trash). */
  existingSlug: string | null;
  inTrash: boolean;
}

export function formError(error: DomainException | string, source = ''): FormError {
  if (typeof error === 'string') return { message: error, line: null, lineText: null, existingSlug: null, inTrash: false };
  const line = typeof error.details.line === 'number' ? error.details.line : null;
  const slug = typeof error.details.slug === 'string' ? error.details.slug : null;
  const lineText = line !== null ? (source.replace(/^\uFEFF/, '').split(/\r?\n/)[line - 1] ?? null) : null;
  return {
    message: error.message,
    line,
    lineText,
    existingSlug: error.code === DomainErrorCode.SlugTaken || error.code === DomainErrorCode.PageInTrash ? slug : null,
    inTrash: error.code === DomainErrorCode.PageInTrash,
  };
}

/** Fixed messages for `?notice=` after a redirect; unknown codes show nothing (never echo the query). */
const NOTICES: Record<string, string> = {
  created: 'Page created.',
  saved: 'Your changes were saved.',
  unchanged: 'Nothing changed, so no new version was written.',
  renamed: 'Page renamed. The old address redirects here.',
  restored: 'Page restored from the trash.',
  reverted: 'The old version was saved as a new version.',
  deleted: 'Page moved to the trash.',
};

export function noticeText(code: unknown, extra: { rewritten?: unknown } = {}): string | null {
  if (typeof code !== 'string' || !(code in NOTICES)) return null;
  const rewritten = Number(extra.rewritten);
  if (code === 'renamed' && Number.isInteger(rewritten) && rewritten > 0) {
    return `${NOTICES.renamed} Links were rewritten in ${rewritten} ${rewritten === 1 ? 'page' : 'pages'}.`;
  }
  return NOTICES[code];
}

export function pageHref(slug: string, suffix = ''): string {
  return `/page/${encodeURIComponent(slug)}${suffix}`;
}

/** A readable title from a slug or a typed name, for "Create this page" ("graph-view" → "Graph view"). */
export function titleFromSlug(text: string): string {
  const spaced = text.includes(' ') ? text.trim() : text.replace(/-+/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

export interface PageSummary {
  slug: string;
  title: string;
  cluster: string | null;
  href: string;
}

export function pageSummary(page: { slug: string; title: string; cluster: string | null }): PageSummary {
  return { slug: page.slug, title: page.title, cluster: page.cluster, href: pageHref(page.slug) };
}

export function pageMeta(page: PageEntity) {
  return {
    slug: page.slug,
    title: page.title,
    version: page.version,
    cluster: page.cluster,
    clusters: page.clusters.map((name) => ({ name, href: `/pages?${new URLSearchParams({ cluster: name })}` })),
    tags: page.tags.map((name) => ({ name, href: `/pages?${new URLSearchParams({ tag: name })}` })),
    aliases: page.aliases,
    pageType: page.pageType,
    isSystem: page.isSystem,
    createdAt: page.createdAt,
    createdBy: page.createdBy,
    updatedAt: page.updatedAt,
    updatedBy: page.updatedBy,
    href: pageHref(page.slug),
    editHref: pageHref(page.slug, '/edit'),
    historyHref: pageHref(page.slug, '/history'),
    graphHref: pageHref(page.slug, '/graph'),
    renameHref: pageHref(page.slug, '/rename'),
    deleteHref: pageHref(page.slug, '/delete'),
  };
}

/** The table of contents is worth showing from two headings on; levels become classes for indentation. */
export function tocView(toc: TocEntry[]) {
  if (toc.length < 2) return null;
  const top = Math.min(...toc.map((entry) => entry.level));
  return toc.map((entry) => ({ text: entry.text, anchor: entry.anchor, depth: Math.min(entry.level - top, 2) }));
}

export function historyView(page: PageEntity, revisions: PageRevisionEntity[]) {
  const latest = revisions[0]?.version ?? page.version;
  const previous = revisions[1]?.version ?? latest;
  return revisions.map((revision, index) => {
    const older = revisions[index + 1];
    return {
      version: revision.version,
      title: revision.title,
      renamed: older !== undefined && older.title !== revision.title,
      author: revision.author,
      message: revision.message,
      createdAt: revision.createdAt,
      isCurrent: revision.version === page.version,
      href: pageHref(page.slug, `/revisions/${revision.version}`),
      diffHref: older ? pageHref(page.slug, `/diff?from=${older.version}&to=${revision.version}`) : null,
      checkedFrom: revision.version === previous,
      checkedTo: revision.version === latest,
    };
  });
}

export interface DiffRow {
  kind: 'added' | 'removed' | 'same';
  sign: string;
  oldNumber: number | null;
  newNumber: number | null;
  text: string;
}

export interface DiffBlock {
  /** Unchanged lines folded away before this hunk. */
  foldedBefore: number;
  rows: DiffRow[];
}

const SIGNS = { added: '+', removed: '−', same: ' ' } as const;

/** Hunks with the number of unchanged lines folded between them (every old line is either shown or unchanged). */
export function diffView(diff: RevisionDiff, oldText: string) {
  const oldLineCount = oldText === '' ? 0 : oldText.replace(/\r?\n$/, '').split(/\r?\n/).length;
  let lastOld = 0;
  let lastNew = 0;
  const blocks: DiffBlock[] = diff.hunks.map((hunk) => {
    const firstOld = hunk.lines.find((l) => l.oldNumber !== null)?.oldNumber ?? null;
    const firstNew = hunk.lines.find((l) => l.newNumber !== null)?.newNumber ?? null;
    const foldedBefore = firstOld !== null ? firstOld - lastOld - 1 : firstNew !== null ? firstNew - lastNew - 1 : 0;
    for (const line of hunk.lines) {
      if (line.oldNumber !== null) lastOld = line.oldNumber;
      if (line.newNumber !== null) lastNew = line.newNumber;
    }
    return {
      foldedBefore: Math.max(0, foldedBefore),
      rows: hunk.lines.map((line) => ({ ...line, sign: SIGNS[line.kind] })),
    };
  });
  return { added: diff.added, removed: diff.removed, blocks, foldedAfter: Math.max(0, oldLineCount - lastOld), identical: blocks.length === 0 };
}

export interface Pager {
  page: number;
  totalPages: number;
  total: number;
  prevHref: string | null;
  nextHref: string | null;
}

/** Previous/next links that keep the other query parameters. */
export function pager(path: string, params: Record<string, string | number | undefined>, page: number, perPage: number, total: number): Pager | null {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  if (totalPages <= 1 && page <= 1) return null;
  const href = (p: number) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, String(value));
    if (p > 1) query.set('page', String(p));
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };
  return {
    page,
    totalPages,
    total,
    prevHref: page > 1 ? href(Math.min(page - 1, totalPages)) : null,
    nextHref: page < totalPages ? href(page + 1) : null,
  };
}
