const MAX_SLUG_LENGTH = 120;
const SEPARATOR_RUN = /[^\p{L}\p{N}\p{M}]+/gu;
const MARKDOWN_EXTENSION = /\.(?:md|markdown)$/i;

/** URL-safe page/heading slug that keeps letters and digits of every script. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(SEPARATOR_RUN, '-')
    .replace(/^-|-$/g, '');
  return capLength(slug);
}

function capLength(slug: string): string {
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  let cut = slug.slice(0, MAX_SLUG_LENGTH);
  // A trailing high surrogate means the cut fell inside a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.replace(/-$/, '');
}

/** The page name a link target points at: its last path segment without a Markdown extension. */
export function linkTitle(target: string): string {
  const lastSegment = target.slice(target.lastIndexOf('/') + 1);
  return lastSegment.replace(MARKDOWN_EXTENSION, '');
}

/** Case-insensitive lookup key of a link target, comparable with page slugs. */
export function linkKey(target: string): string {
  return slugify(linkTitle(target));
}

/** True for a non-empty canonical slug, which rules out path tricks such as `../etc`. */
export function isSafeSlug(s: string): boolean {
  return s !== '' && slugify(s) === s;
}

// `/page/new` is the new-page form, so no page may own that slug.
const RESERVED_PAGE_SLUGS = new Set(['new']);

/** The slug a page with this title gets: slugify, steering clear of the slugs the web UI's routes use. */
export function pageSlug(title: string): string {
  const slug = slugify(title);
  return RESERVED_PAGE_SLUGS.has(slug) ? `${slug}-page` : slug;
}
