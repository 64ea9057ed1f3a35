import { describe, expect, it } from 'vitest';
import { cachedSnippet, keepSnippet } from '../../src/search/snippets.js';

describe('the snippet cache', () => {
  const text = `# A page\n\nIt speaks of daily notes and of templates. ${'Filler words go here. '.repeat(50)}`;

  it('keeps a snippet by the text and the words, and finds it again from a copy of the text', () => {
    keepSnippet(text, 'daily notes', 'It speaks of daily notes …');
    keepSnippet(text, 'templates', '… and of templates.');
    const copy = [...text].join(''); // another string with the same characters, as a later query reads it
    expect(cachedSnippet(copy, 'daily notes')).toBe('It speaks of daily notes …');
    expect(cachedSnippet(copy, 'templates')).toBe('… and of templates.');
    expect(cachedSnippet(copy, 'daily')).toBeUndefined();
  });

  it('finds nothing for an edited text or for words joined differently', () => {
    keepSnippet(text, 'notes', 'of daily notes');
    expect(cachedSnippet(`${text}!`, 'notes')).toBeUndefined();
    expect(cachedSnippet(text, 'notes ')).toBeUndefined();
    // The old key joined the words and the text with NUL: words ending in NUL plus a text must not collide.
    expect(cachedSnippet(text.slice(1), `notes\u0000${text[0]}`)).toBeUndefined();
  });

  it('keeps at most 32 questions per text, dropping the oldest first', () => {
    const page = `Another page. ${'More words. '.repeat(20)}`;
    for (let i = 0; i < 33; i++) keepSnippet(page, `question ${i}`, `snippet ${i}`);
    expect(cachedSnippet(page, 'question 0')).toBeUndefined();
    expect(cachedSnippet(page, 'question 1')).toBe('snippet 1');
    expect(cachedSnippet(page, 'question 32')).toBe('snippet 32');
  });

  it('does not keep a text of over a quarter of the cache', () => {
    const huge = 'word '.repeat(500_000);
    keepSnippet(huge, 'word', 'word word');
    expect(cachedSnippet(huge, 'word')).toBeUndefined();
  });
});
