import { describe, expect, it } from 'vitest';
import { diffRevisions } from '../../src/pages/revision-diff.js';

describe('diffRevisions', () => {
  it('reports nothing for identical texts', () => {
    expect(diffRevisions('a\nb\n', 'a\nb\n')).toEqual({ added: 0, removed: 0, hunks: [] });
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
    expect(diffRevisions('a\nb', 'a\nb\n')).toEqual({ added: 0, removed: 0, hunks: [] });
  });
});
