import { DIRECTION_OVERRIDE } from './invisible-controls.js';

/** The longest path a file or page may have in a vault (the wiki's files, `kurate import` and `kurate export`). */
export const MAX_VAULT_PATH_LENGTH = 1000;
export const MARKDOWN_FILE = /\.(?:md|markdown)$/i;
// Control characters and the backslash (a Windows separator that would make one name two folders elsewhere).
const UNSAFE = /[\u0000-\u001f\u007f\\]/;

/**
 * Why a path inside a vault cannot be used, or null: it must be relative, `/`-separated, with no empty, `.` or `..`
 * step, no dot-file or dot-folder (tool state such as `.obsidian`), no control character, text-direction override
 * or backslash, and no name that starts or ends with a space. What a file's path and a page's path have in common.
 */
export function pathStepsProblem(path: string): string | null {
  if (path.length === 0) return 'it is empty';
  if (path.length > MAX_VAULT_PATH_LENGTH) return `it is longer than ${MAX_VAULT_PATH_LENGTH} characters`;
  if (UNSAFE.test(path)) return 'it contains a control character or a backslash';
  // `invoice\u202Egnp.exe` would show as `invoiceexe.png`.
  if (DIRECTION_OVERRIDE.test(path)) return 'it contains a text-direction override (such as U+202E), which makes a name look like another';
  if (path.startsWith('/')) return 'it must be relative (no leading "/")';
  const steps = path.split('/');
  if (steps.some((step) => step === '' || step === '.' || step === '..')) return 'it has an empty, "." or ".." step';
  if (steps.some((step) => step.startsWith('.'))) return 'a file or folder name starts with "." (hidden tool state is not imported)';
  if (steps.some((step) => step.trim() !== step)) return 'a file or folder name starts or ends with a space';
  return null;
}

/**
 * Why a page's file path in a vault (`Getting started/Index.md`, kept by `kurate import` so that `kurate export`
 * writes the page back there) cannot be used, or null: the rules of any path, and a Markdown extension.
 */
export function vaultPagePathProblem(raw: string): string | null {
  const path = raw.normalize('NFC');
  return pathStepsProblem(path) ?? (MARKDOWN_FILE.test(path) ? null : 'it is not a .md or .markdown file');
}
