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
}

/** A line-based diff, as hunks with `context` unchanged lines around each change (long unchanged runs folded). */
export function diffRevisions(oldText: string, newText: string, context = 3): RevisionDiff {
  const lines: DiffLine[] = [];
  let oldNumber = 1;
  let newNumber = 1;
  // Compared as arrays of lines, so line endings and a missing final newline are not changes.
  for (const part of diffArrays(splitLines(oldText), splitLines(newText))) {
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
  };
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
}
