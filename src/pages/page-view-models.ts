import { httpStatusOf } from '../common/domain-exception.filter.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import type { TocEntry } from './markdown/markdown-renderer.js';
import type { PageRevisionEntity } from './page-revision.entity.js';
import type { PageEntity } from './page.entity.js';
import type { RevisionDiff } from './revision-diff.js';
import { formatBytes } from './markdown/file-embeds.js';
import type { PageFile } from './page-files.js';
import { noticeOf } from '../web/notices.js';

/** Shapes service results into what the Handlebars views print. No I/O here: pure functions, easy to test. */



// The domain errors a form shows inline, with the user's text kept; anything else (permissions, sessions…) goes to the global filter.
const FORM_ERRORS = new Set([
  DomainErrorCode.InvalidFrontmatter, DomainErrorCode.InvalidInput, DomainErrorCode.NotFound,
  DomainErrorCode.VersionConflict, DomainErrorCode.SlugTaken, DomainErrorCode.PageInTrash,
  DomainErrorCode.TooComplex, DomainErrorCode.Busy,
]);

/** The HTTP status of an error a form shows inline, or null when the global filter should answer it. */
export function formErrorStatus(error: DomainException): number | null {
  return FORM_ERRORS.has(error.code) ? httpStatusOf(error.code) : null;
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
  const text = noticeOf(NOTICES, code);
  if (text === null) return null;
  const rewritten = Number(extra.rewritten);
  if (code === 'renamed' && Number.isInteger(rewritten) && rewritten > 0) {
    return `${text} Links were rewritten in ${rewritten} ${rewritten === 1 ? 'page' : 'pages'}.`;
  }
  return text;
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

/** A tag's page: the pages tagged with it (and with its nested tags, `tag/sub`). */
export function tagHref(tag: string): string {
  return `/tags/${encodeURIComponent(tag)}`;
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
    tags: page.tags.map((name) => ({ name, href: tagHref(name) })),
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
  return { added: diff.added, removed: diff.removed, coarse: diff.coarse, blocks, foldedAfter: Math.max(0, oldLineCount - lastOld), identical: blocks.length === 0 };
}


/** Where the editor's upload button sends the form (attachments/ serves it; it shows this form again, text kept). */
export const UPLOAD_FORM_ACTION = '/attachments/upload';

/** The new-page form; `notice` after an upload that inserted a file. */
export function newFormModel(typed: { title: string; body: string; message: string }, error: FormError | null = null, notice: string | null = null, previewHtml: string | null = null) {
  return {
    title: typed.title ? `New page: ${typed.title}` : 'New page',
    form: typed,
    error,
    notice,
    previewHtml,
    preview: true,
    uploadAction: `${UPLOAD_FORM_ACTION}?new=1`,
  };
}

/** The edit form, with the author's text (`typed`), never the stored one, when it is shown again. */
export function editFormModel(
  page: Pick<PageEntity, 'slug' | 'title' | 'version'>,
  typed: { body: string; baseVersion: number; message: string },
  previewHtml: string | null,
  error: FormError | null = null,
  notice: string | null = null,
) {
  return {
    title: `Editing ${page.title}`,
    page: { slug: page.slug, title: page.title, version: page.version, href: pageHref(page.slug), historyHref: pageHref(page.slug, '/history') },
    action: pageHref(page.slug),
    uploadAction: `${UPLOAD_FORM_ACTION}?${new URLSearchParams({ page: page.slug })}`,
    form: typed,
    previewHtml,
    error,
    notice,
  };
}

/** The files a page's text references, once each, for the page view: what, how large, which version added it. */
export function pageFilesView(page: Pick<PageEntity, 'slug'>, files: Map<string, PageFile>) {
  const byPath = new Map<string, PageFile>();
  for (const file of files.values()) {
    const seen = byPath.get(file.path);
    if (!seen || file.addedInVersion < seen.addedInVersion) byPath.set(file.path, file);
  }
  return [...byPath.values()]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) => ({
      path: file.path,
      name: file.path.slice(file.path.lastIndexOf('/') + 1),
      url: file.url,
      mediaType: file.mediaType,
      size: formatBytes(file.sizeBytes),
      addedInVersion: file.addedInVersion,
      revisionHref: pageHref(page.slug, `/revisions/${file.addedInVersion}`),
    }));
}

/** The same files by the version that added them (the history shows them beside that version). */
export function filesByVersion(files: ReturnType<typeof pageFilesView>): Map<number, ReturnType<typeof pageFilesView>> {
  const byVersion = new Map<number, ReturnType<typeof pageFilesView>>();
  for (const file of files) byVersion.set(file.addedInVersion, [...(byVersion.get(file.addedInVersion) ?? []), file]);
  return byVersion;
}
