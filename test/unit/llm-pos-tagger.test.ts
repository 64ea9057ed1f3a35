import { describe, expect, it } from 'vitest';
import { tagSentences, type TaggedTerm } from '../../src/extractors/builtin/pos-tagger.js';

const words = (terms: TaggedTerm[]) => terms.map((t) => t.text);
const term = (sentences: TaggedTerm[][], text: string) => sentences.flat().find((t) => t.text === text)!;

describe('the part-of-speech tagger of the built-in extractor', () => {
  it('splits sentences, and keeps line breaks and punctuation out of the words', () => {
    const sentences = tagSentences('Foam links notes.\nThe graph view shows them!');
    expect(sentences.map(words)).toEqual([['Foam', 'links', 'notes'], ['The', 'graph', 'view', 'shows', 'them']]);
    expect(term(sentences, 'notes').post).toMatch(/^\.\s*$/);
  });

  it('keeps punctuation stuck to a word in front of it (pre) or after it (post)', () => {
    const sentences = tagSentences('Open the panel (the Explorer), then "Foam: Create" - done.');
    expect(term(sentences, 'the').pre).toBe('');
    expect(sentences.flat().filter((t) => t.pre === '(').map((t) => t.text)).toEqual(['the']);
    expect(term(sentences, 'Explorer').post).toBe('), ');
    expect(term(sentences, 'Foam').pre).toBe('"');
    expect(term(sentences, 'Create').post).toBe('" - ');
  });

  it('keeps `node.js`, `C++`, `C#`, hyphenated names and clitics as the words they are', () => {
    const sentences = tagSentences("Use node.js with C++ and C#. Tim Berners-Lee isn't VS Code's author.");
    expect(sentences.map(words)).toEqual([
      ['Use', 'node.js', 'with', 'C++', 'and', 'C#'],
      ['Tim', 'Berners', 'Lee', "isn't", 'VS', "Code's", 'author'],
    ]);
    expect(term(sentences, 'Berners').post).toBe('-');
    expect(term(sentences, "Code's").tags.has('Possessive')).toBe(true);
    expect(term(sentences, "isn't").tags.has('Negative')).toBe(true);
  });

  it('tags a text alike whatever it read before: a clitic says what it is, split or whole', () => {
    const probe = () => tagSentences("VS Code's author isn't here; tomorrow's notes are.").flat()
      .map((t) => `${t.text}/${[...t.tags].sort().join('+')}`);
    const before = probe();
    expect(before).toEqual(expect.arrayContaining(["Code's/Noun+Possessive+ProperNoun", "tomorrow's/Noun+Possessive"]));
    // wink's tokenizer keeps `Code's` whole once it has met it before punctuation (its token cache grows with every
    // text read in the process), so the extraction of one page used to change how the next one was tagged.
    tagSentences("Prefer these versions over VS Code's. It has tomorrow's date, and isn't late.");
    expect(probe()).toEqual(before);
  });

  it('tags words in context, and names from the lexicon only when capitalised', () => {
    const sentences = tagSentences('Tim moved to Geneva and joined Microsoft. Mark the preview pane, then bill them.');
    expect([...term(sentences, 'Tim').tags]).toEqual(expect.arrayContaining(['FirstName', 'Person']));
    expect(term(sentences, 'Geneva').tags.has('Place')).toBe(true);
    expect(term(sentences, 'Microsoft').tags.has('Organization')).toBe(true);
    expect(term(sentences, 'preview').tags.has('Noun')).toBe(true);
    expect(term(sentences, 'joined').tags.has('Verb')).toBe(true);
    // `bill` is a first name in the lexicon, but not in lower case.
    expect(term(sentences, 'bill').tags.has('Person')).toBe(false);
  });

  it('answers empty text with no sentences', () => {
    expect(tagSentences('')).toEqual([]);
    expect(tagSentences('  \n ')).toEqual([]);
  });
});
