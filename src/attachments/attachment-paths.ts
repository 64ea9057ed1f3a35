import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { MARKDOWN_FILE, MAX_VAULT_PATH_LENGTH, pathStepsProblem } from '../common/vault-paths.js';

export const MAX_ATTACHMENT_PATH_LENGTH = MAX_VAULT_PATH_LENGTH;

/**
 * A file's path in the wiki, as a vault writes it (`assets/Logo 1.png`), checked: relative, `/`-separated, no empty,
 * `.` or `..` step, no dot-file or dot-folder (tool state such as `.obsidian`), no control character, not a Markdown
 * file (those are pages). Letter case and spaces are kept: an export writes the same name back.
 */
export function checkedAttachmentPath(raw: string): string {
  const path = raw.normalize('NFC');
  const problem = pathProblem(path);
  if (problem) throw new DomainException(DomainErrorCode.InvalidInput, `The file path "${raw.slice(0, 200)}" cannot be used: ${problem}.`);
  return path;
}

function pathProblem(path: string): string | null {
  const problem = pathStepsProblem(path);
  if (problem) return problem;
  if (MARKDOWN_FILE.test(path)) return 'Markdown files are pages: import them as pages';
  return null;
}

/** The file name of a path, lower-cased: what link resolution looks files up by first. */
export function nameKeyOf(path: string): string {
  return baseNameOf(path).normalize('NFC').toLowerCase();
}

export function baseNameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `/files/assets/Logo%201.png`: each step percent-encoded. */
export function fileUrlOf(path: string): string {
  return `/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The stored file a reference names, as Obsidian finds it: the reference is a path's tail (`logo.png`,
 * `assets/logo.png`), compared without regard to letter case. The file whose whole path it is wins; otherwise the
 * shallowest match (fewest folders), then the first by path, so an ambiguous name always reaches the same file (the
 * rule import uses for two notes with one name).
 */
export function pickFile<T extends { path: string }>(target: string, candidates: readonly T[]): T | null {
  const wanted = target.normalize('NFC').toLowerCase();
  let best: T | null = null;
  let bestRank: [number, number, string] | null = null;
  for (const candidate of candidates) {
    const path = candidate.path.toLowerCase();
    if (path !== wanted && !path.endsWith(`/${wanted}`)) continue;
    const rank: [number, number, string] = [path === wanted ? 0 : 1, path.split('/').length, candidate.path];
    if (!bestRank || compareRank(rank, bestRank) < 0) {
      best = candidate;
      bestRank = rank;
    }
  }
  return best;
}

function compareRank(a: [number, number, string], b: [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}

/**
 * A free path for a new upload next to a taken one, the way Obsidian names copies: `photo.png`, `photo 1.png`,
 * `photo 2.png`, …
 */
export function numberedPath(path: string, n: number): string {
  const slash = path.lastIndexOf('/');
  const folder = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${folder}${name.slice(0, dot)} ${n}${name.slice(dot)}` : `${folder}${name} ${n}`;
}

/** What an author writes to embed a stored file: `![[photo.png]]`, or a Markdown image when the name would break a wikilink. */
export function embedSnippetOf(path: string): string {
  if (/[[\]|#^]/.test(path)) return `![${baseNameOf(path).replace(/[[\]]/g, '')}](${path.split('/').map(encodeURIComponent).join('/')})`;
  return `![[${path}]]`;
}
