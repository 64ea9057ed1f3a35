// Which of the reader's words a synonym may stand in for: the common nouns, verbs and adjectives of the query, as the
// tagger reads them in context (`notes` is a noun in "unlinked notes", a verb in "she notes"). Names (proper nouns),
// numbers and function words never are.
import { LRUCache } from 'lru-cache';
import { tagSentences } from '../extractors/builtin/pos-tagger.js';
import { isEnglishWord } from '../common/wordnet.js';
import type { PartOfSpeech } from './wordnet-synonyms.js';

type SynonymCandidate = { readonly word: string; readonly pos: PartOfSpeech };

/**
 * The candidates of a query, kept by the query's text: tagging depends on nothing else, readers' questions repeat,
 * and the tagger was about 2% of the web process's time under the mixed load of `npm run bench`.
 */
const candidatesOfQuery = new LRUCache<string, readonly SynonymCandidate[]>({ max: 5_000 });

export function querySynonymCandidates(query: string): readonly SynonymCandidate[] {
  if (query.trim() === '') return [];
  let out = candidatesOfQuery.get(query);
  if (!out) {
    out = Object.freeze(tagged(query).map((candidate) => Object.freeze(candidate)));
    // A pasted page is not kept: only questions repeat.
    if (query.length <= 500) candidatesOfQuery.set(query, out);
  }
  return out;
}

function tagged(query: string): SynonymCandidate[] {
  const out: SynonymCandidate[] = [];
  for (const term of tagSentences(query).flat()) {
    if (term.tags.has('ProperNoun') || term.tags.has('Pronoun') || !/^\p{Ll}[\p{Ll}'-]*$/u.test(term.text.toLowerCase())) continue;
    const pos: PartOfSpeech | null = term.tags.has('Noun') ? 'noun' : term.tags.has('Verb') ? 'verb' : term.tags.has('Adjective') ? 'adj' : null;
    if (pos) out.push({ word: term.text.toLowerCase(), pos });
  }
  return out;
}

/** A word shorter than this is never read as two. */
const MIN_COMPOUND_LENGTH = 7;
const MIN_PART_LENGTH = 3;

/**
 * The two words of the language a closed compound is made of, when the word itself is not one (WordNet 3.1 lists
 * neither it nor its base forms): `hashtags` → `hash tags`, `mindmap` → `mind map`. Of the splits whose parts are both
 * words (at least three letters each), the most even one; null when there is none (`transclusion`, `unlinked`), or
 * when the word is one of the language (`therapist` is never `the rapist`). Search looks for the parts as it looks for
 * a synonym: only while the word itself is in no page.
 */
export function compoundParts(word: string): [string, string] | null {
  const lower = word.toLowerCase();
  if (lower.length < MIN_COMPOUND_LENGTH || !/^\p{Ll}+$/u.test(lower) || isEnglishWord(lower)) return null;
  let best: [string, string] | null = null;
  for (let at = MIN_PART_LENGTH; at <= lower.length - MIN_PART_LENGTH; at++) {
    const [head, tail] = [lower.slice(0, at), lower.slice(at)];
    if (!isEnglishWord(head) || !isEnglishWord(tail)) continue;
    if (!best || Math.min(head.length, tail.length) > Math.min(best[0].length, best[1].length)) best = [head, tail];
  }
  return best;
}

/**
 * The closed spelling of a hyphenated word (`to-do` → `todo`, `e-mail` → `email`, `set-up` → `setup`): PostgreSQL
 * keeps `to-do` as one lexeme (its parts are stop words), which a page that writes `todo` never holds. Null for a word
 * without a hyphen between letters, or one whose closed spelling is shorter than four letters.
 */
export function closedSpelling(word: string): string | null {
  const lower = word.toLowerCase();
  if (!/^\p{L}+(?:-\p{L}+)+$/u.test(lower)) return null;
  const closed = lower.replace(/-/g, '');
  return closed.length >= 4 ? closed : null;
}
