import { describe, expect, it } from 'vitest';
import { diffRevisions, MAX_EDIT_LENGTH } from '../../src/pages/revision-diff.js';

describe('diffRevisions', () => {
  it('reports nothing for identical texts', () => {
    expect(diffRevisions('a\nb\n', 'a\nb\n')).toEqual({ added: 0, removed: 0, hunks: [], coarse: false });
  });

  it('numbers old and new lines and keeps three lines of context', () => {
    const old = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].join('\n');
    const next = old.replace('5', 'five');
    const diff = diffRevisions(old, next);
    expect(diff).toMatchObject({ added: 1, removed: 1 });
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0].lines.map((l) => [l.kind, l.oldNumber, l.newNumber, l.text])).toEqual([
      ['same', 2, 2, '2'], ['same', 3, 3, '3'], ['same', 4, 4, '4'],
      ['removed', 5, null, '5'], ['added', null, 5, 'five'],
      ['same', 6, 6, '6'], ['same', 7, 7, '7'], ['same', 8, 8, '8'],
    ]);
  });

  it('folds long unchanged runs into separate hunks', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const next = [...lines];
    next[1] = 'changed 2';
    next[27] = 'changed 28';
    const diff = diffRevisions(lines.join('\n'), next.join('\n'), 2);
    expect(diff.hunks).toHaveLength(2);
    expect(diff.hunks[1].lines[0]).toEqual({ kind: 'same', oldNumber: 26, newNumber: 26, text: 'line 26' });
  });

  it('handles added and removed trailing lines and CRLF text', () => {
    expect(diffRevisions('a\r\nb', 'a\r\nb\r\nc')).toMatchObject({ added: 1, removed: 0 });
    expect(diffRevisions('', 'new')).toMatchObject({ added: 1, removed: 0 });
    expect(diffRevisions('a\nb', 'a\nb\n')).toEqual({ added: 0, removed: 0, hunks: [], coarse: false });
  });
  it(`gives up matching past ${MAX_EDIT_LENGTH} changed lines: the common start and end stay, the middle shows as removed then added`, () => {
    const old = Array.from({ length: 10_000 }, (_, i) => `a${i}`);
    const next = old.map((line, i) => (i % 2 === 0 && i > 0 && i < 9_998 ? `b${i}` : line));
    const diff = diffRevisions(old.join('\n'), next.join('\n'), 1);
    expect(diff.coarse).toBe(true);
    // a0 and a1 are the same at the start, a9997–a9999 at the end.
    expect(diff.removed).toBe(9_995);
    expect(diff.added).toBe(9_995);
    const rows = diff.hunks.flatMap((h) => h.lines);
    expect(rows[0]).toEqual({ kind: 'same', oldNumber: 2, newNumber: 2, text: 'a1' });
    expect(rows[1]).toEqual({ kind: 'removed', oldNumber: 3, newNumber: null, text: 'a2' });
    expect(rows.at(-1)).toEqual({ kind: 'same', oldNumber: 9_998, newNumber: 9_998, text: 'a9997' });
    // A few changes in a long text are still matched line by line.
    const few = diffRevisions(old.join('\n'), old.map((line, i) => (i % 1000 === 0 ? `c${i}` : line)).join('\n'));
    expect(few).toMatchObject({ coarse: false, added: 10, removed: 10 });
  });
});
