import { lstat, mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkedAttachmentPath } from '../attachments/attachment-paths.js';
import { vaultPagePathProblem } from '../common/vault-paths.js';
import { isSafeSlug } from '../pages/markdown/slug.js';
import { fileNameOfTitle } from './file-names.js';
import { CliError, KurateClient } from './kurate-client.js';
import { isInside } from './vault-files.js';
import { withoutCluster } from './vault-pages.js';

export interface ApiPage {
  slug: string;
  title: string;
  body: string;
  cluster: string | null;
  clusters: string[];
  tags: string[];
  version: number;
  updatedAt: string;
  /** Where import found the note in its vault (null: made in the wiki, or renamed or moved since). */
  vaultPath?: string | null;
  /** The `cluster:` line import added for the note's folder. */
  vaultCluster?: string | null;
}

interface PageList {
  items: ApiPage[];
  total: number;
}

export interface ExportedFile {
  slug: string;
  /** Path inside the export folder, `/`-separated. */
  path: string;
}

/** A stored file, as `GET /api/attachments` lists it. */
export interface ApiAttachment {
  path: string;
  url: string;
  sizeBytes: number;
  sha256: string;
}

export interface ExportedAttachment {
  path: string;
  sizeBytes: number;
}

// The largest page the list endpoints serve.
const PER_PAGE = 500;
// ext4, APFS and NTFS all stop at 255 (bytes or UTF-16 units); bytes are the stricter count.
const MAX_FILE_NAME_BYTES = 255;

/** Every live page (optionally of one cluster), following the list's pagination. */
export async function fetchAllPages(client: KurateClient, cluster?: string): Promise<ApiPage[]> {
  const pages: ApiPage[] = [];
  for (let page = 1; ; page++) {
    const list = await client.get<PageList>('/api/pages', { perPage: PER_PAGE, page, sort: 'title', cluster });
    pages.push(...list.items);
    if (list.items.length < PER_PAGE || pages.length >= list.total) return pages;
  }
}

/** Every file this token may read (docs/attachments.md: an admin's token exports them all). */
export async function fetchAllAttachments(client: KurateClient): Promise<ApiAttachment[]> {
  const files: ApiAttachment[] = [];
  for (let page = 1; ; page++) {
    const list = await client.get<{ items: ApiAttachment[]; total: number }>('/api/attachments', { perPage: PER_PAGE, page });
    files.push(...list.items);
    if (list.items.length < PER_PAGE || files.length >= list.total) return files;
  }
}

/**
 * Writes every live page as `<folder>/<cluster>/<title>.md` with its stored source, frontmatter included, and every
 * file at its own path, byte for byte, so that importing the folder again gives the same wiki. Nothing is written
 * unless every file can be: two entries that would share a file, or files already there (without `force`), stop the
 * export first.
 */
export async function exportWiki(client: KurateClient, folder: string, options: { force: boolean }): Promise<{ files: ExportedFile[]; attachments: ExportedAttachment[] }> {
  const pages = await fetchAllPages(client);
  const stored = await fetchAllAttachments(client);
  const plan = planFiles(pages);
  const filePlan = planAttachments(stored, plan);
  await mkdir(folder, { recursive: true });
  const root = await realpath(folder);

  const existing: string[] = [];
  for (const file of [...plan, ...filePlan]) {
    const stats = await lstat(path.join(root, ...file.path.split('/'))).catch(() => null);
    if (stats?.isSymbolicLink()) throw new CliError(`Refusing to write ${file.path}: it is a symbolic link in ${folder}.`);
    if (stats) existing.push(file.path);
  }
  if (existing.length > 0 && !options.force) {
    throw new CliError(
      `${existing.length} of the files already exist in ${folder} (e.g. ${existing[0]}); export into an empty folder or pass --force to overwrite them. Nothing was written.`,
    );
  }

  const write = async (filePath: string, content: string | Buffer) => {
    const target = path.join(root, ...filePath.split('/'));
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true });
    // A cluster folder that is a symlink (made by someone else) would carry the file outside the export folder.
    const realDir = await realpath(dir);
    if (realDir !== root && !isInside(root, realDir)) throw new CliError(`Refusing to write ${filePath}: its folder leads outside ${folder}.`);
    await writeFile(target, content, { flag: options.force ? 'w' : 'wx' });
  };
  for (const file of plan) await write(file.path, file.body);
  for (const file of filePlan) await write(file.path, await client.getBytes(file.url));
  return {
    files: plan.map(({ slug, path: filePath }) => ({ slug, path: filePath })),
    attachments: filePlan.map(({ path: filePath, sizeBytes }) => ({ path: filePath, sizeBytes })),
  };
}

/** Files go back to their own paths; one that would land on a page's file (or another file) stops the export. */
function planAttachments(files: ApiAttachment[], pages: { path: string; title: string }[]): ApiAttachment[] {
  const taken = new Map(pages.map((page) => [page.path.normalize('NFC').toLowerCase(), `the page "${page.title}"`]));
  for (const file of files) {
    try {
      checkedAttachmentPath(file.path);
    } catch {
      throw new CliError(`The file "${file.path}" has a path that is not safe to write. Nothing was written.`);
    }
    const key = file.path.normalize('NFC').toLowerCase();
    const other = taken.get(key);
    if (other) throw new CliError(`The file "${file.path}" and ${other} would both be written to ${file.path}. Nothing was written.`);
    taken.set(key, `the file "${file.path}"`);
  }
  return files;
}

/**
 * Where each page goes, and with what text. An imported note goes back to its path in the vault, without the
 * `cluster:` line import added for its folder; any other page to `<cluster>/<title>.md` with its stored source.
 */
function planFiles(pages: ApiPage[]): (ExportedFile & { title: string; body: string })[] {
  const byKey = new Map<string, ApiPage>();
  return pages.map((page) => {
    const { path: filePath, body } = vaultFileOf(page) ?? { path: clusterFileOf(page), body: page.body };
    // Compared case-insensitively: macOS and Windows file systems would make the two one file.
    const key = filePath.normalize('NFC').toLowerCase();
    const other = byKey.get(key);
    if (other) {
      throw new CliError(`The pages "${other.title}" (${other.slug}) and "${page.title}" (${page.slug}) would both be written to ${filePath}; rename one of them. Nothing was written.`);
    }
    byKey.set(key, page);
    return { slug: page.slug, title: page.title, body, path: filePath };
  });
}

function vaultFileOf(page: ApiPage): { path: string; body: string } | null {
  // The server keeps only safe relative paths; checking again keeps a path like `../x` out of the file system.
  if (!page.vaultPath || vaultPagePathProblem(page.vaultPath) !== null) return null;
  return { path: page.vaultPath, body: page.vaultCluster ? withoutCluster(page.body, page.vaultCluster) : page.body };
}

function clusterFileOf(page: ApiPage): string {
  const folders = page.cluster ? page.cluster.split('/') : [];
  // The server only stores slug paths as clusters; checking again keeps a path like `../x` out of the file system.
  if (!folders.every(isSafeSlug)) throw new CliError(`The page "${page.title}" has a cluster that is not a safe folder name: "${page.cluster}".`);
  const fileName = `${fileNameOfTitle(page.title)}.md`;
  if (Buffer.byteLength(fileName) > MAX_FILE_NAME_BYTES) {
    throw new CliError(`The title of "${page.slug}" is too long for a file name (${Buffer.byteLength(fileName)} bytes once encoded; file systems allow ${MAX_FILE_NAME_BYTES}). Nothing was written.`);
  }
  return [...folders, fileName].join('/');
}
