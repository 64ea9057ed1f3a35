// Which of the reader's words a synonym may stand in for: the common nouns, verbs and adjectives of the query, as the
// tagger reads them in context (`notes` is a noun in "unlinked notes", a verb in "she notes"). Names (proper nouns),
// numbers and function words never are.
import { tagSentences } from '../extractors/builtin/pos-tagger.js';
import type { PartOfSpeech } from './wordnet-synonyms.js';

export function querySynonymCandidates(query: string): { word: string; pos: PartOfSpeech }[] {
  if (query.trim() === '') return [];
  const out: { word: string; pos: PartOfSpeech }[] = [];
  for (const term of tagSentences(query).flat()) {
    if (term.tags.has('ProperNoun') || term.tags.has('Pronoun') || !/^\p{Ll}[\p{Ll}'-]*$/u.test(term.text.toLowerCase())) continue;
    const pos: PartOfSpeech | null = term.tags.has('Noun') ? 'noun' : term.tags.has('Verb') ? 'verb' : term.tags.has('Adjective') ? 'adj' : null;
    if (pos) out.push({ word: term.text.toLowerCase(), pos });
  }
  return out;
}
