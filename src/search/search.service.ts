import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import type { SearchConfig } from '../config/search-config.js';
import { EMBEDDER, type Embedder } from '../embedders/embedder.js';
import { passageHref } from '../pages/evidence.js';
import { entityHref, searchHref } from '../web/reader-urls.js';
import { EntityReaderService, type EntityReading } from '../entities/entity-reader.service.js';
import { rankPagesByEntities, walkNeighbours, type EntityReach } from './graph-proximity.js';
import { linkedCandidates, withLinkedSlots } from './linked-slots.js';
import { fuseRankings, groupChunksToPages, strongestList, type FusedItem, type RankedList, type SearchList } from './rank-fusion.js';
import { understandQuery, type QueryUnderstanding } from './query-names.js';
import { CONTEXT_FULL_WEIGHT_SHARE, contextCeiling, scoreContext, type ContextScore } from './entity-context.js';
import { blendNamed, keepInTop, withContext, withGraphBonus } from './query-ranking.js';
import { parseSearchQuery } from './search-query.js';
import { SearchNamesService, type SearchKnowledge } from './search-names.service.js';
import { SearchGraphRepository, type EntityName } from './search-graph.repository.js';
import { SearchVectorRepository } from './search-vector.repository.js';
import { SearchRepository, type LexicalHit, type PageCard, type QueryExpansion, type SearchFilters } from './search.repository.js';
import { closedSpelling, compoundParts, querySynonymCandidates } from './query-synonyms.js';
import { loadWordNetIndex } from '../common/wordnet.js';
import { WordNetSynonyms } from './wordnet-synonyms.js';
import { cachedSnippet, heldSentences, heldTextKeys, keepSnippet, MARK_END, MARK_START, snippetSource, snippetWindow } from './snippets.js';
import { Metrics } from '../metrics/metrics.js';

export interface SearchHit {
  slug: string;
  title: string;
  cluster: string | null;
  tags: string[];
  type: string | null;
  /** Safe HTML: escaped text with the matched words in <mark>. */
  snippetHtml: string;
  /** The fused score (weighted reciprocal ranks), or a title's similarity for `fuzzy-title` hits. */
  score: number;
  url: string;
  /** The section the snippet comes from: the page URL with the heading's anchor (the page URL when none). */
  sectionUrl: string;
  /** The heading path of that section (empty: the page's top). */
  section: string[];
  /** With `explain`: how the hit was found, its rank in each list, matched terms and entities. */
  explain?: SearchHitExplanation;
}

export interface SearchHitExplanation {
  /**
   * The list that added most to the fused score (`lexical`: BM25 over titles, aliases/tags and text; `vector`:
   * chunk embeddings; `graph`: entities near the query's), `linked` (a slot for a page the best hits link to), or
   * `fuzzy-title` (no word matched; a title resembles it).
   */
  source: SearchList | 'linked' | 'fuzzy-title';
  /** The final rank. */
  rank: number;
  /** Each list's rank and own score for this page (null: not among that list's first N, or the list did not run). */
  lists: {
    lexical: { rank: number; score: number } | null;
    vector: { rank: number; score: number } | null;
    graph: { rank: number; score: number } | null;
  };
  /**
   * Matched query terms and what each added to the lexical score (they add up to `lists.lexical.score`): `term` is
   * the reader's word (or the other name of something the query names, for an expansion), `lexeme` its stem.
   */
  terms: { term: string; lexeme: string; contribution: number }[];
  /** The query's words that name this page (its title or an alias, or an entity whose name it bears); null: none. */
  namedBy: string | null;
  /** For a page in a linked slot: the ranks of the best hits that link to it. */
  linkedFrom: number[];
  /**
   * What other pages say about the approved entity this page bears the name of, when their sentences hold the
   * query's words: the rank and score among such pages, and the reader's words they hold. Null: none.
   */
  describedBy: { rank: number; score: number; words: string[] } | null;
  /** Entities this page mentions that the graph reached from the query, with their distance in hops (0: named by it). */
  entities: { name: string; type: string; hops: number }[];
}

export interface TitleLink {
  slug: string;
  title: string;
  url: string;
}

export interface RelatedEntity {
  id: string;
  name: string;
  type: string;
  /** 0: the query names it; 1: an approved edge away; null: mentioned by the results shown. */
  hops: number | null;
  /** A search for the entity's name. */
  searchUrl: string;
  /** The entity's reader page. */
  url: string;
}

/** The approved entity a query names, shown above the results: what the knowledge graph knows of it. */
export interface EntityCard {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  /** One line: the entity's description, else the first passage that mentions it. */
  description: string;
  /** The entity's reader page. */
  url: string;
  /** Related entities, grouped by predicate (`out`: this entity → them; `in`: them → this entity). */
  related: { predicate: string; direction: 'out' | 'in'; entities: { id: string; name: string; type: string; url: string }[] }[];
  /** The pages that mention it most, and how many there are. */
  pages: { slug: string; title: string; url: string }[];
  totalPages: number;
}

export interface SearchNotice {
  code: 'vector-unavailable';
  message: string;
}

export interface SearchResult {
  query: string;
  hits: SearchHit[];
  total: number;
  page: number;
  perPage: number;
  /** Titles resembling the query (typo tolerance), offered when it finds few pages. */
  didYouMean: TitleLink[];
  /** Entities of the knowledge graph the query names or the results mention (approved and visible ones only). */
  relatedEntities: RelatedEntity[];
  /** Which lists ranked this query (a list with weight 0, or one that failed, did not). */
  lists: SearchList[];
  /** Something the reader should know about these results, e.g. that meaning-based search was unavailable. */
  notices: SearchNotice[];
  filters: SearchFilters;
  /** The approved entity the query names (most of its words), on the first page of results; null: none. */
  entity: EntityCard | null;
}

export interface SearchOptions {
  explain?: boolean;
  filters?: SearchFilters;
  /** Knowledge-graph signals from soft-excluded pages too. Only for admins: the caller checks the role. */
  includeExcluded?: boolean;
  /** Overrides the configured weights of the lists (the evaluation compares lexical, vector, hybrid, hybrid + graph). */
  weights?: Partial<SearchConfig['weights']>;
  /** Overrides the configured number of slots for pages the best hits link to. */
  linkedSlots?: number;
  /** Overrides how much naming a page's title or alias lifts it, and the weight of the other names searched for (0: off). */
  namedBoost?: number;
  expansionWeight?: number;
  /** Overrides the weight of WordNet synonyms of the reader's rare words, and how rare a word must be (the evaluation). */
  synonymWeight?: number;
  synonymRarePages?: number;
  /** Overrides the weight of what other pages say about the entities pages are named by (0: off). */
  contextWeight?: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// Fewer hits than this and the reader probably mistyped: offer titles that look like the query.
const FEW_RESULTS = 3;
const SUGGESTIONS = 3;
// Chunks read per page the vector list may rank (several chunks of one page are common).
const CHUNKS_PER_PAGE = 3;
const RELATED_ENTITIES = 8;
// The graph signal looks for at most this many of the entities closest to the query in the candidate pages.
const GRAPH_ENTITIES = 500;
// The deepest result a reader can page to: lexical hits beyond the fused head are read in one window.
const DEEPEST_RESULT = 1000;
// Linked slots take pages linked from this many best hits, and only pages not already among the first ten.
const LINKING_HITS = 3;
const LINKED_WINDOW = 10;

export const VECTOR_UNAVAILABLE = 'Meaning-based search is unavailable right now (the embedding service did not answer); these results match your words and the knowledge graph only.';

/** Escapes the snippet text, then turns the database's match markers into <mark> elements. */
export function snippetToHtml(snippet: string): string {
  return snippet
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_END, '</mark>');
}

/** A result card with the sentences of its text, when they were held rather than read (SearchService.cardsOf). */
type SnippetCard = PageCard & { sentences?: readonly string[] };

const pageUrl = (slug: string) => `/page/${encodeURIComponent(slug)}`;


interface GraphList {
  ranked: { pageId: string; score: number; nodeIds: string[] }[];
  reached: Map<string, EntityReach>;
}

/**
 * Hybrid search: a BM25-like lexical ranker in PostgreSQL, k nearest chunk embeddings (pgvector HNSW), and pages
 * near the query's entities in the approved knowledge graph, fused by weighted reciprocal ranks (docs/search.md).
 * Knowledge-graph signals read only visible (not soft-excluded) content; pages stay searchable by their words.
 */
@Injectable()
export class SearchService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Search');
  private readonly indexed = new Map<string, Promise<void>>();
  private readonly config: SearchConfig;

  constructor(
    private readonly repository: SearchRepository,
    private readonly vectors: SearchVectorRepository,
    private readonly graph: SearchGraphRepository,
    private readonly names: SearchNamesService,
    private readonly entities: EntityReaderService,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    config: KurateConfig,
    private readonly metrics: Metrics,
    private readonly wordnet: WordNetSynonyms,
  ) {
    this.config = config.search;
  }

  /**
   * WordNet synonyms of the reader's words, each set searched for only while its word is in fewer than
   * `synonymRarePages` pages (by default: in none; vocabulary mismatch, a reader's `diary` where the wiki says
   * `journal`); none when their weight is 0. Looked up in process; the ranking statement decides which apply.
   */
  private async synonymExpansions(readerWords: readonly string[], options: SearchOptions): Promise<QueryExpansion[]> {
    const weight = options.synonymWeight ?? this.config.synonymWeight;
    if (weight <= 0) return [];
    const candidates = querySynonymCandidates(readerWords.join(' '));
    const found = await this.wordnet.synonymsOf(candidates);
    const pages = options.synonymRarePages ?? this.config.synonymRarePages;
    // A closed compound the language does not list is read as its two words the same way (`hashtags` → `hash tags`).
    const compounds = [...new Set(candidates.map((c) => c.word))].flatMap((word) => {
      const parts = found.has(word) ? null : compoundParts(word);
      return parts ? [{ words: parts.join(' '), weight, whenRare: { word, pages } }] : [];
    });
    return [...[...found].map(([word, synonyms]) => ({ words: synonyms.join(' '), weight, whenRare: { word, pages } })), ...compounds];
  }

  /**
   * The closed spelling of the reader's hyphenated words (`to-do` → `todo`), at full weight and always: it is the same
   * word, and a wiki often writes both (the Dendron docs: `to-do` on one page, `todo` on the tasks page).
   */
  private spellingExpansions(readerWords: readonly string[]): QueryExpansion[] {
    return [...new Set(readerWords.map((w) => w.toLowerCase()))].flatMap((word) => {
      const closed = closedSpelling(word);
      return closed ? [{ words: closed, weight: 1 }] : [];
    });
  }

  /**
   * At start: the word list closed compounds are split by (query-synonyms.ts), read before the server listens rather
   * than in the first search that needs it (0.1 s of the event loop); and the HNSW index for the embedder's model, as
   * soon as its size is known (configured, or from stored vectors).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.synonymWeight > 0) loadWordNetIndex();
    const dims = this.embedder.dimensions || (await this.vectors.storedDimensions(this.embedder.model));
    if (dims) await this.ensureVectorIndex(this.embedder.model, dims);
  }

  private ensureVectorIndex(model: string, dims: number): Promise<void> {
    const key = `${model}\u0000${dims}`;
    let done = this.indexed.get(key);
    if (!done) {
      const started = Date.now();
      done = this.vectors.ensureIndex(model, dims).then(
        () => this.logger.debug(`HNSW index for ${model} (${dims} dimensions) ready in ${Date.now() - started} ms`),
        (error: unknown) => {
          this.indexed.delete(key);
          throw error;
        },
      );
      this.indexed.set(key, done);
    }
    return done;
  }

  /** A search, timed as a whole and by list (kurate_search_duration_seconds). */
  search(query: string, page: number, perPage: number, options: SearchOptions = {}): Promise<SearchResult> {
    return this.metrics.time(this.metrics.searchDuration, { list: 'total' }, () => this.run(query, page, perPage, options));
  }

  private async run(query: string, page: number, perPage: number, options: SearchOptions): Promise<SearchResult> {
    const q = query.trim();
    const filters = cleanFilters(options.filters);
    const weights = { ...this.config.weights, ...options.weights };
    const includeExcluded = options.includeExcluded === true;
    const empty: SearchResult = { query: q, hits: [], total: 0, page, perPage, didYouMean: [], relatedEntities: [], lists: [], notices: [], filters, entity: null };
    if (!q) return empty;
    const { words, excluded, readerWords } = parseSearchQuery(q);
    if (!words) return empty;
    const { topN } = this.config;
    const offset = (page - 1) * perPage;
    const lexicalWindow = Math.min(Math.max(topN, offset + perPage), DEEPEST_RESULT);
    const notices: SearchNotice[] = [];
    const namedBoost = options.namedBoost ?? this.config.namedBoost;
    const expansionWeight = options.expansionWeight ?? this.config.expansionWeight;

    // What the query names (pages by title or alias, approved entities), from the in-process dictionary. Heard
    // throughout, it names live pages only: their liveness needs no statement.
    const heardBefore = this.names.heardEveryChange;
    const knowledge = await this.names.knowledge(includeExcluded);
    const namesLive = heardBefore && this.names.heardEveryChange;
    const understanding = understandQuery(knowledge.dictionary, readerWords.join(' '));
    const expansions: QueryExpansion[] = [
      ...(expansionWeight > 0 && understanding.expansion.length > 0 ? [{ words: understanding.expansion.join(' '), weight: expansionWeight }] : []),
      ...(weights.lexical > 0 ? await this.synonymExpansions(readerWords, options) : []),
      ...(weights.lexical > 0 ? this.spellingExpansions(readerWords) : []),
    ];
    const lexicalRaw =
      weights.lexical > 0
        ? await this.metrics.time(this.metrics.searchDuration, { list: 'lexical' }, () => this.repository.lexicalSearch(words, excluded, lexicalWindow, filters, undefined, expansions, undefined, { terms: options.explain === true }))
        : { hits: [], total: 0 };
    const named = namedBoost > 0 && weights.lexical > 0 ? await this.namedPages(understanding, excluded, filters, namesLive) : new Map<string, number>();
    let blended = blendNamed(lexicalRaw.hits, named, namedBoost);
    // The pages the query names that lead the words' ranking: no other list may push them out of the first three,
    // the approved graph's signals (anchor text, entity neighbours) no more than the vector list.
    const protectedTop = blended.slice(0, 3).filter((b) => b.named > 0).map((b) => b.pageId);
    // The approved graph's anchor text: pages that other pages' sentences about their entity describe in these words.
    const contextWeight = options.contextWeight ?? this.config.contextWeight;
    let described: ContextScore[] = [];
    if (contextWeight > 0 && weights.lexical > 0 && knowledge.context.size > 0) {
      const terms = await this.repository.queryTerms(words, expansions);
      const scored = scoreContext(knowledge.context, terms);
      const allowed = await this.pagesAllowed(scored.slice(0, topN).map((c) => c.pageId), excluded, filters, namesLive);
      described = scored.filter((c) => allowed.has(c.pageId)).slice(0, topN);
      blended = withContext(blended, described, contextWeight, CONTEXT_FULL_WEIGHT_SHARE * contextCeiling(knowledge.context, terms));
    }
    // The approved graph: the best candidates that mention the query's entities or their close neighbours move up.
    const graph =
      weights.graph > 0 && understanding.entities.length > 0
        ? await this.metrics.time(this.metrics.searchDuration, { list: 'graph' }, () => this.graphSignal(understanding, knowledge, blended.slice(0, topN).map((b) => b.pageId), includeExcluded))
        : null;
    if (graph) blended = withGraphBonus(blended, graph.ranked, weights.graph);
    const rawById = new Map(lexicalRaw.hits.map((h) => [h.pageId, h]));
    const lexical = {
      hits: blended.map((b): LexicalHit => ({ pageId: b.pageId, score: b.lexical, terms: rawById.get(b.pageId)?.terms ?? [] })),
      total: lexicalRaw.total + blended.filter((b) => !rawById.has(b.pageId)).length,
    };

    // No word matched: meaning-based search answers even when its weight is 0 (a question never comes back empty).
    if (weights.vector === 0 && weights.lexical > 0 && lexical.total === 0 && this.config.vectorFallback && options.weights?.vector === undefined) weights.vector = 1;
    const vector =
      weights.vector > 0
        ? await this.metrics.time(this.metrics.searchDuration, { list: 'vector' }, async () => {
            const queryVector = await this.embedQuery(words, notices);
            return queryVector ? this.vectorList(queryVector, excluded, filters, includeExcluded) : null;
          })
        : null;

    const lists: RankedList[] = [];
    if (weights.lexical > 0) lists.push({ list: 'lexical', weight: weights.lexical, keys: lexical.hits.map((h) => h.pageId) });
    if (vector) lists.push({ list: 'vector', weight: weights.vector, keys: vector.map((v) => v.pageId) });
    const fusedRaw = fuseRankings(lists, { k: this.config.rrfK, topN });
    const fusedById = new Map(fusedRaw.map((f) => [f.key, f]));
    const fused = keepInTop(fusedRaw.map((f) => f.key), protectedTop).map((id) => fusedById.get(id) ?? { key: id, score: 0, ranks: {}, contributions: {} });
    // Below the fused head, the lexical ranking continues (pages that matched words but ranked below N).
    const inHead = new Set(fused.map((f) => f.key));
    let ranking: FusedItem[] = [...fused, ...lexical.hits.filter((h) => !inHead.has(h.pageId)).map((h) => ({ key: h.pageId, score: 0, ranks: {}, contributions: {} }))];
    const lexicalIds = new Set(lexical.hits.map((h) => h.pageId));
    let total = lexical.total + fused.filter((f) => !lexicalIds.has(f.key)).length;
    const describedById = new Map(described.map((d, i) => [d.pageId, { ...d, rank: i + 1 }]));
    // Slots for pages the best hits link to (an answer one link away from the page that matches the words).
    const slots = options.linkedSlots ?? this.config.linkedSlots;
    const linkedFrom = new Map<string, number[]>();
    if (slots > 0 && ranking.length > 0) {
      const ids = ranking.map((r) => r.key);
      const links = await this.repository.linksFrom(ids.slice(0, LINKING_HITS), filters, words, expansions);
      const candidates = linkedCandidates(ids, links, LINKING_HITS, LINKED_WINDOW);
      const unwanted = await this.repository.pagesWithWords(candidates.map((c) => c.pageId), excluded);
      // Only pages that share a word with the query (or its expansion) or that it names: a link alone is no answer.
      const related = new Set(links.filter((l) => l.holdsWords).map((l) => l.toId));
      // Or whose entity other pages describe in the query's words (approved knowledge: entity-context.ts).
      const kept = candidates.filter((c) => !unwanted.has(c.pageId) && (related.has(c.pageId) || named.has(c.pageId) || describedById.has(c.pageId))).slice(0, slots);
      for (const c of kept) linkedFrom.set(c.pageId, c.linkedFrom);
      const byId = new Map(ranking.map((r) => [r.key, r]));
      ranking = withLinkedSlots(ids, kept, slots).map((id) => byId.get(id) ?? { key: id, score: 0, ranks: {}, contributions: {} });
      total += kept.filter((c) => !byId.has(c.pageId)).length;
    }

    const shown = ranking.slice(offset, offset + perPage);
    const lexicalById = new Map<string, { hit: LexicalHit; rank: number }>(lexical.hits.map((hit, i) => [hit.pageId, { hit, rank: i + 1 }]));
    const vectorById = new Map((vector ?? []).map((v, i) => [v.pageId, { ...v, rank: i + 1 }]));
    const graphById = new Map((graph?.ranked ?? []).map((g, i) => [g.pageId, { ...g, rank: i + 1 }]));
    const cards = await this.cardsOf(shown.map((item) => ({ pageId: item.key, chunkId: vectorById.get(item.key)?.bestChunk.chunkId ?? null })), words, includeExcluded);
    const entityNames = options.explain && graph ? await this.namesOf(shown.flatMap((item) => graphById.get(item.key)?.nodeIds ?? [])) : new Map<string, EntityName>();
    const wordOf = options.explain ? await this.repository.wordsOfLexemes([...readerWords, ...understanding.expansion, ...expansions.flatMap((e) => (e.whenRare ? e.words.split(' ') : []))]) : new Map<string, string>();
    const describedAs = (id: string) => {
      const d = describedById.get(id);
      return d ? { rank: d.rank, score: round(d.score), words: [...new Set(d.lexemes.map((l) => wordOf.get(l) ?? l))] } : null;
    };

    const snippets = await this.snippets(cards, words);

    let hits: SearchHit[] = cards.map((card, i) => {
      const item = shown[i];
      const hit: SearchHit = {
        slug: card.slug,
        title: card.title,
        cluster: card.cluster,
        tags: card.tags,
        type: card.type,
        snippetHtml: snippetToHtml(snippets[i]),
        // Below the fused head the lexical rank goes on scoring on the same scale; a linked slot has no score of its own.
        score: item.score || (lexicalById.has(item.key) ? weights.lexical / (this.config.rrfK + lexicalById.get(item.key)!.rank) : 0),
        url: pageUrl(card.slug),
        sectionUrl: passageHref(card.slug, card),
        section: card.headingPath,
      };
      if (options.explain) {
        const lex = lexicalById.get(item.key);
        const vec = vectorById.get(item.key);
        const gr = graphById.get(item.key);
        hit.explain = {
          source: linkedFrom.has(item.key) ? 'linked' : item.score > 0 ? strongestList(item) : 'lexical',
          rank: offset + i + 1,
          lists: {
            lexical: lex ? { rank: lex.rank, score: round(lex.hit.score) } : null,
            vector: vec ? { rank: vec.rank, score: round(vec.score) } : null,
            graph: gr ? { rank: gr.rank, score: round(gr.score) } : null,
          },
          terms: (lex?.hit.terms ?? []).map((t) => ({ term: wordOf.get(t.term) ?? t.term, lexeme: t.term, contribution: t.contribution })),
          namedBy: understanding.namedBy.get(item.key) ?? null,
          linkedFrom: linkedFrom.get(item.key) ?? [],
          describedBy: describedAs(item.key),
          entities: (gr?.nodeIds ?? [])
            .map((id) => ({ id, name: entityNames.get(id), hops: graph!.reached.get(id)!.hops }))
            .filter((e): e is { id: string; name: EntityName; hops: number } => e.name !== undefined)
            .sort((a, b) => a.hops - b.hops || a.name.name.localeCompare(b.name.name))
            .map((e) => ({ name: e.name.name, type: e.name.type, hops: e.hops })),
        };
      }
      return hit;
    });

    let finalTotal = total;
    let didYouMean: TitleLink[] = [];
    if (lexical.total < FEW_RESULTS && !hasFilters(filters)) {
      const similar = await this.repository.similarTitles(words, SUGGESTIONS);
      const found = new Set(hits.map((hit) => hit.slug));
      didYouMean = similar.filter((s) => !found.has(s.slug)).map((s) => ({ slug: s.slug, title: s.title, url: pageUrl(s.slug) }));
      // No word matched: the titles that look like the query come first (a typo in a title), then what meaning found.
      if (lexical.total === 0 && page === 1 && similar.length > 0) {
        const fuzzy: SearchHit[] = similar.map((s, i) => ({
          slug: s.slug,
          title: s.title,
          cluster: null,
          tags: [],
          type: null,
          snippetHtml: '',
          score: Number(s.similarity),
          url: pageUrl(s.slug),
          sectionUrl: pageUrl(s.slug),
          section: [],
          ...(options.explain
            ? { explain: { source: 'fuzzy-title' as const, rank: i + 1, lists: { lexical: null, vector: null, graph: null }, terms: [], namedBy: null, linkedFrom: [], describedBy: null, entities: [] } }
            : {}),
        }));
        const fuzzySlugs = new Set(fuzzy.map((h) => h.slug));
        const rest = hits.filter((h) => !fuzzySlugs.has(h.slug));
        rest.forEach((h, i) => h.explain && (h.explain.rank = fuzzy.length + i + 1));
        hits = [...fuzzy, ...rest].slice(0, perPage);
        const ranked = new Set(ranking.map((r) => r.key));
        finalTotal = total + similar.filter((x) => !ranked.has(x.pageId)).length;
      }
    }
    return {
      query: q,
      total: finalTotal,
      page,
      perPage,
      hits,
      didYouMean,
      relatedEntities: await this.relatedEntities(understanding, graph, shown.map((s) => s.key), includeExcluded, knowledge.entityTypes.size > 0),
      lists: [...lists.map((l) => l.list), ...(graph ? (['graph'] as const) : [])],
      notices,
      filters,
      entity: page === 1 ? await this.entityCard(understanding) : null,
    };
  }

  /**
   * Plain-text snippets, one per card text, on each card's best-matching sentence with the reader's words marked;
   * only the texts not seen before with these words go to the database.
   */
  private async snippets(cards: SnippetCard[], words: string): Promise<string[]> {
    const snippets = cards.map((card) => cachedSnippet(card.textKey, words));
    const missing = cards.map((card, k) => ({ card, k })).filter(({ k }) => snippets[k] === undefined);
    if (missing.length === 0) return snippets as string[];
    const sources = missing.map(({ card }) => snippetSource({ key: card.textKey, text: card.text, sentences: card.sentences }, words, card.pageId));
    const sent: { card: number; i: number; sentence: string; candidate: boolean }[] = [];
    sources.forEach((source, card) => {
      const near = new Set(source.candidates.flatMap((i) => [i - 3, i - 2, i - 1, i, i + 1, i + 2, i + 3]));
      const candidates = new Set(source.candidates);
      for (const i of [...near].sort((a, b) => a - b)) {
        if (i >= 0 && i < source.sentences.length) sent.push({ card, i, sentence: source.sentences[i], candidate: candidates.has(i) });
      }
    });
    const rows = await this.repository.markSentences(sent, words);
    const best = new Map<number, number>();
    const marked = new Map<number, Map<number, string>>();
    for (const row of rows) {
      best.set(row.card, row.best);
      if (!marked.has(row.card)) marked.set(row.card, new Map());
      marked.get(row.card)!.set(row.i, row.marked);
    }
    sources.forEach((source, k) => {
      const snippet = snippetWindow(source, best.get(k) ?? 0, marked.get(k) ?? new Map());
      snippets[missing[k].k] = snippet;
      keepSnippet(missing[k].card.textKey, words, snippet);
    });
    return snippets as string[];
  }

  /**
   * The result cards, each text read only when its sentences are not held in this process already (snippets.ts): a
   * card whose text was left out carries the held sentences, taken at once (another search may evict them later). A
   * text held when the cards were asked for but evicted by another search since is read again, with its card.
   */
  private async cardsOf(wanted: { pageId: string; chunkId: string | null }[], words: string, includeExcluded: boolean): Promise<SnippetCard[]> {
    const withSentences = (cards: PageCard[]): SnippetCard[] => cards.map((card) => (card.text === null ? { ...card, sentences: heldSentences(card.textKey) } : card));
    const cards = withSentences(await this.repository.pageCards(wanted.map((w) => ({ ...w, knownTextKeys: heldTextKeys(w.pageId) })), words, includeExcluded));
    const lost = new Set(cards.filter((card) => card.text === null && !card.sentences).map((card) => card.pageId));
    if (lost.size === 0) return cards;
    const again = new Map((await this.repository.pageCards(wanted.filter((w) => lost.has(w.pageId)), words, includeExcluded)).map((card) => [card.pageId, card]));
    return cards.map((card) => (lost.has(card.pageId) ? (again.get(card.pageId) ?? card) : card));
  }

  /**
   * The pages the query names that are live, pass the filters and hold none of the `-excluded` words, with how
   * strongly the query names each.
   */
  private async namedPages(understanding: QueryUnderstanding, excluded: string, filters: SearchFilters, namesLive: boolean): Promise<Map<string, number>> {
    const allowed = await this.pagesAllowed([...understanding.namedPages.keys()], excluded, filters, namesLive);
    return new Map([...understanding.namedPages].filter(([id]) => allowed.has(id)));
  }

  /**
   * Of these pages (named by the dictionary), those that are live, pass the filters and hold none of the `-excluded`
   * words. `namesLive`: the dictionary heard every change (SearchNamesService.heardEveryChange), so without filters
   * there is nothing to ask about them.
   */
  private async pagesAllowed(ids: string[], excluded: string, filters: SearchFilters, namesLive: boolean): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const passing = namesLive && !hasFilters(filters) ? new Set(ids) : await this.repository.pagesMatching(ids, filters);
    const unwanted = await this.repository.pagesWithWords(ids, excluded);
    return new Set(ids.filter((id) => passing.has(id) && !unwanted.has(id)));
  }

  /**
   * The card of the entity the query names, when a name of an approved, visible entity covers at least half of the
   * query's content words (the query is about it, not merely mentioning it).
   */
  private async entityCard(understanding: QueryUnderstanding): Promise<EntityCard | null> {
    const best = understanding.entities.filter((e) => e.coverage >= ENTITY_CARD_COVERAGE).sort((a, b) => b.coverage - a.coverage || (a.id < b.id ? -1 : 1))[0];
    if (!best) return null;
    let reading: EntityReading;
    try {
      reading = await this.entities.read(best.id);
    } catch {
      // Hidden from readers (the inclusion policy) or gone since the dictionary was read: no card.
      return null;
    }
    return entityCardOf(reading);
  }

  /** Page titles for the search box as the reader types. */
  suggest(prefix: string, limit = 8): Promise<{ slug: string; title: string }[]> {
    const text = prefix.trim();
    return text ? this.repository.titlesStartingWith(text, limit) : Promise.resolve([]);
  }

  /** The query's vector, or null with a notice when the embedder fails (search goes on without it). */
  private async embedQuery(words: string, notices: SearchNotice[]): Promise<number[] | null> {
    try {
      const [vector] = await this.embedder.embed([words]);
      await this.ensureVectorIndex(this.embedder.model, vector.length);
      return vector;
    } catch (error) {
      this.logger.warn(`Vector search skipped: ${(error as Error).message}`);
      notices.push({ code: 'vector-unavailable', message: VECTOR_UNAVAILABLE });
      return null;
    }
  }

  private async vectorList(vector: number[], excluded: string, filters: SearchFilters, includeExcluded: boolean) {
    const chunks = await this.vectors.nearestChunks(this.embedder.model, vector, this.config.topN * CHUNKS_PER_PAGE, filters, includeExcluded);
    const pages = groupChunksToPages(chunks.filter((c) => c.similarity >= this.config.vectorMinSimilarity), CHUNKS_PER_PAGE);
    const unwanted = await this.repository.pagesWithWords(pages.map((p) => p.pageId), excluded);
    return pages.filter((p) => !unwanted.has(p.pageId));
  }

  /**
   * The graph signal: from the entities the query names, their approved neighbours one or two hops away (in-process
   * lists kept current on approval, weighted by predicate, confidence and co-mention informativeness); the candidate
   * pages that mention them rank by Σ proximity · rarity. Only the candidates: the graph reorders, it adds nothing.
   */
  private async graphSignal(understanding: QueryUnderstanding, knowledge: SearchKnowledge, candidates: string[], includeExcluded: boolean): Promise<GraphList> {
    const seeds = new Map(understanding.entities.map((e) => [e.id, 1]));
    const reached = walkNeighbours(seeds, knowledge.neighbours, this.config.graphMaxHops);
    const closest = [...reached.entries()].sort((a, b) => b[1].proximity - a[1].proximity).slice(0, GRAPH_ENTITIES).map(([id]) => id);
    const mentions = await this.graph.mentionsInPages(candidates, closest, includeExcluded);
    const chunks = knowledge.entityChunks;
    const ranked = rankPagesByEntities(mentions.map((m) => ({ ...m, pages: chunks.get(m.nodeId) ?? 1 })), reached, knowledge.totalChunks);
    return { ranked, reached };
  }

  private async namesOf(ids: string[]): Promise<Map<string, EntityName>> {
    const unique = [...new Set(ids)];
    return new Map((await this.graph.names(unique)).map((n) => [n.nodeId, n]));
  }

  /**
   * Beside the results: the entities the query names and (when the graph ran) their neighbours one hop away, then
   * the entities the results shown mention most (not looked for while no entity is approved: a wiki without a
   * knowledge graph pays no query for it).
   */
  private async relatedEntities(understanding: QueryUnderstanding, graph: GraphList | null, shownPageIds: string[], includeExcluded: boolean, anyEntity: boolean): Promise<RelatedEntity[]> {
    const entries: { nodeId: string; hops: number | null; proximity: number }[] = graph
      ? [...graph.reached.entries()].filter(([, r]) => r.hops <= 1).map(([nodeId, r]) => ({ nodeId, hops: r.hops, proximity: r.proximity }))
      : understanding.entities.map((e) => ({ nodeId: e.id, hops: 0, proximity: e.coverage }));
    entries.sort((a, b) => (a.hops ?? 9) - (b.hops ?? 9) || b.proximity - a.proximity || (a.nodeId < b.nodeId ? -1 : 1));
    const top = entries.slice(0, RELATED_ENTITIES);
    if (anyEntity && top.length < RELATED_ENTITIES) {
      const seen = new Set(top.map((e) => e.nodeId));
      for (const m of await this.graph.entitiesOfPages(shownPageIds, RELATED_ENTITIES * 2, includeExcluded)) {
        if (top.length >= RELATED_ENTITIES) break;
        if (!seen.has(m.nodeId)) top.push({ nodeId: m.nodeId, hops: null, proximity: 0 });
      }
    }
    const names = await this.namesOf(top.map((e) => e.nodeId));
    return top.flatMap((e) => {
      const n = names.get(e.nodeId);
      return n ? [{ id: e.nodeId, name: n.name, type: n.type, hops: e.hops, searchUrl: searchHref(n.name), url: entityHref(e.nodeId) }] : [];
    });
  }
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

// An entity card shows when the entity's name covers at least this share of the query, with this much of it.
const ENTITY_CARD_COVERAGE = 0.5;
const CARD_RELATED_PER_PREDICATE = 5;
const CARD_PAGES = 5;
const CARD_DESCRIPTION = 200;

/** The card of an entity from its reader view (the same data as /entities/:id). */
export function entityCardOf(reading: EntityReading): EntityCard {
  const { entity, relations, pages } = reading;
  const related = new Map<string, EntityCard['related'][number]>();
  for (const r of relations) {
    const key = `${r.direction}\u0000${r.predicate}`;
    let group = related.get(key);
    if (!group) related.set(key, (group = { predicate: r.predicate, direction: r.direction, entities: [] }));
    if (group.entities.length < CARD_RELATED_PER_PREDICATE) group.entities.push(r.entity);
  }
  const quote = pages.items[0]?.quote;
  const evidence = quote ? `${quote.before}${quote.match}${quote.after}` : '';
  const line = (entity.description.trim() || evidence).replace(/\s+/gu, ' ').trim();
  return {
    id: entity.id,
    name: entity.name,
    type: entity.type,
    aliases: entity.aliases,
    description: line.length > CARD_DESCRIPTION ? `${line.slice(0, CARD_DESCRIPTION - 1).trimEnd()}…` : line,
    url: entity.url,
    related: [...related.values()],
    pages: pages.items.slice(0, CARD_PAGES).map((p) => ({ slug: p.slug, title: p.title, url: p.url })),
    totalPages: pages.total,
  };
}

function cleanFilters(filters: SearchFilters | undefined): SearchFilters {
  const out: SearchFilters = {};
  if (filters?.cluster?.trim()) out.cluster = filters.cluster.trim();
  if (filters?.tag?.trim()) out.tag = filters.tag.trim();
  if (filters?.type?.trim()) out.type = filters.type.trim();
  return out;
}

function hasFilters(filters: SearchFilters): boolean {
  return Boolean(filters.cluster || filters.tag || filters.type);
}
