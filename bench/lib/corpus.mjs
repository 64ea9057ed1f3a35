// Replicates the foam-docs corpus to N pages on disk: copy 0 keeps the original file names, copy i (i ≥ 1) suffixes
// every file name with `-i` (`graph-view.md` → `graph-view-3.md`) and rewrites its [[wikilinks]] and relative
// Markdown links so that they point at the same copy's pages. Links that were broken in the original stay broken
// (they are left as written); in a last, partial copy a link to a page that copy lacks keeps pointing at copy 0.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The default corpus: the Foam documentation vendored with the tests (MIT, its LICENSE beside it). */
export const FOAM_DOCS = fileURLToPath(new URL('../../test/fixtures/foam-docs', import.meta.url));

const MARKDOWN = /\.(?:md|markdown)$/i;
const SEPARATOR_RUN = /[^\p{L}\p{N}\p{M}]+/gu;
const URL_SCHEME = /^[a-z][a-z\d+.-]*:/i;

/** Same rule as src/pages/markdown/slug.ts (kept local so that the bench does not depend on dist/ internals). */
export function slugify(title) {
  return title.normalize('NFKC').toLowerCase().replace(SEPARATOR_RUN, '-').replace(/^-|-$/g, '').slice(0, 120).replace(/-$/, '');
}

function lastSegment(target) {
  return target.slice(target.lastIndexOf('/') + 1);
}

function keyOf(target) {
  return slugify(lastSegment(target).replace(MARKDOWN, ''));
}

async function listMarkdown(root, relative = []) {
  const out = [];
  const entries = (await readdir(path.join(root, ...relative), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push(...(await listMarkdown(root, [...relative, entry.name])));
    else if (entry.isFile() && MARKDOWN.test(entry.name)) out.push([...relative, entry.name].join('/'));
  }
  return out;
}

/** Renames `name.md` → `name-3.md` (or `name` → `name-3`) in the last path segment of a link target. */
function suffixTarget(target, suffix) {
  const at = target.lastIndexOf('/') + 1;
  const segment = target.slice(at);
  const ext = MARKDOWN.exec(segment)?.[0] ?? '';
  return `${target.slice(0, at)}${segment.slice(0, segment.length - ext.length)}${suffix}${ext}`;
}

/**
 * Rewrites the links of one copy. `originalKeys` are the link keys of the corpus's pages; `inCopy(key)` says whether
 * the page with that key exists in this copy.
 */
export function rewriteLinks(source, suffix, originalKeys, inCopy) {
  if (!suffix) return { text: source, rewritten: 0 };
  let rewritten = 0;
  const retarget = (target) => {
    const key = keyOf(target.trim());
    if (!originalKeys.has(key) || !inCopy(key)) return target;
    rewritten++;
    return suffixTarget(target.trim(), suffix);
  };
  // [[target#heading|label]] and ![[target]]
  let text = source.replace(/(!?\[\[)([^\[\]|#\n]+)((?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\])/g, (_m, open, target, rest) => `${open}${retarget(target)}${rest}`);
  // [label](relative/path.md#heading): relative page links only (no scheme, not absolute, not a bare anchor).
  text = text.replace(/(\]\()([^)\s#?]+)((?:[#?][^)\s]*)?\))/g, (whole, open, href, rest) => {
    if (URL_SCHEME.test(href) || href.startsWith('/')) return whole;
    const segment = lastSegment(href);
    if (/\.[a-z\d]+$/i.test(segment) && !MARKDOWN.test(segment)) return whole;
    return `${open}${retarget(href)}${rest}`;
  });
  return { text, rewritten };
}

/**
 * Writes `pages` Markdown files under `dest` (LICENSE copied beside them) and returns what was written.
 * @returns {{ files: number, copies: number, rewrittenLinks: number, sourcePages: number }}
 */
export async function replicateCorpus(sourceDir, dest, pages) {
  const files = await listMarkdown(sourceDir);
  if (files.length === 0) throw new Error(`No Markdown files in ${sourceDir}`);
  const sources = new Map();
  for (const file of files) sources.set(file, await readFile(path.join(sourceDir, file), 'utf8'));
  // Link key → file, the shallowest file winning a shared name (as the import CLI and the server resolve them).
  const byKey = new Map();
  for (const file of [...files].sort((a, b) => a.split('/').length - b.split('/').length)) {
    const key = keyOf(file);
    if (!byKey.has(key)) byKey.set(key, file);
  }
  const originalKeys = new Set(byKey.keys());
  const copies = Math.ceil(pages / files.length);
  let written = 0;
  let rewrittenLinks = 0;
  await mkdir(dest, { recursive: true });
  for (let copy = 0; copy < copies && written < pages; copy++) {
    const take = Math.min(files.length, pages - written);
    const chosen = new Set(files.slice(0, take));
    const suffix = copy === 0 ? '' : `-${copy}`;
    const inCopy = (key) => chosen.has(byKey.get(key));
    for (const file of chosen) {
      const { text, rewritten } = rewriteLinks(sources.get(file), suffix, originalKeys, inCopy);
      rewrittenLinks += rewritten;
      const target = path.join(dest, suffixTarget(file, suffix));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
      written++;
    }
  }
  // The corpus is MIT-licensed: its licence travels with every copy written to disk.
  await writeFile(path.join(dest, 'LICENSE'), await readFile(path.join(sourceDir, 'LICENSE')));
  return { files: written, copies, rewrittenLinks, sourcePages: files.length };
}
