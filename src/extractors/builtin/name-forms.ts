// What a name is, for the built-in extractor: the variants that are one name (case, plural, a page's file name), the
// display form of a page title written as a file name, and whether a page title names a thing (an entity) or a task
// or topic (a page only: "Manage vaults", "publish-to-vercel", "Diagrams in Markdown").
import nlp from 'compromise/two';
import { lexiconTags } from './pos-tagger.js';

/**
 * The key variants of one name share: NFKC, lower case, `-`/`_` as spaces, the last word singular. `Tags`, `tag`,
 * `graph-view` and `Graph View` give `tag`, `tag`, `graph view`, `graph view`.
 */
export function variantKey(name: string): string {
  const words = name.normalize('NFKC').toLowerCase().replace(/[-_\s]+/g, ' ').trim().split(' ');
  words[words.length - 1] = singular(words[words.length - 1]);
  return words.join(' ');
}

export function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && /[^su]s$/.test(word) && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

const SLUG = /^[\p{Ll}\p{N}]+(?:[-_][\p{Ll}\p{N}]+)+$/u;

/** A title written as a file name (`graph-view`, `daily_notes`): lower case words joined by `-` or `_`. */
export function isSlugTitle(title: string): boolean {
  return SLUG.test(title);
}

/**
 * How a person writes a page title: a file-name title becomes words (`graph-view` → `graph view`), spelled as the
 * text spells them where it does (`Graph View`; `spell-checking` stays hyphenated when the text hyphenates it).
 */
export function displayTitle(title: string, text: string): string {
  if (!isSlugTitle(title)) return title;
  const first = title.split(/[-_]/)[0];
  if (!text.toLowerCase().includes(first)) return title.replace(/[-_]/g, ' ');
  const words = title.split(/[-_]/);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('[ \\t-]')}(?![\\p{L}\\p{N}])`, 'iu');
  // Link targets, destinations, reference definitions (`[block-anchors]: block-anchors.md`) and paths spell the file,
  // not the name: which chunk is extracted first must not decide how the entity is named.
  const prose = text.replace(/\[\[[^\]\n]*\]\]|\]\([^)\n]*\)|^\s{0,3}\[[^\]\n]+\]:.*$|\S*\/\S*|\S+\.md\b/gm, ' ');
  const found = pattern.exec(prose);
  return found ? found[0].replace(/\s+/g, ' ') : words.join(' ');
}

const MAX_HEADING_NAME = 60;

/**
 * The longer name a page's own first heading gives its title, or null: `foam list` for the file-name title `list`,
 * `Foam CLI` for `cli`, `Note Templates` for `templates` — the heading holds the title's words, in order, and more,
 * and names a thing. A heading that says something else (`Graph Visualization` for `graph-view`) or names a topic
 * (`Navigation in Foam`) leaves the title as it is.
 */
export function headingName(title: string, heading: string | null | undefined): string | null {
  const name = heading?.replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim() ?? '';
  if (name === '' || name.length > MAX_HEADING_NAME || /[[\]()<>|:;!?]/.test(name)) return null;
  const words = (text: string) => text.toLowerCase().split(/[\s_-]+/).filter(Boolean).map(singular);
  const own = words(title);
  const longer = words(name);
  if (own.length === 0 || longer.length <= own.length) return null;
  const at = longer.findIndex((_, i) => own.every((w, j) => longer[i + j] === w));
  // `Navigation in Foam`, `Publishing to the Web`: the heading says what the page is about, not what it is called.
  if (at < 0 || name.toLowerCase().split(/\s+/).some((w) => PREPOSITIONS.has(w) || ARTICLES.has(w)) || titleKind(name) !== 'entity') return null;
  // `Python Basics`, `Git Cheatsheet`, `Docker Overview`: words after the title that name the document, not the thing.
  if (longer.slice(at + own.length).some((w) => DOCUMENT_WORDS.has(w))) return null;
  return name;
}

/** Words (singular) that say what kind of document a page is: after a page's title in its heading, no part of a name. */
const DOCUMENT_WORDS = new Set([
  'basic', 'overview', 'guide', 'note', 'cheatsheet', 'cheat', 'sheet', 'tutorial', 'introduction', 'intro', 'reference',
  'doc', 'documentation', 'faq', 'tip', 'summary', 'index', 'home', 'page', 'readme', 'quickstart', 'primer', 'howto',
  'example', 'sample', 'demo', 'walkthrough', 'explained', 'explainer', 'notebook', 'log', 'journal', 'draft', 'todo',
]);

export type TitleKind = 'entity' | 'task' | 'topic';

const PREPOSITIONS = new Set(['to', 'from', 'with', 'in', 'into', 'on', 'onto', 'for', 'via', 'using', 'without', 'by', 'across', 'between', 'through', 'vs', 'versus', 'and', 'or']);
const ARTICLES = new Set(['a', 'an', 'the', 'your', 'my', 'our', 'their', 'its', 'this', 'these', 'some', 'new']);
const VERB_TAGS = ['Infinitive', 'Imperative', 'PresentTense', 'PastTense', 'Verb', 'Gerund', 'Participle', 'Auxiliary', 'Modal'];
const NOT_A_NAME_START = ['Determiner', 'Possessive', 'Pronoun', 'QuestionWord', 'Adverb', 'Ordinal', 'Value', 'Preposition', 'Conjunction'];
const kinds = new Map<string, TitleKind>();

/**
 * Whether a page title names a thing (`Graph view`, `Share Sheet`, `block-anchors`) or is a task or topic page: a how-to
 * (imperative or gerund first: `Manage vaults`, `add-images-to-notes`, `Migrating from Obsidian`, `How to…`), a
 * question, or a phrase joined by a preposition (`Diagrams in Markdown`, `math-support-with-katex`). Titles in Title
 * Case with two capitals or more (`Material for MkDocs`, `Share Sheet`) are names. A page of examples (`Trait Examples`,
 * `Note Reference Sample`) is a topic.
 */
export function titleKind(title: string): TitleKind {
  let kind = kinds.get(title);
  if (kind === undefined) {
    kind = classify(title);
    if (kinds.size < 20_000) kinds.set(title, kind);
  }
  return kind;
}

const EXAMPLE_HEADS = new Set(['example', 'examples', 'sample', 'samples', 'demo', 'demos', 'showcase']);

function classify(title: string): TitleKind {
  const text = (isSlugTitle(title) ? title.replace(/[-_]/g, ' ') : title).replace(/\s+/g, ' ').trim();
  if (/\?$/.test(text) || /^(?:how|why|what|when|where|which|who)\b/i.test(text)) return 'task';
  const words = text.split(' ');
  if (words.length === 1) return 'entity';
  const lower = words.map((w) => w.toLowerCase());
  // `Trait Examples`, `Note Reference Sample`: a page that shows something by example is a page, not a thing.
  if (EXAMPLE_HEADS.has(lower[lower.length - 1])) return 'topic';
  // `Coming from Obsidian`, `Publish to GitHub Pages`, `Format your notes`: a verb or gerund, then its object's article or preposition.
  const verbFirst = /ing$/.test(lower[0]) || (lexiconTags(lower[0]).length > 0 && lexiconTags(lower[0]).every((t) => VERB_TAGS.includes(t)));
  if (verbFirst && (PREPOSITIONS.has(lower[1]) || ARTICLES.has(lower[1]))) return 'task';
  // `Getting Started`, `Using Hierarchy Position`, `Creating New Notes`: a gerund before a participle, or before a
  // phrase of two words or more, is what a page teaches. A gerund before one noun is a compound (`Meeting Note`).
  const gerund = /ing$/.test(lower[0]) && (lexiconTags(lower[0]).includes('Gerund') || lexiconTags(lower[0]).length === 0);
  if (gerund && (/ed$/.test(lower[1]) || words.length >= 3)) return 'task';
  const capitalised = words.filter((w) => /^\p{Lu}/u.test(w)).length;
  if (capitalised >= 2 && capitalised >= Math.ceil(words.filter((w) => !PREPOSITIONS.has(w.toLowerCase()) && w.length > 3).length)) return 'entity';
  if (lower.slice(1).some((w) => PREPOSITIONS.has(w)) && words.length >= 3) {
    const first = nlp(text).json()[0]?.terms?.[0]?.tags ?? [];
    return first.some((t: string) => VERB_TAGS.includes(t)) ? 'task' : 'topic';
  }
  const terms: { text: string; tags: string[] }[] = nlp(sentenceCase(text)).json()[0]?.terms ?? [];
  const head = terms[0];
  if (!head) return 'entity';
  if (head.tags.some((t) => NOT_A_NAME_START.includes(t))) return 'topic';
  const lexicon = lexiconTags(lower[0]);
  // A verb first, as the lexicon knows it (not a noun that is also a verb: `block anchors`, `spell checking`), and in
  // context: an imperative (`Manage vaults`, `Create a vault`) or a participle (`Recommended extensions`).
  const lexiconVerb = lexicon.length > 0 && lexicon.every((t) => VERB_TAGS.includes(t));
  const contextVerb = head.tags.some((t) => VERB_TAGS.includes(t)) && !head.tags.includes('Noun');
  const last = lower[lower.length - 1];
  // `Command palette`, `Spell checking`: a verb before one singular noun or a gerund is a compound noun, not an order.
  const compound = words.length === 2 && (singular(last) === last || /ing$/.test(last));
  if (contextVerb && (lexiconVerb || /(?:ed|ing)$/.test(lower[0])) && !compound) return 'task';
  return 'entity';
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
