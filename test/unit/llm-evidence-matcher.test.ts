import { describe, expect, it } from 'vitest';
import { ChunkText, sentenceRanges } from '../../src/extractors/evidence-matcher.js';

const sentences = (raw: string) => sentenceRanges(raw).map(({ start, end }) => raw.slice(start, end));

describe('sentenceRanges', () => {
  it('splits prose at sentence ends and keeps abbreviations and initials whole', () => {
    expect(sentences('Foam is a tool. It uses VS Code, e.g. for editing. J. R. R. Tolkien wrote books! Did he? Yes.')).toEqual([
      'Foam is a tool.',
      'It uses VS Code, e.g. for editing.',
      'J. R. R. Tolkien wrote books!',
      'Did he?',
      'Yes.',
    ]);
  });

  it('treats headings, list items, quotes and table rows as blocks of their own, and skips fenced code', () => {
    const raw = ['# Title', 'Intro line one', 'continues here.', '', '- item one', '- item two', '> quoted', '', '```js', 'const a = 1. Not prose.', '```', '| a | b |', '|---|---|', '| c | d |'].join('\n');
    expect(sentences(raw)).toEqual(['# Title', 'Intro line one\ncontinues here.', '- item one', '- item two', '> quoted', '| a | b |', '| c | d |']);
  });

  it('returns raw offsets', () => {
    const raw = '  Hello there.  Next one.';
    expect(sentenceRanges(raw)).toEqual([
      { start: 2, end: 14 },
      { start: 16, end: 25 },
    ]);
  });
});

describe('ChunkText.find', () => {
  const chunk = new ChunkText('Café **Noir** serves ﬁne “espresso” — since 1999.\n\nSee [the menu](https://example.com/menu) and [[Prices|our prices]].');

  it.each([
    ['an exact quote', 'serves ﬁne “espresso”', 'verbatim', 'serves ﬁne “espresso”'],
    ['NFKC and straight quotes', 'serves fine "espresso"', 'verbatim', 'serves ﬁne “espresso”'],
    ['a decomposed accent', 'Cafe\u0301 **Noir**', 'verbatim', 'Café **Noir**'],
    ['collapsed whitespace and a plain dash', 'espresso”  - since', 'verbatim', 'espresso” — since'],
    ['markup left out', 'Café Noir serves', 'ignoring-markup', 'Café **Noir** serves'],
    ['a link without its destination', 'See the menu and our prices.', 'ignoring-markup', 'See [the menu](https://example.com/menu) and [[Prices|our prices]].'],
    ['other case', 'CAFÉ NOIR', 'case-insensitive', 'Café **Noir**'],
  ])('finds %s', (_label, quote, kind, text) => {
    expect(chunk.find(quote)).toMatchObject({ kind, text });
  });

  it('does not take punctuation that is in the chunk for a quote', () => {
    expect(new ChunkText('Wait... what?! -- yes').find('...')).toBeNull();
    expect(new ChunkText('Wait... what?! -- yes').find('?! --')).toBeNull();
  });

  it.each([
    ['a paraphrase', 'Café Noir has served coffee since 1999'],
    ['a quote of two characters', 'No'],
    ['only punctuation', '...'],
    ['the empty string', ''],
  ])('does not find %s', (_label, quote) => {
    expect(chunk.find(quote)).toBeNull();
  });

  it('knows which sentence mentions names, as whole words', () => {
    expect(chunk.mentions('noir')).toBe(true);
    expect(chunk.mentions('oir')).toBe(false);
    expect(chunk.sentenceMentioning(['menu', 'prices'])).toBe('See [the menu](https://example.com/menu) and [[Prices|our prices]].');
    expect(chunk.sentenceMentioning(['espresso', 'menu'])).toBeNull();
  });
});
