import { constants, type Dirent } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './kurate-client.js';
import { isMarkdownFileName } from './file-names.js';

export interface VaultFile {
  /** Path inside the vault with `/` separators, e.g. `user/features/tags.md`. */
  relativePath: string;
  absolutePath: string;
}

export interface SkippedEntry {
  relativePath: string;
  reason: string;
}

export interface VaultScan {
  /** The vault folder with every symlink resolved: nothing outside it is ever read. */
  root: string;
  /** The Markdown files (pages). */
  files: VaultFile[];
  /** Every other regular file (images, PDFs, recordings…): attachments, kept at their paths. */
  attachments: VaultFile[];
  skipped: SkippedEntry[];
}

/**
 * Lists the files of a vault, recursively and in a stable order: Markdown files (`.md`, `.markdown`) are pages, every
 * other regular file an attachment. Symbolic links are never followed (they could lead anywhere) and dot entries
 * (`.git`, `.obsidian`, `.foam`, hidden files) are tool state, not notes.
 */
export async function scanVault(folder: string): Promise<VaultScan> {
  const root = await resolveFolder(folder);
  const files: VaultFile[] = [];
  const attachments: VaultFile[] = [];
  const skipped: SkippedEntry[] = [];
  const walk = async (dir: string, relative: string[]): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const relativePath = [...relative, entry.name].join('/');
      const absolutePath = path.join(dir, entry.name);
      // Dirent types come from lstat: a symlink reports as a symlink, never as what it points at.
      if (entry.isSymbolicLink()) skipped.push({ relativePath, reason: 'symbolic link (not followed)' });
      else if (entry.isDirectory()) await walk(absolutePath, [...relative, entry.name]);
      else if (isMarkdownEntry(entry)) files.push({ relativePath, absolutePath });
      else if (entry.isFile()) attachments.push({ relativePath, absolutePath });
    }
  };
  await walk(root, []);
  return { root, files, attachments, skipped };
}

/**
 * Reads one file found by {@link scanVault}, refusing it if the path now leads outside the vault (a folder swapped
 * for a symlink since the scan) or to anything but a regular file.
 */
export async function readVaultFile(root: string, file: VaultFile): Promise<string> {
  return (await readVaultBytes(root, file)).toString('utf8');
}

/** The bytes of a file found by {@link scanVault}, with the same refusals as {@link readVaultFile}. */
export async function readVaultBytes(root: string, file: VaultFile): Promise<Buffer> {
  const real = await realpath(file.absolutePath);
  if (!isInside(root, real)) throw new CliError(`Refusing to read ${file.relativePath}: it resolves outside ${root}.`);
  // O_NOFOLLOW closes the gap between the check above and the open for the last path step (0 where unsupported).
  const handle = await open(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new CliError(`Refusing to read ${file.relativePath}: it is not a regular file.`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

async function resolveFolder(folder: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(folder);
  } catch {
    throw new CliError(`No such folder: ${folder}`);
  }
  if (!(await stat(root)).isDirectory()) throw new CliError(`Not a folder: ${folder}`);
  return root;
}

function isMarkdownEntry(entry: Dirent): boolean {
  return entry.isFile() && isMarkdownFileName(entry.name);
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
