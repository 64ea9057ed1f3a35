import { describe, expect, it } from 'vitest';
import { headingText, highlightQuote, passageHref } from '../../src/pages/evidence.js';

describe('highlightQuote: the quote inside its chunk', () => {
  it('finds a verbatim quote and keeps the text around it', () => {
    expect(highlightQuote('Install PostgreSQL on Linux with apt.', 'PostgreSQL on Linux')).toEqual({
      before: 'Install ', match: 'PostgreSQL on Linux', after: ' with apt.', found: true,
    });
  });

  it('forgives case and whitespace (line breaks, doubled spaces), as the extractor’s verification does', () => {
    const h = highlightQuote('Ada   Lovelace\nwrote the first\tprogram.', 'ada lovelace wrote the first program');
    expect(h).toEqual({ before: '', match: 'Ada Lovelace wrote the first program', after: '.', found: true });
  });

  it('shows the chunk and the quote as plain text: no Markdown syntax, no comments', () => {
    const h = highlightQuote('Intro %%hidden note%% here.\n\nSee **the [[Page Graph|graph]]** now, with `code`.\n\n```js\nx()\n```', 'the [[Page Graph|graph]]');
    expect(h).toEqual({ before: 'Intro here.\nSee ', match: 'the graph', after: ' now, with code.\nx()', found: true });
  });

  it('finds a quote the source wrote across syntax by its plain reading', () => {
    expect(highlightQuote('The **Page Graph** is _exact_.', 'The **Page Graph** is _exact_').match).toBe('The Page Graph is exact');
  });

  it('treats regular-expression characters in the quote literally', () => {
    expect(highlightQuote('Use C++ (or C#) [sometimes].', 'c++ (or c#) [sometimes]').match).toBe('C++ (or C#) [sometimes]');
  });

  it('cuts long context at word boundaries, with an ellipsis', () => {
    const before = 'word '.repeat(200);
    const after = ' tail'.repeat(200);
    const h = highlightQuote(`${before}NEEDLE${after}`, 'NEEDLE', 40);
    expect(h.before.startsWith('…')).toBe(true);
    expect(h.before.length).toBeLessThanOrEqual(41);
    expect(h.before.endsWith('word ')).toBe(true);
    expect(h.after.endsWith('…')).toBe(true);
    expect(h.after.length).toBeLessThanOrEqual(41);
  });

  it('says when the quote is not in the chunk (it is then shown on its own)', () => {
    expect(highlightQuote('Something else entirely.', 'missing words')).toEqual({ before: 'Something else entirely.', match: '', after: '', found: false });
    expect(highlightQuote('Text', '   ').found).toBe(false);
  });
});

describe('passage links', () => {
  it('link to the heading the passage sits under: its stored anchor, which knows a repeated heading', () => {
    expect(passageHref('install-guide', { headingPath: ['Windows', 'Setup'], anchor: 'setup-2' })).toBe('/page/install-guide#setup-2');
    expect(passageHref('notes', { headingPath: [], anchor: null })).toBe('/page/notes');
    expect(headingText(['Setup', 'Linux'])).toBe('Setup › Linux');
  });

  it('fall back to the heading’s own slug for a chunk stored before anchors were', () => {
    expect(passageHref('install-guide', { headingPath: ['Setup', 'Linux & BSD'], anchor: null })).toBe('/page/install-guide#linux-bsd');
    expect(passageHref('notes', { headingPath: ['🎉'] })).toBe('/page/notes#section');
    expect(passageHref('a b', { headingPath: ['X'] })).toBe('/page/a%20b#x');
  });
});
