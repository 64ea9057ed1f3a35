// Part-of-speech tagging for the built-in extractor: wink-nlp's tokenizer, sentence splitter and tagger (its small
// English model), with compromise's lexicon for what names are (a first name, a city, an organisation). With wink
// instead of compromise's own tokenizer and pre-tagger, the built-in extractor's `extract()` runs about twice as fast
// (bench/builtin-extractor.mjs; bench/RESULTS.md, 2026-11-30): tagging was most of its time.
import nlp from 'compromise/two';
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/**
 * A word with the punctuation around it and its tags: `pre` is punctuation stuck to its front (`(`, `"`), `post`
 * the punctuation and spaces after it (`, `, `-` inside `Berners-Lee`). Tags are compromise's names (Noun,
 * ProperNoun, Adjective, Verb, Person, Place, Organization, …).
 */
export interface TaggedTerm {
  text: string;
  pre: string;
  post: string;
  tags: Set<string>;
}

// Made on first use: the extractor tags chunks, and search tags a query whose words may be widened by synonyms
// (src/search/query-synonyms.ts).
let wink: ReturnType<typeof winkNLP> | null = null;
const tagger = () => (wink ??= winkNLP(model, ['sbd', 'pos']));

/** Universal POS tags (wink) as compromise's tags. */
const POS_TAGS: Record<string, readonly string[]> = {
  NOUN: ['Noun'],
  PROPN: ['Noun', 'ProperNoun'],
  ADJ: ['Adjective'],
  VERB: ['Verb'],
  AUX: ['Verb'],
  ADV: ['Adverb'],
  DET: ['Determiner'],
  PRON: ['Pronoun', 'Noun'],
  ADP: ['Preposition'],
  CCONJ: ['Conjunction'],
  SCONJ: ['Conjunction'],
  NUM: ['Value'],
};

const compromiseModel = nlp.model() as {
  one: { lexicon: Record<string, string | string[] | undefined>; tagSet: Record<string, { parents?: string[] } | undefined> };
};
const LEXICON = compromiseModel.one.lexicon;
const TAG_SET = compromiseModel.one.tagSet;
/** Lexicon tags that hold whatever the context: names (for capitalised words only) and a few closed classes. */
const NAME_ROOTS = new Set(['Person', 'Place', 'Organization', 'Honorific', 'Demonym']);
const CLOSED_CLASS = new Set(['QuestionWord', 'Negative', 'Modal', 'Possessive']);

/** The lexicon's tags of a word (lower-cased), as written there. */
export function lexiconTags(word: string): string[] {
  const tag = LEXICON[word.toLowerCase()];
  return tag === undefined ? [] : Array.isArray(tag) ? tag : [tag];
}

const withParents = (tag: string): string[] => [tag, ...(TAG_SET[tag]?.parents ?? [])];
const lexiconExtras = new Map<string, readonly string[]>();

/** The lexicon tags a word keeps in any context (cached per word form). */
function extraTags(word: string): readonly string[] {
  let extras = lexiconExtras.get(word);
  if (extras === undefined) {
    const capitalised = /^\p{Lu}/u.test(word);
    const tags: string[] = [];
    for (const tag of lexiconTags(word)) {
      const family = withParents(tag);
      if (CLOSED_CLASS.has(tag) || (capitalised && family.some((t) => NAME_ROOTS.has(t)))) tags.push(...family);
    }
    extras = tags;
    if (lexiconExtras.size < 50_000) lexiconExtras.set(word, extras);
  }
  return extras;
}

/** A clitic at the end of a word token: `Code's`, `isn't`, `they're`. */
const CLITIC_TAIL = /(?<=\p{L})(?:n['’]t|['’](?:s|re|ll|ve|m|d))$/iu;

/** Joins a word to the next without a space: `node.js`, `C#`, `C++`, `e.g.` stay one term. */
const INNER_JOINERS = new Set(['.', '+', '#', '_', '/', '&']);

/** The sentences of `text` as tagged terms. */
export function tagSentences(text: string): TaggedTerm[][] {
  const english = tagger();
  const its = english.its;
  const doc = english.readDoc(text);
  const tokens = doc.tokens();
  const values = tokens.out(its.value) as string[];
  const types = tokens.out(its.type) as string[];
  const pos = tokens.out(its.pos) as string[];
  const spaces = tokens.out(its.precedingSpaces) as string[];
  const sentences: TaggedTerm[][] = [];
  const starts = new Set((doc.sentences().out(its.span) as unknown as [number, number][]).map(([start]) => start));
  let terms: TaggedTerm[] = [];
  let pre = '';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let last = terms.length > 0 ? terms[terms.length - 1] : null;
    const joinsLast = last !== null && spaces[i] === '' && last.post === '' && INNER_JOINERS.has(last.text.slice(-1));
    // wink ends a sentence at the `.` of `node.js`; a word glued to it continues the sentence.
    if (starts.has(i) && i > 0 && !joinsLast) {
      if (terms.length > 0) sentences.push(terms);
      terms = [];
      pre = '';
      last = null;
    }
    if (value.trim() === '') {
      // A line break or tab (a token of its own in wink): spacing, not a word.
      if (last) last.post += spaces[i] + value;
      continue;
    }
    const spaceBefore = spaces[i] !== '';
    const punctuation = types[i] === 'punctuation' || types[i] === 'symbol';
    const nextJoined = i + 1 < values.length && spaces[i + 1] === '' && types[i + 1] !== 'punctuation' && types[i + 1] !== 'symbol' && values[i + 1].trim() !== '';
    if (last && !spaceBefore && pre === '') {
      // `Code's`, `isn't`: a clitic stays on its word (and says what it is).
      if (/^(?:n['’]t|['’](?:s|re|ll|ve|m|d))$/i.test(value)) {
        last.text += value;
        if (/^['’]s$/i.test(value)) last.tags.add('Possessive');
        else if (/^n/i.test(value)) last.tags.add('Negative');
        continue;
      }
      // `node.js`, `C#`, `C++`: symbols inside a word, or closing it, belong to it.
      if (punctuation && last.post === '' && INNER_JOINERS.has(value) && (nextJoined || value === '+' || value === '#')) {
        last.text += value;
        continue;
      }
      if (!punctuation && joinsLast && /[\p{L}\p{N}]/u.test(last.text)) {
        last.text += value;
        continue;
      }
    }
    if (punctuation) {
      if (spaceBefore && nextJoined) pre += value; // `(the`: punctuation stuck to the next word
      else if (last) last.post += spaces[i] + value;
      else pre += value;
      continue;
    }
    if (last) last.post += spaces[i];
    const tags = new Set<string>(POS_TAGS[pos[i]] ?? []);
    // wink splits `Code's` into `Code` + `'s` until it has seen `Code's` whole (its tokenizer looks tokens up in a
    // cache that grows with every text it reads): the whole token then says what its clitic is too, so that a text
    // is tagged alike whatever was read before it.
    const clitic = CLITIC_TAIL.exec(value);
    const base = clitic ? value.slice(0, value.length - clitic[0].length) : value;
    if (clitic) {
      if (/^['’]s$/i.test(clitic[0])) tags.add('Possessive');
      else if (/^n/i.test(clitic[0])) tags.add('Negative');
      // wink's guess for a word it does not know; lower case, it is no name.
      if (!/^\p{Lu}/u.test(base) && tags.has('ProperNoun')) {
        tags.delete('ProperNoun');
        tags.add('Noun');
      }
    }
    for (const tag of extraTags(base)) tags.add(tag);
    terms.push({ text: value, pre, post: '', tags });
    pre = '';
  }
  if (terms.length > 0) sentences.push(terms);
  return sentences;
}
