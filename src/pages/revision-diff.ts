import { diffArrays } from 'diff';

export interface DiffLine {
  kind: 'added' | 'removed' | 'same';
  /** Line numbers in the old and the new text (null where the line is absent). */
  oldNumber: number | null;
  newNumber: number | null;
  text: string;
}

export interface DiffHunk {
  lines: DiffLine[];
}

export interface RevisionDiff {
  added: number;
  removed: number;
  hunks: DiffHunk[];
  /**
   * True when the texts differ in more than MAX_EDIT_LENGTH lines: the lines between the first and the last change
   * are shown as removed, then added, rather than matched line by line.
   */
  coarse: boolean;
}

/**
 * The most changed lines matched one by one. Matching costs time in proportion to the lines times the changes (Myers'
 * algorithm): 10,000 lines with every other one changed took 8 s of the server's only thread. Beyond this it gives up
 * early, and the middle of the texts is shown replaced.
 */
export const MAX_EDIT_LENGTH = 1_000;

/** A line-based diff, as hunks with `context` unchanged lines around each change (long unchanged runs folded). */
export function diffRevisions(oldText: string, newText: string, context = 3): RevisionDiff {
  const lines: DiffLine[] = [];
  let oldNumber = 1;
  let newNumber = 1;
  // Compared as arrays of lines, so line endings and a missing final newline are not changes.
  const [oldLines, newLines] = [splitLines(oldText), splitLines(newText)];
  const matched = diffArrays(oldLines, newLines, { maxEditLength: MAX_EDIT_LENGTH });
  const parts = matched ?? replacedMiddle(oldLines, newLines);
  for (const part of parts) {
    for (const text of part.value) {
      if (part.added) lines.push({ kind: 'added', oldNumber: null, newNumber: newNumber++, text });
      else if (part.removed) lines.push({ kind: 'removed', oldNumber: oldNumber++, newNumber: null, text });
      else lines.push({ kind: 'same', oldNumber: oldNumber++, newNumber: newNumber++, text });
    }
  }
  const keep = lines.map(() => false);
  lines.forEach((line, i) => {
    if (line.kind === 'same') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  const hunks: DiffHunk[] = [];
  let current: DiffLine[] | null = null;
  lines.forEach((line, i) => {
    if (!keep[i]) {
      current = null;
      return;
    }
    if (!current) hunks.push({ lines: (current = []) });
    current.push(line);
  });
  return {
    added: lines.filter((l) => l.kind === 'added').length,
    removed: lines.filter((l) => l.kind === 'removed').length,
    hunks,
    coarse: matched === undefined,
  };
}

/** The common first and last lines kept, everything between removed and added (in linear time). */
function replacedMiddle(oldLines: string[], newLines: string[]): { value: string[]; added?: boolean; removed?: boolean }[] {
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (tail < oldLines.length - head && tail < newLines.length - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) tail++;
  return [
    { value: oldLines.slice(0, head) },
    { value: oldLines.slice(head, oldLines.length - tail), removed: true },
    { value: newLines.slice(head, newLines.length - tail), added: true },
    { value: oldLines.slice(oldLines.length - tail) },
  ];
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
}
