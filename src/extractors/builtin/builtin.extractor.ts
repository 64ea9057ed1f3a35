// The offline default: deterministic, fast, and of lower quality than a language model (docs/extractors.md).
// Names come from link targets, already-approved entities, the page title, proper-noun phrases and noun
// phrases (wink-nlp's tagger and compromise's lexicon, src/extractors/builtin/pos-tagger.ts); relations are only `related_to`, from sharing a sentence.
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { CODE_SPAN, HTML_TAG, IMAGE, LABELLED_WIKILINK, MARKUP_BOUNDS, WIKILINK } from '../../common/markup-patterns.js';
import { isAttachmentTarget } from '../attachments.js';
import { sentenceRanges } from '../evidence-matcher.js';
import { nameKey, validateExtraction } from '../extraction-validator.js';
import { displayTitle, headingName, singular, titleKind, variantKey } from './name-forms.js';
import { lexiconTags, tagSentences, type TaggedTerm } from './pos-tagger.js';
import { typedRelation } from './relation-patterns.js';
import { normaliseEntityType } from '../vocabulary.js';
import { type EntityType, type ExtractedEntity, type ExtractedRelation, type ExtractionRequest, type ExtractionResult, type Extractor } from '../extraction.types.js';
import { ExtractorError } from '../../llm-client/llm-errors.js';
import { isEnglishWord } from '../../common/wordnet.js';
import { wholeWordIndex } from '../../common/whole-words.js';

export const BUILTIN_EXTRACTOR_MODEL = 'kurate-builtin-v9';

/**
 * How much each piece of evidence says that a name is an entity worth proposing. They combine as independent
 * signals (noisy-OR): confidence = 1 − Π(1 − wᵢ), capped at MAX_CONFIDENCE. Documented in docs/extractors.md.
 */
export const SIGNAL_WEIGHTS = {
  /** The chunk links to a page with this title. */
  link: 0.6,
  /** The chunk links to a page not written yet under this name (a wanted page). */
  wantedLink: 0.45,
  /** Already an approved entity (from `knownEntities`). */
  known: 0.5,
  /** It is the page title. */
  title: 0.5,
  /** It appears in the page title. */
  inTitle: 0.2,
  /** It appears in the heading path or a heading of the chunk. */
  heading: 0.3,
  /** A capitalised name in running text. */
  properNoun: 0.3,
  /** Typed by the lexicon as a person, place or organisation. */
  typed: 0.15,
  /** A common noun phrase (two words or more, or a single word that is in the title or a heading). */
  nounPhrase: 0.15,
  /** Each further sentence that mentions it, up to MAX_REPEATS. */
  repeat: 0.15,
} as const;
export const MAX_REPEATS = 4;
export const MAX_CONFIDENCE = 0.95;
export const MAX_ENTITIES = 30;
export const MAX_RELATIONS = 30;
const MAX_EVIDENCE = 300;

type Signal = Exclude<keyof typeof SIGNAL_WEIGHTS, 'repeat'>;

interface Sentence {
  raw: string;
  /** The raw sentence without its block marker (`- `, `## `, `> `), still a verbatim slice. */
  quote: string;
  /** Markup removed, lower case, padded with spaces, for whole-word search. */
  search: string;
  clean: string;
  heading: boolean;
}

interface Candidate {
  name: string;
  key: string;
  type: EntityType | null;
  /** Where the type came from: the more specific evidence wins (known > page > pattern > lexicon). */
  typeRank: number;
  signals: Set<Signal>;
  /** Sentence indexes where it was found by a link (a link's text need not be the title). */
  linkSentences: number[];
  /** Every spelling it was found under (the name among them). */
  surfaces: Set<string>;
  /** How strongly its name is attested: a linked page's title 4, an approved entity 5, the page title 3, a proper noun 2, a noun phrase 1. */
  nameRank: number;
}

/** Name ranks: which spelling of a name wins when several variants meet in a chunk. */
const NAME_RANK: Record<Signal, number> = { known: 5, link: 4, wantedLink: 3, title: 3, inTitle: 0, heading: 0, properNoun: 2, typed: 0, nounPhrase: 1 };

// Words that end a noun phrase even when the tagger calls them nouns (`all work`, `something here`).
const NOUN_PHRASE_STOPS = new Set([
  'all', 'some', 'any', 'most', 'more', 'many', 'much', 'few', 'each', 'every', 'other', 'another', 'such', 'here',
  'there', 'something', 'anything', 'everything', 'nothing', 'someone', 'anyone', 'everyone', 'lot', 'lots', 'way',
  'ways', 'thing', 'things', 'part', 'kind', 'case', 'cases', 'its', 'time', 'times', 'etc', 'same', 'own', 'e.g', 'i.e',
]);
const CONNECTORS = new Set(['of', 'de', 'del', 'der', 'van', 'von', 'da', 'di', 'du', 'la', 'le', '&']);
const ORG_SUFFIXES = new Set([
  'inc', 'corp', 'corporation', 'company', 'co', 'ltd', 'llc', 'gmbh', 'foundation', 'university', 'institute',
  'association', 'consortium', 'group', 'labs', 'society', 'agency', 'council', 'committee', 'college', 'school',
]);
const FUNCTION_TAGS = ['Determiner', 'Pronoun', 'Preposition', 'Conjunction', 'Verb', 'Adverb', 'QuestionWord', 'Adjective', 'Negative', 'Modal'];
const STOP_NAMES = new Set([
  'i', 'a', 'an', 'the', 'this', 'that', 'these', 'those', 'it', 'its', 'you', 'your', 'we', 'our', 'they', 'note',
  'example', 'examples', 'thing', 'things', 'way', 'ways', 'lot', 'lots', 'something', 'anything', 'everything', 'nothing',
  'part', 'kind', 'type', 'use', 'case', 'time', 'etc', 'e.g', 'i.e', 'ok', 'yes', 'no', 'todo', 'tip', 'warning', 'info',
  // Where a link points, not what it names (`see [here](…)`, `click here`, `this page`).
  'here', 'there', 'below', 'above', 'link', 'links here', 'click here', 'this page', 'this link', 'more',
]);

export interface BuiltinExtractorOptions {
  /**
   * Worker threads that run the extraction (KURATE_BUILTIN_EXTRACTOR_THREADS); 0 runs it on the calling thread. In a
   * thread, its CPU no longer holds up the web requests and the database writes of the process.
   */
  threads: number;
  /** The compiled worker module (builtin-extraction.worker.js); needed when `threads` > 0. */
  workerFile?: string;
}

/** The built-in, offline extractor. Same input, same output, on the calling thread or in worker threads. */
export class BuiltinExtractor implements Extractor {
  readonly name = 'builtin' as const;
  readonly model = BUILTIN_EXTRACTOR_MODEL;
  readonly threads: number;
  private readonly workerFile: string | undefined;
  // Started on the first chunk, so that a web-only process (KURATE_ROLE=web) never starts threads.
  private pool: Piscina<ExtractionRequest, ExtractionResult> | null = null;

  constructor(options: BuiltinExtractorOptions = { threads: 0 }) {
    if (options.threads > 0 && !options.workerFile) throw new Error('BuiltinExtractor: worker threads need the worker module\'s file');
    this.threads = options.threads;
    this.workerFile = options.workerFile;
  }

  async extract(request: ExtractionRequest, signal?: AbortSignal): Promise<ExtractionResult> {
    if (signal?.aborted) throw cancelled();
    if (this.threads === 0) return runBuiltinExtraction(request);
    this.pool ??= new Piscina({ filename: pathToFileURL(this.workerFile!).href, minThreads: this.threads, maxThreads: this.threads, idleTimeout: 60_000 });
    // The signal is not handed to the pool: aborting a task that is finishing races with its answer inside piscina
    // (an uncaught "Unexpected message from Worker"). A cancelled job is answered at once instead, and the chunk's
    // result, a few milliseconds of work, is dropped when it arrives.
    const task = this.pool.run(request).catch((error: unknown) => {
      // A thread that died (out of memory, a bug) is replaced by the pool; the job is retried.
      throw new ExtractorError(`The built-in extractor's worker thread failed: ${error instanceof Error ? error.message : String(error)}`, true);
    });
    if (!signal) return task;
    return new Promise<ExtractionResult>((resolve, reject) => {
      const onAbort = () => reject(cancelled());
      signal.addEventListener('abort', onAbort, { once: true });
      task.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Stops the worker threads (at shutdown). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.close({ force: true });
  }
}

const cancelled = () => new ExtractorError('Extraction cancelled (builtin)', true);

/** One chunk through the built-in extractor: its candidates, then the validation every backend's answer gets. */
export function runBuiltinExtraction(request: ExtractionRequest): ExtractionResult {
  const { entities, relations, dropped } = extractBuiltin(request);
  const result = validateExtraction({ entities, relations }, request, {
    extractor: 'builtin',
    model: BUILTIN_EXTRACTOR_MODEL,
    limits: { entities: MAX_ENTITIES, relations: MAX_RELATIONS },
  });
  return { ...result, dropped: [...dropped, ...result.dropped] };
}

/** The candidate entities and relations of one chunk, before validation. Exported for tests. */
export function extractBuiltin(request: ExtractionRequest): {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  dropped: ExtractionResult['dropped'];
} {
  const dropped: ExtractionResult['dropped'] = [];
  const sentences = sentenceRanges(request.chunkText).map(({ start, end }): Sentence => {
    const raw = request.chunkText.slice(start, end);
    const clean = cleanMarkdown(raw);
    const quote = raw.replace(BLOCK_MARKER, '');
    return { raw, quote, clean, search: ` ${searchable(clean)} `, heading: /^\s{0,3}#{1,6}\s/.test(raw) };
  });
  const candidates = new Map<string, Candidate>();
  // Variants of one name (case, plural, a file-name title) are one candidate with several surface forms.
  const add = (name: string, signal: Signal, type: EntityType | null = null, typeRank = 1): Candidate | null => {
    const cleaned = name.replace(/\s+/g, ' ').trim();
    if (!isPlausibleName(nameKey(cleaned))) return null;
    const key = variantKey(cleaned);
    let candidate = candidates.get(key);
    if (!candidate) {
      candidate = { name: cleaned, key, type: null, typeRank: 0, signals: new Set(), linkSentences: [], surfaces: new Set(), nameRank: -1 };
      candidates.set(key, candidate);
    }
    candidate.surfaces.add(cleaned);
    if (NAME_RANK[signal] > candidate.nameRank) {
      candidate.name = cleaned;
      candidate.nameRank = NAME_RANK[signal];
    }
    candidate.signals.add(signal);
    if (type && typeRank > candidate.typeRank) {
      candidate.type = type;
      candidate.typeRank = typeRank;
    }
    return candidate;
  };

  // 1. Link targets: the titles of the pages the chunk links to, found through the link syntax in each sentence. A
  // title that names a task or a topic (`Manage vaults`, `publish-to-vercel`, `Diagrams in Markdown`) is a page, not
  // an entity; a title written as a file name is named as the text writes it (`graph-view` → `graph view`).
  const targets = new Map<string, string>();
  const pageTypes = request.linkTargetTypes ?? {};
  const entityTitles = new Set<string>();
  const wantedTitles = new Set((request.wantedTargets ?? []).filter((t) => !isAttachmentTarget(t)));
  for (const title of new Set([...request.linkTargets, ...wantedTitles])) {
    const kind = titleKind(title);
    if (kind !== 'entity') {
      dropped.push({ item: `link target "${title}"`, reason: `a ${kind === 'task' ? 'how-to' : 'topic'} page title: a page, not an entity` });
      continue;
    }
    entityTitles.add(title);
    targets.set(nameKey(title), title);
    targets.set(slug(title), title);
  }
  // The chunk's words without link targets and destinations (a `[[graph-view]]` is not how the text spells it).
  const plainText = request.chunkText
    .replace(LABELLED_WIKILINK, '$1')
    .replace(WIKILINK, ' ')
    .replace(LINK_DESTINATION, ']');
  const displays = new Map<string, string>();
  const display = (title: string): string => {
    let shown = displays.get(title);
    if (shown === undefined) displays.set(title, (shown = linkNameOf(request, title, plainText)));
    return shown;
  };
  const addTitle = (title: string): Candidate | null => {
    const type = pageTypes[title] ?? null;
    const candidate = add(display(title), wantedTitles.has(title) && !request.linkTargets.includes(title) ? 'wantedLink' : 'link', type, type ? 4 : 1);
    candidate?.surfaces.add(title);
    return candidate;
  };
  sentences.forEach((sentence, index) => {
    for (const target of linksIn(sentence.raw)) {
      const title = targets.get(nameKey(target)) ?? targets.get(slug(target));
      if (title) addTitle(title)?.linkSentences.push(index);
    }
  });
  for (const title of entityTitles) {
    const candidate = candidates.get(variantKey(display(title)));
    if (candidate?.signals.has('link') || candidate?.signals.has('wantedLink')) continue;
    if (sentences.some((s) => mentions(s, title) || mentions(s, display(title)))) addTitle(title);
    else dropped.push({ item: `link target "${title}"`, reason: 'not found in the chunk text' });
  }

  // 2. Approved entities and the page title, when the chunk mentions them.
  const knownTypes = new Map(request.knownEntities.map((e) => [nameKey(e.name), e.type]));
  for (const known of request.knownEntities) {
    const needle = searchable(known.name);
    if (sentences.some((s) => mentionsNeedle(s, needle))) add(known.name, 'known', known.type, 5);
  }
  const pageTitle = request.pageTitle.trim() === '' ? '' : display(request.pageTitle);
  if (pageTitle !== '' && titleKind(request.pageTitle) === 'entity' && sentences.some((s) => mentions(s, pageTitle))) add(pageTitle, 'title');

  // 3. Proper-noun phrases and noun phrases, from the tagger's tags.
  const prose = sentences
    .filter((s) => s.clean !== '' && !isTitleCase(s.clean) && !(s.heading && isCapitalisedHeading(s.clean)))
    .map((s) => withoutMenuPaths(s.clean))
    .map((text) => (/[.!?:]$/.test(text) ? text : `${text}.`))
    .join('\n');
  const titleAndHeadings = ` ${searchable([request.pageTitle, ...request.headingPath].join(' | '))} `;
  if (prose.trim() !== '') {
    for (const terms of tagSentences(prose)) {
      for (const phrase of properNounPhrases(terms, (word) => writtenAsName(word, request.termStats))) {
        const ordinary = ordinaryWord(phrase.name, request.termStats);
        if (ordinary && !phrase.type) {
          dropped.push({ item: `name "${phrase.name}"`, reason: ordinary });
          continue;
        }
        const candidate = add(phrase.name, 'properNoun', phrase.type, 2);
        if (candidate && phrase.type) candidate.signals.add('typed');
      }
      for (const phrase of nounPhrases(terms)) {
        // A single common noun is a name only where the wiki writes it as one (capitalised inside sentences).
        if (phrase.includes(' ') || (titleAndHeadings.includes(` ${searchable(phrase)} `) && writtenAsName(phrase, request.termStats))) add(phrase, 'nounPhrase', 'concept', 1);
      }
    }
  }

  // 4. The longest name the text supports: a name that never occurs outside a longer one (`Sheet` only ever in
  // `Share Sheet`) is a fragment of it, unless a link, an approved entity or the page title vouches for it.
  const needles = new Map([...candidates.values()].map((c) => [c, [...c.surfaces].map(searchable).filter((n) => n !== '')]));
  for (const candidate of candidates.values()) {
    if (candidate.signals.has('link') || candidate.signals.has('wantedLink') || candidate.signals.has('known') || candidate.signals.has('title')) continue;
    const own = needles.get(candidate)!;
    const longer = [...candidates.values()].filter((other) => other !== candidate && needles.get(other)!.some((n) => own.some((o) => n !== o && ` ${n} `.includes(` ${o} `))));
    if (longer.length === 0) continue;
    const outside = sentences.some((sentence) => {
      let text = sentence.search;
      for (const other of longer) for (const n of needles.get(other)!) text = text.split(` ${n} `).join(' \u0000 ');
      return own.some((o) => text.includes(` ${o} `));
    });
    if (!outside) {
      // Its evidence is the longer name's: `Kilimanjaro`, a proper noun once `Mount` was cut, makes `Mount Kilimanjaro` one.
      const into = longer.reduce((a, b) => (b.name.length > a.name.length ? b : a));
      for (const signal of ['properNoun', 'typed'] as const) if (candidate.signals.has(signal)) into.signals.add(signal);
      if (candidate.type && candidate.typeRank > into.typeRank) {
        into.type = candidate.type;
        into.typeRank = candidate.typeRank;
      }
      candidates.delete(candidate.key);
      dropped.push({ item: `name "${candidate.name}"`, reason: `only ever part of the longer name "${longer[0].name}"` });
    }
  }

  // 5. Evidence, type and confidence.
  const windows = new Map<string, string>();
  const evidenceIn = (sentence: number, name: string): string => {
    const text = sentences[sentence].quote;
    if (text.length <= MAX_EVIDENCE) return text;
    const key = `${sentence}\u0000${name}`;
    let window = windows.get(key);
    if (window === undefined) {
      window = evidenceWindow(text, name);
      windows.set(key, window);
    }
    return window;
  };
  const headingText = ` ${searchable(request.headingPath.join(' | '))} `;
  const titleText = ` ${searchable(request.pageTitle)} `;
  const scored: { entity: ExtractedEntity; sentences: number[] }[] = [];
  for (const candidate of candidates.values()) {
    const own = needles.get(candidate) ?? [searchable(candidate.name)];
    const found = sentences.flatMap((s, i) => (own.some((n) => mentionsNeedle(s, n)) ? [i] : []));
    const where = [...new Set([...candidate.linkSentences, ...found])].sort((a, b) => a - b);
    if (where.length === 0) continue;
    const key = ` ${searchable(candidate.name)} `;
    if (key !== titleText && titleText.includes(key)) candidate.signals.add('inTitle');
    if (headingText.includes(key) || where.some((i) => sentences[i].heading)) candidate.signals.add('heading');
    const evidenceAt = where.find((i) => !sentences[i].heading) ?? where[0];
    const type = knownTypes.get(nameKey(candidate.name)) ?? typeOf(candidate, where.map((i) => sentences[i].clean));
    const surfaces = [...candidate.surfaces].filter((surface) => surface !== candidate.name);
    scored.push({
      entity: {
        name: candidate.name,
        type,
        confidence: confidence(candidate.signals, where.length - 1),
        evidence: evidenceIn(evidenceAt, candidate.name),
        ...(surfaces.length > 0 ? { surfaces } : {}),
        signals: [...candidate.signals, ...(where.length > 1 ? [`repeat×${Math.min(MAX_REPEATS, where.length - 1)}`] : [])],
      },
      sentences: where,
    });
  }
  scored.sort((a, b) => b.entity.confidence - a.entity.confidence || a.entity.name.localeCompare(b.entity.name, 'en'));
  if (scored.length > MAX_ENTITIES) {
    dropped.push({ item: `${scored.length - MAX_ENTITIES} more candidate names`, reason: `only the ${MAX_ENTITIES} best-supported names of a chunk are kept` });
    scored.length = MAX_ENTITIES;
  }

  // 6. Relations between names that share a sentence: a typed predicate where the words between them state one
  // (src/extractors/builtin/relation-patterns.ts: `A is a B`, `A requires B`, `A is part of B`, …), else `related_to`, which the
  // pipeline keeps only for pairs whose names go together on the wiki's pages far more often than chance. "See also" links relate the page to
  // what it points at. Confidence = min(a, b) × (1 − 0.5^(shared sentences + 1)), typed ones × 1.15 (at most 0.95).
  const relations: ExtractedRelation[] = [];
  const related = new Set<string>();
  for (let i = 0; i < scored.length; i++) {
    for (let j = i + 1; j < scored.length; j++) {
      const shared = scored[i].sentences.filter((s) => scored[j].sentences.includes(s));
      if (shared.length === 0) continue;
      const base = Math.min(scored[i].entity.confidence, scored[j].entity.confidence) * (1 - 0.5 ** (shared.length + 1));
      let typed: { source: string; predicate: ExtractedRelation['predicate']; target: string; at: number } | null = null;
      for (const at of shared) {
        const found = typedRelation(sentences[at].clean, scored[i].entity, scored[j].entity);
        if (found) {
          typed = { ...found, at };
          break;
        }
      }
      if (typed) {
        relations.push({
          source: typed.source, predicate: typed.predicate, target: typed.target, confidence: round(Math.min(MAX_CONFIDENCE, base * 1.15)),
          evidence: evidenceIn(typed.at, typed.source), signals: ['sentence-pattern'],
        });
        continue;
      }
      const [a, b] = [scored[i].entity, scored[j].entity].sort((x, y) => x.name.localeCompare(y.name, 'en'));
      const at = shared.find((s) => !sentences[s].heading) ?? shared[0];
      related.add(`${a.name}\u0000${b.name}`);
      relations.push({ source: a.name, predicate: 'related_to', target: b.name, confidence: round(base), evidence: evidenceIn(at, a.name), signals: [CO_OCCURRENCE] });
    }
  }
  relations.push(...seeAlsoRelations(request, sentences, scored, plainText));
  relations.push(...subjectRelations(request, sentences, scored, plainText, evidenceIn));
  const placed = hierarchyRelations(request, sentences, scored, plainText);
  if (placed.length > 0) {
    // The hierarchy says how the two are related; a `related_to` of the same pair says less.
    const pairs = new Set(placed.map((r) => pairKey(r.source, r.target)));
    for (let i = relations.length - 1; i >= 0; i--) if (relations[i].predicate === 'related_to' && pairs.has(pairKey(relations[i].source, relations[i].target))) relations.splice(i, 1);
    relations.push(...placed);
  }
  relations.sort((x, y) => y.confidence - x.confidence || x.source.localeCompare(y.source, 'en') || x.target.localeCompare(y.target, 'en'));
  if (relations.length > MAX_RELATIONS) {
    dropped.push({ item: `${relations.length - MAX_RELATIONS} more co-occurrences`, reason: `only the ${MAX_RELATIONS} strongest relations of a chunk are kept` });
    relations.length = MAX_RELATIONS;
  }
  return { entities: scored.map((s) => s.entity), relations, dropped };
}

/**
 * How the page names itself: the longer name its own first heading gives its title (`# foam list` on the page `list`,
 * name-forms.ts headingName), else its title as the text writes it.
 */
function pageNameOf(request: ExtractionRequest, text: string): string {
  return headingName(request.pageTitle, request.pageHeading) ?? displayTitle(request.pageTitle, text);
}

/** How a linked page is named: as it names itself (its first heading, as for the page's own name), else by its title. */
function linkNameOf(request: ExtractionRequest, title: string, text: string): string {
  if (title === request.pageTitle) return pageNameOf(request, text);
  return headingName(title, request.linkTargetHeadings?.[title]) ?? displayTitle(title, text);
}

/** The signal of a `related_to` that only shares a sentence: the pipeline keeps it only for pairs well above chance. */
export const CO_OCCURRENCE = 'co-occurrence';

/**
 * What one recorded signal weighs, for showing why a proposal was proposed: an entity's signals by SIGNAL_WEIGHTS
 * (`repeat×2` is two repeats), a relation's by how its confidence is made (`sentence-pattern` multiplies the weaker
 * endpoint's by 1.15, `see-also` is a fixed 0.7). Null for a signal this extractor does not record.
 */
export function signalWeight(signal: string): { signal: string; weight: number | null; meaning: string } {
  const repeat = /^repeat×(\d+)$/.exec(signal);
  if (repeat) return { signal, weight: round(SIGNAL_WEIGHTS.repeat * Number(repeat[1])), meaning: `mentioned in ${Number(repeat[1])} more sentence${repeat[1] === '1' ? '' : 's'} (${SIGNAL_WEIGHTS.repeat} each)` };
  const meaning = SIGNAL_MEANINGS[signal];
  if (!meaning) return { signal, weight: null, meaning: 'recorded by the extractor' };
  const weight = signal in SIGNAL_WEIGHTS ? SIGNAL_WEIGHTS[signal as keyof typeof SIGNAL_WEIGHTS] : signal === 'see-also' ? SEE_ALSO_CONFIDENCE : signal === 'hierarchy' ? HIERARCHY_CONFIDENCE : signal === 'sentence-pattern' ? 1.15 : null;
  return { signal, weight, meaning };
}

const SIGNAL_MEANINGS: Record<string, string> = {
  link: 'links to a page with this title',
  wantedLink: 'links to a page not written yet under this name',
  known: 'already an approved entity',
  title: 'the page title',
  inTitle: 'appears in the page title',
  heading: 'appears in a heading',
  properNoun: 'a capitalised name in running text',
  typed: 'the lexicon types it (person, place, organisation)',
  nounPhrase: 'a noun phrase',
  'sentence-pattern': 'a sentence states the relation (× the weaker endpoint\'s confidence)',
  'see-also': 'a “See also” link',
  hierarchy: 'links to a page under this one in the vault (or to the page this one is under)',
  [CO_OCCURRENCE]: 'the two share sentences far more often than chance',
};
const SEE_ALSO_HEADING = /^(?:see also|related(?: pages| notes| topics)?|further reading)$/i;
const SEE_ALSO_SENTENCE = /^(?:see also|related|see)\b/i;
const SEE_ALSO_CONFIDENCE = 0.7;

/**
 * The Page Graph as evidence: a "See also" section or sentence of a page that links to another page relates the two
 * (`related_to`, the page's title as the source). The page's title joins the chunk's entities for it (a page title
 * that names a thing, and a link: its own node in the Page Graph).
 */
function seeAlsoRelations(request: ExtractionRequest, sentences: Sentence[], scored: { entity: ExtractedEntity; sentences: number[] }[], text: string): ExtractedRelation[] {
  if (request.pageTitle.trim() === '' || titleKind(request.pageTitle) !== 'entity' || request.linkTargets.length === 0) return [];
  const inSection = SEE_ALSO_HEADING.test(request.headingPath[request.headingPath.length - 1] ?? '');
  const at = sentences.flatMap((s, i) => ((inSection && !s.heading) || SEE_ALSO_SENTENCE.test(s.clean) ? [i] : []));
  if (at.length === 0) return [];
  const pageName = pageNameOf(request, text);
  const pageKey = variantKey(pageName);
  const targets = scored.filter((s) => s.entity.signals?.includes('link') && variantKey(s.entity.name) !== pageKey && s.sentences.some((i) => at.includes(i)));
  if (targets.length === 0) return [];
  let page = scored.find((s) => variantKey(s.entity.name) === pageKey);
  if (!page) {
    const first = at.find((i) => targets.some((t) => t.sentences.includes(i)))!;
    page = {
      entity: { name: pageName, type: request.linkTargetTypes?.[request.pageTitle] ?? typeByForm(pageName), confidence: confidence(['title', 'link'], 0), evidence: sentences[first].quote, signals: ['title', 'link'] },
      sentences: [first],
    };
    scored.push(page);
  }
  return targets.map((target) => ({
    source: page.entity.name,
    predicate: 'related_to' as const,
    target: target.entity.name,
    confidence: SEE_ALSO_CONFIDENCE,
    evidence: sentences[target.sentences.find((i) => at.includes(i))!].quote,
    signals: ['see-also'],
  }));
}

/**
 * A sentence of a page about a thing that starts by naming its subject without its name: "It requires the Dataview
 * plugin", "This command uses the Git CLI". Read with the page's name in its place, the typed patterns of
 * relation-patterns.ts give the relation from the page's entity to the other name (never `related_to`: a pronoun
 * alone says nothing of a relation).
 */
// `This page` and `This note` are not among them: they name the document (an example note, the page as a file), not
// the thing the page is about (`This note actually has a frontmatter tag set`, on the page about tags).
const SUBJECT_PRONOUN = /^(?:this (?:feature|plugin|extension|command|tool|panel|view|setting|option|template|integration|package|library|service|format|workflow|function)|it|this)\s+(?=\p{Ll})/iu;

function subjectRelations(
  request: ExtractionRequest,
  sentences: Sentence[],
  scored: { entity: ExtractedEntity; sentences: number[] }[],
  text: string,
  evidenceIn: (sentence: number, name: string) => string,
): ExtractedRelation[] {
  if (request.pageTitle.trim() === '' || titleKind(request.pageTitle) !== 'entity') return [];
  const pageName = pageNameOf(request, text);
  const pageKey = variantKey(pageName);
  const subject: ExtractedEntity = { name: pageName, type: 'concept', confidence: 0, evidence: '' };
  const relations: ExtractedRelation[] = [];
  sentences.forEach((sentence, at) => {
    const pronoun = SUBJECT_PRONOUN.exec(sentence.clean);
    if (!pronoun || sentence.heading) return;
    const reworded = `${pageName} ${sentence.clean.slice(pronoun[0].length)}`;
    for (const other of scored) {
      if (!other.sentences.includes(at) || variantKey(other.entity.name) === pageKey) continue;
      const found = typedRelation(reworded, subject, other.entity);
      if (!found || found.predicate === 'related_to') continue;
      relations.push({
        source: found.source, predicate: found.predicate, target: found.target, confidence: round(Math.min(MAX_CONFIDENCE, other.entity.confidence * 0.9)),
        evidence: evidenceIn(at, other.entity.name), signals: ['sentence-pattern', 'page-subject'],
      });
    }
  });
  if (relations.length === 0) return [];
  // The page's own entity joins the chunk's (the sentence names it, by a pronoun), as for "See also".
  if (!scored.some((s) => variantKey(s.entity.name) === pageKey)) {
    const first = sentences.findIndex((s) => SUBJECT_PRONOUN.test(s.clean));
    scored.push({
      entity: { name: pageName, type: request.linkTargetTypes?.[request.pageTitle] ?? typeByForm(pageName), confidence: confidence(['title'], 0), evidence: sentences[first].quote, signals: ['title', 'page-subject'] },
      sentences: [first],
    });
  }
  return relations;
}

const HIERARCHY_CONFIDENCE = 0.75;

/** Two names as an unordered pair, variants alike. */
function pairKey(a: string, b: string): string {
  return [variantKey(a), variantKey(b)].sort().join('\u0000');
}

/**
 * The vault's hierarchy as evidence (`request.linkTargetPlaces`, src/kg/page-hierarchy.ts): a page that links to a
 * page under it, or to the page it sits under, relates the two by where they sit. The one under is a kind of the
 * other when its name ends in the other's head noun (`Scratch Note` under `Special Notes`, `Wiki Link` under `Links`:
 * is_a), else a part of it (`foam list` under `Foam CLI`, `Backlinks` under `Sidebar`: part_of). The sentence with the
 * link is the evidence. Both titles must name things: a how-to or topic page is a page, not an entity.
 */
function hierarchyRelations(request: ExtractionRequest, sentences: Sentence[], scored: { entity: ExtractedEntity; sentences: number[] }[], text: string): ExtractedRelation[] {
  const places = Object.entries(request.linkTargetPlaces ?? {});
  if (places.length === 0 || request.pageTitle.trim() === '' || titleKind(request.pageTitle) !== 'entity') return [];
  const pageName = pageNameOf(request, text);
  const pageKey = variantKey(pageName);
  // A page whose pages below are mostly how-tos (`Recipes`: `add-images-to-notes`, `export-to-pdf`, …) is a list of
  // guides: a page below it named like a thing (`web-clipper`) is a guide too, not a part of it.
  const children = places.filter(([, place]) => place === 'child');
  const howTos = children.filter(([title]) => titleKind(title) === 'task').length;
  const guides = howTos > 0 && howTos * 2 >= children.length;
  const relations: ExtractedRelation[] = [];
  let first: number | null = null;
  for (const [title, place] of places) {
    if (titleKind(title) !== 'entity' || (place === 'child' && guides)) continue;
    const key = variantKey(linkNameOf(request, title, text));
    const target = scored.find((s) => s.entity.signals?.includes('link') && variantKey(s.entity.name) === key);
    if (!target || key === pageKey) continue;
    const at = target.sentences.find((i) => !sentences[i].heading && linksIn(sentences[i].raw).some((t) => nameKey(t) === nameKey(title) || slug(t) === slug(title)));
    if (at === undefined) continue;
    first ??= at;
    const [under, over] = place === 'child' ? [target.entity.name, pageName] : [pageName, target.entity.name];
    relations.push({
      source: under,
      predicate: sameHeadNoun(under, over) ? 'is_a' : 'part_of',
      target: over,
      confidence: HIERARCHY_CONFIDENCE,
      evidence: sentences[at].quote,
      signals: ['hierarchy'],
    });
  }
  // The page's own entity joins the chunk's (the link names it by where it sits), as for "See also".
  if (first !== null && !scored.some((s) => variantKey(s.entity.name) === pageKey)) {
    scored.push({
      entity: { name: pageName, type: request.linkTargetTypes?.[request.pageTitle] ?? typeByForm(pageName), confidence: confidence(['title', 'link'], 0), evidence: sentences[first].quote, signals: ['title', 'link'] },
      sentences: [first],
    });
  }
  return relations;
}

/** `Scratch Note` and `Special Notes`: the last words are one noun (singular or plural), and the first name is longer. */
function sameHeadNoun(under: string, over: string): boolean {
  const a = under.toLowerCase().split(/[\s_-]+/).filter(Boolean);
  const b = over.toLowerCase().split(/[\s_-]+/).filter(Boolean);
  return a.length > 1 && b.length > 0 && singular(a[a.length - 1]) === singular(b[b.length - 1]);
}

/**
 * The type a name's evidence gives it, the most specific first: the linked page's frontmatter `type:` or cluster, a
 * pattern around the name in the chunk (`the X plugin`, `X setting`, `X file`, `X is a markup language`), the lexicon
 * (a person, a place, an organisation); else `other` for a capitalised name and `concept` for a common noun phrase.
 */
function typeOf(candidate: Candidate, sentences: string[]): EntityType {
  if (candidate.type && candidate.typeRank >= 3) return candidate.type;
  const pattern = patternType(candidate.name, sentences);
  if (pattern) return pattern;
  if (candidate.type) return candidate.type;
  return typeByForm(candidate.name);
}

/**
 * The type a name's own form gives it when nothing else does. A name in lower case, or of words of the language
 * however capitalised (`Graph View`, `Scratch Note`, `Self Contained Vaults`: a heading's or a title's capitals; the
 * words as WordNet lists them, src/common/wordnet.ts), is a concept; so is a lowerCamelCase identifier
 * (`enableSmartRefs`: a setting, an option or a field of the software). A name shaped like software (inner capitals
 * `GitLab`, `KaTeX`, `SQLite`; an acronym `YAML`; a dotted name `Draw.io`) is a technology. Any other capitalised
 * name (a coined word: `Vercel`, `Markdoc`) stays `other`, for the admin to type.
 */
export function typeByForm(name: string): EntityType {
  if (!/\p{Lu}/u.test(name)) return 'concept';
  if (/^\p{Ll}+(?:\p{Lu}\p{Ll}+)+$/u.test(name)) return 'concept';
  const words = name.split(/[\s-]+/).filter(Boolean);
  if (words.some((w) => /\p{Ll}\p{Lu}|^\p{Lu}{2,}(?:\p{Ll}|$)|\p{L}\.\p{L}/u.test(w))) return 'technology';
  if (words.every((w) => /^\p{Lu}?\p{Ll}+$/u.test(w) && (HEADING_SMALL_WORDS.has(w.toLowerCase()) || isCommonWord(w) || isEnglishWord(w)))) return 'concept';
  return 'other';
}

// Head nouns that say what a name is when they follow it (`the Sync plugin`, `Markdown files`).
const AFTER_HEADS = new Set([
  'plugin', 'plugins', 'extension', 'extensions', 'app', 'application', 'editor', 'tool', 'service', 'library', 'framework', 'language', 'format',
  'protocol', 'platform', 'database', 'api', 'syntax', 'files', 'command', 'setting', 'settings', 'option', 'panel', 'pane', 'sidebar', 'menu',
  'company', 'foundation', 'engine', 'generator', 'runtime', 'standard', 'specification',
]);
// Head nouns of a definition (`X is a lightweight markup language`, `X is a static site generator`).
const DEFINITION_HEADS = new Set([
  ...AFTER_HEADS, 'file', 'feature', 'view', 'project', 'organization', 'organisation', 'team', 'website', 'site', 'document', 'guide', 'theme',
  'template', 'method', 'technique', 'workflow', 'concept', 'person', 'developer', 'author', 'city', 'country', 'event', 'conference', 'product',
]);
/** What a head noun makes of a name: `files` after a name is a file format (`Markdown files`), not a document. */
const HEAD_TYPES: Record<string, EntityType> = { files: 'technology', setting: 'concept', settings: 'concept', option: 'concept', command: 'concept', panel: 'concept', pane: 'concept', sidebar: 'concept', menu: 'concept' };

function patternType(name: string, sentences: string[]): EntityType | null {
  const needle = name.toLowerCase();
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (let at = wholeWordIndex(lower, needle); at >= 0; at = wholeWordIndex(lower, needle, at + 1)) {
      const rest = lower.slice(at + needle.length, at + needle.length + 80);
      const head = definitionHead(rest) ?? afterHead(rest);
      if (!head) continue;
      const type = HEAD_TYPES[head] ?? normaliseEntityType(head).type;
      if (type !== 'other') return type;
    }
  }
  return null;
}

const DEFINITION = /^(?:['’]s)?\s+(?:is|are|was)\s+(?:a|an|the)\s+([^.,;:!?()]*)/;
const AFTER = /^(?:['’]s)?\s+([\p{L}-]+)/u;
const HEAD_STOPS = new Set(['that', 'which', 'who', 'for', 'to', 'with', 'of', 'in', 'on', 'and', 'or', 'used', 'by', 'from', 'where', 'when', 'you', 'is']);

/** `is a lightweight markup language that …` → `language`: the last word before a function word, within four. */
function definitionHead(rest: string): string | null {
  const words = DEFINITION.exec(rest)?.[1].split(/\s+/).filter(Boolean);
  if (!words) return null;
  let head: string | null = null;
  for (const word of words.slice(0, 5)) {
    if (HEAD_STOPS.has(word)) break;
    head = word;
  }
  return head && DEFINITION_HEADS.has(head) ? head : null;
}

/** `Sync plugin`, `Markdown files`: the word right after the name, when it says what the name is. */
function afterHead(rest: string): string | null {
  const word = AFTER.exec(rest)?.[1];
  return word && AFTER_HEADS.has(word) ? word : null;
}

/**
 * Why a capitalised word is an ordinary word in this wiki, or null: a common word of the language whose corpus
 * statistics (src/kg/term-stats.ts) show it written in lower case inside sentences at least as often as capitalised,
 * twice or more.
 */
function ordinaryWord(name: string, stats: ExtractionRequest['termStats']): string | null {
  if (!stats || /\s/.test(name) || /^\p{Lu}{2,}/u.test(name) || /\p{Ll}\p{Lu}/u.test(name)) return null;
  // A word of the language (the lexicon's common words) written in lower case as often as capitalised; any other word
  // (jargon such as `frontmatter`, `git`, which may name a thing) only when lower case is twice as common.
  const { lower, capitalised } = termUse(name, stats);
  if (lower >= 2 && lower >= capitalised * (isCommonWord(name) ? 1 : 2)) return `an ordinary word in this wiki (written in lower case ${lower} times, capitalised ${capitalised})`;
  return null;
}

/** Whether the wiki writes a common noun as a name: capitalised inside sentences more often than not, twice or more. */
function writtenAsName(word: string, stats: ExtractionRequest['termStats']): boolean {
  if (!stats) return false;
  const { lower, capitalised } = termUse(word, stats);
  return capitalised >= 2 && capitalised > lower;
}

function termUse(word: string, stats: NonNullable<ExtractionRequest['termStats']>): { lower: number; capitalised: number } {
  const key = word.toLowerCase();
  const forms = new Set([key, singularOf(key), `${singularOf(key)}s`]);
  let lower = 0;
  let capitalised = 0;
  for (const form of forms) {
    const entry = stats.terms[form];
    if (entry) {
      lower += entry.lower;
      capitalised += entry.capitalised;
    }
  }
  return { lower, capitalised };
}

function singularOf(word: string): string {
  return word.length > 3 && /[^s]s$/.test(word) ? word.slice(0, -1) : word;
}

/** Noisy-OR of the signal weights, plus one `repeat` per further sentence (at most MAX_REPEATS). */
export function confidence(signals: Iterable<Signal>, repeats: number): number {
  let miss = 1;
  for (const signal of signals) miss *= 1 - SIGNAL_WEIGHTS[signal];
  miss *= (1 - SIGNAL_WEIGHTS.repeat) ** Math.min(MAX_REPEATS, Math.max(0, repeats));
  return round(Math.min(MAX_CONFIDENCE, 1 - miss));
}

function has(term: TaggedTerm, ...tags: string[]): boolean {
  return tags.some((t) => term.tags.has(t));
}

function isCapitalised(text: string): boolean {
  return /^\p{Lu}/u.test(text) || /^\p{Ll}+\p{Lu}/u.test(text);
}

/** Runs of capitalised words (joined by `of`, `de`, …), typed as person, place or organisation where the lexicon knows. */
function properNounPhrases(terms: TaggedTerm[], writtenAsNameHere: (word: string) => boolean = () => false): { name: string; type: EntityType | null }[] {
  const phrases: { name: string; type: EntityType | null }[] = [];
  let run: TaggedTerm[] = [];
  let articleBefore = false;
  const close = () => {
    while (run.length > 0 && CONNECTORS.has(run[run.length - 1].text.toLowerCase())) run.pop();
    // `Install VS Code`, `Why Choose Foam`, `The Apache Foundation`: leading verbs and function words are not the name,
    // unless an article stands before the run (`the Share Sheet`: a noun phrase whose first word is also a verb).
    while (run.length > 1 && isLeadingFunctionWord(run[0]) && !(articleBefore && !has(run[0], 'Determiner', 'Pronoun', 'QuestionWord'))) run.shift();
    const single = run.length === 1 ? run[0] : null;
    // A lone capitalised common word (`Notes`, `See`, `Version`) is emphasis or a list item's first word, not a name.
    if (single && isCommonWord(single.text) && !has(single, 'Person', 'Place', 'Organization')) run = [];
    if (run.length > 0) {
      const name = run
        .map((t, i) => t.text + (i < run.length - 1 ? (t.post.trim() === '-' ? '-' : ' ') : ''))
        .join('')
        .replace(/['\u2019]s$/u, ''); // `VS Code's` → `VS Code`
      phrases.push({ name, type: phraseType(run) });
    }
    run = [];
  };
  terms.forEach((term, i) => {
    // Punctuation before the word (`: What`, ` - Notes`, `(Foo`) starts a new clause, like a sentence start.
    const boundary = i === 0 || /[^\s-]|\s-|-\s/.test(terms[i - 1].post) || /\S/.test(term.pre);
    if (boundary) close();
    const capitalised = isCapitalised(term.text) && term.text !== 'I';
    let inRun: boolean;
    if (capitalised && !boundary) inRun = true;
    else if (capitalised) {
      // A capital after a boundary says little: keep it when it is an acronym, when the lexicon calls it a
      // name, when the wiki writes the word capitalised inside its sentences (`Foam supports …`), or when it starts a
      // run of capitalised words.
      const next = terms[i + 1];
      inRun =
        /^\p{Lu}{2,}\d*$/u.test(term.text) ||
        has(term, 'Person', 'Place', 'Organization') ||
        (!has(term, ...FUNCTION_TAGS) && !isCommonWord(term.text) && writtenAsNameHere(term.text)) ||
        (next !== undefined && isCapitalised(next.text) && !/[^\s-]|\s-|-\s/.test(term.post) && !has(term, ...FUNCTION_TAGS));
    } else inRun = run.length > 0 && CONNECTORS.has(term.text.toLowerCase()) && isCapitalised(terms[i + 1]?.text ?? '');
    if (inRun && run.length === 0) articleBefore = i > 0 && ARTICLE_BEFORE.test(terms[i - 1].text) && !/[^\s]/.test(terms[i - 1].post);
    if (inRun) run.push(term);
    else close();
  });
  close();
  return phrases;
}

const ARTICLE_BEFORE = /^(?:the|a|an|your|our|this|that|its|their)$/i;
const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person', 'Place', 'City', 'Country', 'Region', 'Organization', 'ProperNoun', 'Honorific', 'Demonym']);
const VERB_TAGS = new Set(['Infinitive', 'PresentTense', 'PastTense', 'Gerund', 'Participle', 'Imperative', 'Verb', 'Modal', 'Copula', 'Auxiliary', 'PhrasalVerb']);
const LEADING_TAGS = new Set([...VERB_TAGS, 'Determiner', 'Pronoun', 'QuestionWord', 'Preposition', 'Conjunction', 'Adverb']);

/** In compromise's lexicon as something other than a name. */
function isCommonWord(word: string): boolean {
  let tags = lexiconTags(word);
  if (tags.length === 0 && /[^s]s$/i.test(word)) tags = lexiconTags(word.slice(0, -1)); // `Groups` → `group`
  return tags.length > 0 && !tags.some((t) => NAME_TAGS.has(t));
}

function isLeadingFunctionWord(term: TaggedTerm): boolean {
  if (/^\p{Lu}{2,}/u.test(term.text)) return false; // `VS Code` is not `vs`
  return lexiconTags(term.text).some((t) => LEADING_TAGS.has(t)) || has(term, 'Determiner', 'QuestionWord', 'Pronoun');
}

// Words a title-case heading leaves in lower case (`Publish to GitHub Pages`, `Tips and Tricks`).
const HEADING_SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'from', 'in', 'into', 'nor', 'of', 'on', 'or', 'the', 'to', 'vs', 'via', 'with']);

/**
 * A heading whose every word but the small ones is capitalised (`Our Pledge`, `Using Git`): its capitals are the
 * heading's style, not a sign of a name. Its words still count where they name a linked page, the page title or a
 * noun phrase.
 */
function isCapitalisedHeading(clean: string): boolean {
  const words = clean.split(' ').filter((w) => /^\p{L}/u.test(w) && !HEADING_SMALL_WORDS.has(w.toLowerCase()));
  return words.length > 0 && words.every((w) => /^\p{Lu}/u.test(w));
}

// A label's word: a capital, letters (`Draw.io`: dots only between letters), an ellipsis at most (`Open Folder…`).
// Every part of a word can be read one way only, and a label is a few words: the match stays linear on any text.
const MENU_WORD = String.raw`\p{Lu}[\p{L}\p{N}'’-]*(?:\.[\p{L}\p{N}]+)*(?:…|\.\.\.)?`;
const MENU_SEGMENT = String.raw`${MENU_WORD}(?: (?:(?:${[...HEADING_SMALL_WORDS].join('|')})(?![\p{L}\p{N}])|${MENU_WORD})){0,6}`;
const MENU_ARROW = /->|→|>|›|=>/;
/** A path through an application's menus: `File > Open Folder`, `File -> Add Folder to Workspace`, `View → Command Palette…`. */
const MENU_PATH = new RegExp(String.raw`${MENU_SEGMENT}(?: ?(?:->|→|>|›|=>) ?${MENU_SEGMENT}){1,8}`, 'gu');

/** The text without menu paths: their words are capitalised because they are labels on screen, not names. */
export function withoutMenuPaths(clean: string): string {
  if (!MENU_ARROW.test(clean)) return clean;
  return clean.replace(MENU_PATH, ' ').replace(/\s+/g, ' ').trim();
}

/** Headings, table-of-contents entries and link labels capitalise every word; their capitals are not evidence. */
function isTitleCase(clean: string): boolean {
  const words = clean.split(' ').filter((w) => w.length >= 4 && /^\p{L}/u.test(w));
  if (words.length < 2 || clean.split(' ').length > 12) return false;
  return words.every((w) => /^\p{Lu}/u.test(w));
}

function phraseType(run: TaggedTerm[]): EntityType | null {
  const last = run[run.length - 1];
  // A single word is typed only by the lexicon itself; the tagger's guesses on lone capitals are too loose.
  const tags = run.length === 1 ? new Set(lexiconTags(last.text)) : last.tags;
  if (ORG_SUFFIXES.has(last.text.toLowerCase().replace(/\.$/, '')) || tags.has('Organization')) return 'organization';
  if (tags.has('Place') || tags.has('City') || tags.has('Country') || tags.has('Region')) return 'place';
  if (has(run[0], 'Honorific') || (run.length >= 2 && has(run[0], 'FirstName') && run.every((t) => has(t, 'Person', 'FirstName', 'LastName', 'ProperNoun')))) {
    return 'person';
  }
  return null;
}

/** Lower-case noun phrases: adjectives and nouns ending in a noun, up to four words. */
function nounPhrases(terms: TaggedTerm[]): string[] {
  const phrases: string[] = [];
  let run: TaggedTerm[] = [];
  const close = () => {
    while (run.length > 0 && !has(run[run.length - 1], 'Noun')) run.pop();
    while (run.length > 4) run.shift();
    if (run.length > 0) phrases.push(run.map((t) => t.text).join(' '));
    run = [];
  };
  for (const term of terms) {
    const word = term.text;
    const fits =
      /^\p{Ll}[\p{Ll}\p{N}-]*$/u.test(word) &&
      !NOUN_PHRASE_STOPS.has(word) &&
      word.length > 1 &&
      has(term, 'Noun', 'Adjective') &&
      !has(term, 'Pronoun', 'Possessive', 'Determiner', 'Value', 'Verb', 'Adverb', 'Preposition', 'Conjunction') &&
      !lexiconTags(word).some((t) => VERB_TAGS.has(t));
    if (/[("'\u201C[]/.test(term.pre)) close();
    if (fits) run.push(term);
    else close();
    if (/[^\s'\u2019-]|\s-/.test(term.post)) close(); // any punctuation or symbol after the word but a hyphen inside a word
  }
  close();
  return phrases;
}

/** Link targets written in a sentence: `[[Target]]`, `[[Target|label]]`, `[[Target#Section]]`, `[label](target.md)`. */
function linksIn(sentence: string): string[] {
  const raw = sentence.replace(CODE_SPAN, ' ');
  const out: string[] = [];
  for (const m of raw.matchAll(WIKILINK_TARGET)) if (!isAttachmentTarget(m[1].trim())) out.push(m[1].trim());
  for (const m of raw.matchAll(LINK_WITH_DESTINATION)) {
    const href = m[2];
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue;
    const file = decodeURIComponentSafe(href.split('#')[0].split('/').pop() ?? '').replace(/\.(md|markdown)$/i, '');
    if (file) out.push(file);
    if (m[1].trim()) out.push(m[1].trim());
  }
  return out;
}

// The markup patterns of the built-in extractor. Each looks a bounded distance past its opening mark
// (src/common/markup-patterns.ts: a longer link, code span or tag stays as words), so a chunk of a thousand `[` or `<`
// costs a linear pass, not a quadratic one.
const { label: L, destination: D } = MARKUP_BOUNDS;
/** `](destination)`: a link's destination, left out of the words. */
const LINK_DESTINATION = new RegExp(String.raw`\]\([^)\n]{0,${D}}\)`, 'g');
/** A wikilink's target (group 1), without its section or label. */
const WIKILINK_TARGET = new RegExp(String.raw`\[\[([^\]|#\n]{1,${L}})(?:#[^\]|\n]{0,${L}})?(?:\|[^\]\n]{0,${L}})?\]\]`, 'g');
/**
 * `[label](destination "title")`: label and destination captured. The title comes only after a blank: two classes
 * that could both take the same characters would backtrack over every way of sharing them.
 */
const LINK_WITH_DESTINATION = new RegExp(String.raw`\[([^\]\n]{0,${L}})\]\(([^)\s]{1,${D}})(?:\s[^)]{0,${D}})?\)`, 'g');
/** Any wikilink or embed, its target captured. */
const ANY_WIKILINK = new RegExp(String.raw`!?\[\[([^\]|#\n]{0,${L}})(?:#[^\]|\n]{0,${L}})?(?:\|[^\]\n]{0,${L}})?\]\]`, 'g');
/** A wikilink with a label: the label is group 2. */
const WIKILINK_WITH_LABEL = new RegExp(String.raw`!?\[\[([^\]|#\n]{0,${L}})(?:#[^\]|\n]{0,${L}})?\|([^\]\n]{0,${L}})\]\]`, 'g');
/** A wikilink without a label: its target is group 1. */
const WIKILINK_WITHOUT_LABEL = new RegExp(String.raw`!?\[\[([^\]|#\n]{0,${L}})(?:#[^\]|\n]{0,${L}})?\]\]`, 'g');
/** A Markdown link or image: its label is group 1. */
const LINK_OR_IMAGE = new RegExp(String.raw`!?\[([^\]\n]{0,${L}})\]\([^)\n]{0,${D}}\)`, 'g');
/** A footnote mark, `[^1]`. */
const FOOTNOTE_MARK = new RegExp(String.raw`\[\^[^\]\n]{0,${L}}\]`, 'g');

/** Plain words for the tagger: link and emphasis markup, code, URLs and HTML removed; link labels kept. */
export function cleanMarkdown(raw: string): string {
  return raw
    .replace(ANY_WIKILINK, (link, target: string) => (isAttachmentTarget(target.trim()) ? ' ' : link))
    .replace(IMAGE, ' ')
    .replace(WIKILINK_WITH_LABEL, '$2')
    .replace(WIKILINK_WITHOUT_LABEL, '$1')
    .replace(LINK_OR_IMAGE, '$1')
    .replace(CODE_SPAN, ' ')
    .replace(SNAKE_IDENTIFIER, ' ')
    .replace(HTML_TAG, ' ')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(FOOTNOTE_MARK, '')
    .replace(BLOCK_MARKER, '')
    .replace(/(^|[\s(\[])[*_~]+(?=\S)/g, '$1')
    .replace(/(\S)[*_~]+(?=$|[\s).,;:!?\]])/g, '$1')
    .replace(/\|/g, ' ; ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Lower-case words separated by single spaces, for whole-word search: letters, digits and the `+`, `#`, `.`,
 * `-` inside words (`c++`, `c#`, `node.js`, `berners-lee`) kept, everything else a separator.
 */
function searchable(text: string): string {
  const lower = text.normalize('NFKC').toLowerCase();
  let out = '';
  let pendingSpace = false;
  for (let i = 0; i < lower.length; i++) {
    const ch = lower[i];
    const code = lower.charCodeAt(i);
    let keep: boolean;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 35) keep = true;
    else if (code === 46 || code === 45) keep = isWordAt(lower, i - 1) && isWordAt(lower, i + 1); // `.`/`-` inside a word only
    else if (code < 128) keep = false;
    else keep = WORD_CHAR.test(ch) || (code >= 0xd800 && code <= 0xdfff);
    if (!keep) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out += ch;
  }
  return out;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

function isWordAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const code = text.charCodeAt(i);
  if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) return true;
  return code >= 128 && WORD_CHAR.test(text[i]);
}

function mentions(sentence: Sentence, name: string): boolean {
  return mentionsNeedle(sentence, searchable(name));
}

/** `needle` is `searchable(name)`, computed once per name rather than once per sentence. */
function mentionsNeedle(sentence: Sentence, needle: string): boolean {
  return needle !== '' && sentence.search.includes(` ${needle} `);
}

function isPlausibleName(key: string): boolean {
  if (key.length < 2 || key.length > 80) return false;
  if (STOP_NAMES.has(key)) return false;
  // A file name or a path (`lucide-cog.svg`, `../../CONTRIBUTING.md`) is an attachment or a page, never an entity;
  // nor is a dotted path (`dendron.topic.note-reference.sample`, `docs.github.com`: a note's file name, a host).
  if (/[\\/]/.test(key) || isAttachmentTarget(key) || /\.(?:md|markdown)$/.test(key) || DOTTED_PATH.test(key)) return false;
  return /\p{L}/u.test(key);
}

const DOTTED_PATH = /^[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+){2,}$/u;

// An identifier written with underscores (`TM_CURRENT_LINE`, `note_id`): code, whose parts are not names.
const SNAKE_IDENTIFIER = /(?<![\p{L}\p{N}])[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)+(?![\p{L}\p{N}])/gu;

const BLOCK_MARKER = /^\s{0,3}(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+|>\s?)+/;

/** A long sentence's stretch around the name (about MAX_EVIDENCE characters, cut at spaces): a verbatim slice. */
function evidenceWindow(text: string, name: string): string {
  const at = Math.max(0, text.toLowerCase().indexOf(name.toLowerCase().split(' ')[0]));
  let start = Math.max(0, at - 100);
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  let end = Math.min(text.length, start + MAX_EVIDENCE);
  while (end < text.length && end > start + 1 && !/\s/.test(text[end])) end--;
  return text.slice(start, end).trim();
}

function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
