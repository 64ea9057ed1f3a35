import { describe, expect, it } from 'vitest';
import { cachedSnippet, heldSentences, heldTextKeys, keepSnippet, snippetSource } from '../../src/search/snippets.js';

/**
 * The snippet and sentence caches, keyed by a key that names a card's text for good (the search uses content
 * hashes: an edited text is another key).
 */
describe('the snippet cache', () => {
  it('keeps a snippet by the text\'s key and the words, and finds it again from a copy of the key', () => {
    keepSnippet('p:daily', 'daily notes', 'It speaks of daily notes …');
    keepSnippet('p:daily', 'templates', '… and of templates.');
    const copy = [...'p:daily'].join(''); // another string with the same characters, as a later query reads it
    expect(cachedSnippet(copy, 'daily notes')).toBe('It speaks of daily notes …');
    expect(cachedSnippet(copy, 'templates')).toBe('… and of templates.');
    expect(cachedSnippet(copy, 'daily')).toBeUndefined();
  });

  it('finds nothing for another text\'s key or for words joined differently', () => {
    keepSnippet('p:notes', 'notes', 'of daily notes');
    expect(cachedSnippet('p:notes2', 'notes')).toBeUndefined();
    expect(cachedSnippet('p:notes', 'notes ')).toBeUndefined();
  });

  it('keeps at most 32 questions per text, dropping the oldest first', () => {
    for (let i = 0; i < 33; i++) keepSnippet('p:another', `question ${i}`, `snippet ${i}`);
    expect(cachedSnippet('p:another', 'question 0')).toBeUndefined();
    expect(cachedSnippet('p:another', 'question 1')).toBe('snippet 1');
    expect(cachedSnippet('p:another', 'question 32')).toBe('snippet 32');
  });

  it('does not hold the sentences of a text of over a quarter of the cache (a search reads such a text every time)', () => {
    const huge = 'Word. '.repeat(800_000);
    expect(snippetSource({ key: 'p:huge', text: huge }, 'word', 'huge-page').sentences.length).toBeGreaterThan(1);
    expect(heldSentences('p:huge')).toBeUndefined();
    expect(heldTextKeys('huge-page')).toEqual([]);
  });
});
