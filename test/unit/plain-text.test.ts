import { describe, expect, it } from 'vitest';
import { plainInline, plainText } from '../../src/pages/markdown/plain-text.js';
import { heldSentences, heldTextKeys, MARK_END, MARK_START, sentencesOf, snippetSource, snippetWindow } from '../../src/search/snippets.js';

/** A card whose text is named by itself (the search names it by a content hash). */
const card = (text: string) => ({ key: `t:${text}`, text });

describe('plainText: Markdown as a person reads it', () => {
  it('drops emphasis, link syntax and code fences, keeping their text', () => {
    expect(plainText('Some **bold**, _em_, ~~gone~~ and `code`.')).toBe('Some bold, em, gone and code.');
    expect(plainText('[[Page Graph|the graph]], [[Setup#Linux]], [[Plain]] and [a link](https://x.example)')).toBe('the graph, Setup › Linux, Plain and a link');
    expect(plainText('```ts\nconst x = 1;\n```')).toBe('const x = 1;');
  });

  it('gives one line per block and no blank lines', () => {
    expect(plainText('# Title\n\nFirst paragraph\ncontinues.\n\n- one\n- two\n\n> quoted\n\n| a | b |\n| - | - |\n| 1 | 2 |')).toBe(
      'Title\nFirst paragraph continues.\none\ntwo\nquoted\na b\n1 2',
    );
  });

  it('removes comments, inline and block', () => {
    const text = plainText('Shown %%secret one%% text.\n\n%%\nsecret two\n%%\n\nEnd.');
    expect(text).toBe('Shown text.\nEnd.');
    expect(text).not.toContain('secret');
  });

  it('reads Obsidian syntax: callout titles without [!type], highlights, tasks, tags, block ids, math, footnotes', () => {
    expect(plainText('> [!tip]- Use **this**\n> Body ==marked==')).toBe('Use this\nBody marked');
    expect(plainText('- [x] done #tag ^block1\n\nSee $e^x$.[^1]\n\n[^1]: Note.')).toBe('done #tag\nSee e^x.\nNote.');
  });

  it('keeps image alt text and the text of HTML, not its tags', () => {
    expect(plainText('![a diagram](d.png) and <b>bold</b>\n\n<div>block <i>html</i></div>')).toBe('a diagram and bold\nblock html');
  });

  it('returns prose without syntax as it is', () => {
    expect(plainText('Just words, nothing else.')).toBe('Just words, nothing else.');
  });

  it('reads one line of inline Markdown', () => {
    expect(plainInline('Setup **Linux** [[Page|here]]')).toBe('Setup Linux here');
  });
});

describe('snippets', () => {
  it('cuts plain text into sentences at ends of sentences and of blocks', () => {
    expect(sentencesOf('One. Two? Three!\nA list item\nv1.2 stays whole. 4 starts.')).toEqual(['One.', 'Two?', 'Three!', 'A list item', 'v1.2 stays whole.', '4 starts.']);
  });

  it('offers the sentences that share the start of a query word as candidates, else the first', () => {
    const source = snippetSource(card('# Intro\n\nNothing here. The **graph** view draws pages. Graphs grow.'), 'graphs');
    expect(source.sentences).toEqual(['Intro', 'Nothing here.', 'The graph view draws pages.', 'Graphs grow.']);
    expect(source.candidates).toEqual([2, 3]);
    expect(snippetSource(card('Alpha. Beta.'), 'zeta').candidates).toEqual([0]);
  });

  it("keeps the database's match marks out of the sentences: a page cannot write a mark of its own", () => {
    expect(sentencesOf(`Brackets ⟦like these⟧ stay. Marks ${MARK_START}do not${MARK_END}.`)).toEqual(['Brackets ⟦like these⟧ stay.', 'Marks do not.']);
  });

  it('builds the window around the best sentence, with ellipses where text was left out', () => {
    const source = snippetSource(card(Array.from({ length: 12 }, (_v, i) => `Sentence number ${i} has six words.`).join(' ')), 'number');
    const marked = new Map([[5, `Sentence ${MARK_START}number${MARK_END} 5 has six words.`]]);
    const window = snippetWindow(source, 5, marked);
    expect(window.startsWith('… ')).toBe(true);
    expect(window.endsWith(' …')).toBe(true);
    expect(window).toContain(`Sentence ${MARK_START}number${MARK_END} 5 has six words.`);
    expect(window.split(/\s+/).length).toBeLessThanOrEqual(50);
  });

  it('reads a text parsed before from memory, and an edited text afresh, for each query its own candidates', () => {
    const first = snippetSource(card('Graphs grow. Tags sort.'), 'tags');
    const again = snippetSource(card('Graphs grow. Tags sort.'), 'graphs');
    expect(again.sentences).toBe(first.sentences);
    expect(Object.isFrozen(again.sentences)).toBe(true);
    expect([first.candidates, again.candidates]).toEqual([[1], [0]]);
    expect(snippetSource(card('Graphs grow. Tags sort well.'), 'tags').sentences).toEqual(['Graphs grow.', 'Tags sort well.']);
  });

  it('names the texts it holds by page, so that a search need not read them again, and makes sentences from them alone', () => {
    const first = snippetSource({ key: 'p:one', text: 'Ropes coil. Knots hold.' }, 'knots', 'page-1');
    snippetSource({ key: 'c:two', text: 'A bowline loops.' }, 'bowline', 'page-1');
    expect(heldTextKeys('page-1')).toEqual(['p:one', 'c:two']);
    expect(heldTextKeys('page-2')).toEqual([]);
    // The text left out: its held sentences stand in for it, also once the cache has let them go.
    const sentences = heldSentences('p:one')!;
    expect(sentences).toBe(first.sentences);
    expect(snippetSource({ key: 'p:one', text: null, sentences }, 'ropes', 'page-1')).toEqual({ sentences, candidates: [0] });
    expect(snippetSource({ key: 'p:one', text: null }, 'ropes', 'page-1').sentences).toBe(sentences);
    expect(() => snippetSource({ key: 'p:never-read', text: null }, 'ropes', 'page-1')).toThrow(/neither read nor held/);
  });
});
