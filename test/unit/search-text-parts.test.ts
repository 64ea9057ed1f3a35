import { describe, expect, it } from 'vitest';
import { textParts } from '../../src/pages/search-text-parts.js';

describe('textParts: a long text cut for its lexemes, a part at a time', () => {
  it('keeps a text of at most `max` characters whole', () => {
    expect(textParts('short text', 100)).toEqual(['short text']);
    expect(textParts('x'.repeat(100), 100)).toEqual(['x'.repeat(100)]);
    expect(textParts('', 100)).toEqual(['']);
  });

  it('cuts after the last line break of each part’s second half, so that the parts joined are the text', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i} with words`).join('\n');
    const parts = textParts(text, 120);
    expect(parts.join('')).toBe(text);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(120);
    for (const part of parts.slice(0, -1)) expect(part.endsWith('\n')).toBe(true);
  });

  it('cuts after a space where a part has no line break, and never inside a word', () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
    const text = words.join(' ');
    const parts = textParts(text, 64);
    expect(parts.join('')).toBe(text);
    expect(parts.flatMap((p) => p.split(' ').filter(Boolean))).toEqual(words);
  });

  it('cuts a part without whitespace at `max`, but not between the two halves of a surrogate pair', () => {
    const text = '😀'.repeat(100); // 200 UTF-16 code units, no whitespace
    const parts = textParts(text, 33);
    expect(parts.join('')).toBe(text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(33);
      expect(part.length % 2).toBe(0);
    }
  });
});
