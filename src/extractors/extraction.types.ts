// The contract between the extractors (src/extractors/{builtin,ollama,anthropic}) and the extraction pipeline (src/kg).
// extract() returns results that are already validated and normalised: callers do not re-validate.

export const ENTITY_TYPES = [
  'person',
  'organization',
  'place',
  'event',
  'product',
  'technology',
  'concept',
  'project',
  'document',
  'other',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

// Closed list; anything a model invents is mapped through PREDICATE_ALIASES or falls back to related_to.
export const PREDICATES = [
  'related_to',
  'part_of',
  'is_a',
  'uses',
  'requires',
  'enables',
  'implements',
  'extends',
  'replaces',
  'alternative_to',
  'created_by',
  'located_in',
  'member_of',
  'describes',
] as const;
export type Predicate = (typeof PREDICATES)[number];

export interface KnownEntity {
  name: string;
  type: EntityType;
}

export interface ExtractionRequest {
  pageTitle: string;
  headingPath: string[];
  chunkText: string;
  knownEntities: KnownEntity[];
  /** Titles of the pages this chunk links to (links that resolve to a page; never attachments or missing pages). */
  linkTargets: string[];
  /**
   * Targets of the chunk's links to pages that do not exist yet (wanted pages), as written; never attachments. A
   * weaker signal than a link to a page: the author named something, nobody has written it up.
   */
  wantedTargets?: string[];
  /**
   * What the wiki says of a linked page's kind, by its title: the entity type its frontmatter `type:` or its cluster
   * names (`type: plugin`, cluster `user/features`), when one of those maps onto an entity type.
   */
  linkTargetTypes?: Record<string, EntityType>;
  /**
   * The place in the vault's hierarchy, relative to this page, of the pages this page links to (in any chunk), by title:
   * `child` when it sits under this page (`tools/cli/list.md` under `tools/cli.md`, `a.b.c.md` under `a.b.md`), `parent` when this page sits under it.
   */
  linkTargetPlaces?: Record<string, 'parent' | 'child'>;
  /** The first heading a linked page opens with (`# foam list`), by its title, when it has one. */
  linkTargetHeadings?: Record<string, string>;
  /** The first heading this page opens with, when it has one. */
  pageHeading?: string;
  /**
   * Corpus statistics of words of this page, from the wiki's own pages (src/kg/term-stats.ts), by lower-cased word:
   * in how many pages it occurs, how often in running text in lower case (an ordinary word) and how often capitalised
   * inside a sentence (a name). `pages` is the number of pages the statistics cover.
   */
  termStats?: TermStats;
}

export interface TermStats {
  pages: number;
  terms: Record<string, { pages: number; lower: number; capitalised: number }>;
}

/** Other names an extractor may give one entity (ExtractedEntity.aliases). */
export const MAX_ENTITY_ALIASES = 5;

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  confidence: number;
  evidence: string;
  /** Other spellings the chunk uses for it (case, plural, a page's file name), which become aliases on approval. */
  surfaces?: string[];
  /**
   * Other names readers know it by (an abbreviation, a synonym, what other tools call it: `transclusion` for embeds),
   * from an LLM extractor, at most MAX_ENTITY_ALIASES. They travel with the proposal, an admin sees them in the review,
   * and on approval they become the entity's aliases, which search understands as naming it.
   */
  aliases?: string[];
  /** Why it was proposed: the signals that made its confidence (the built-in extractor). */
  signals?: string[];
}

export interface ExtractedRelation {
  source: string;
  predicate: Predicate;
  target: string;
  confidence: number;
  evidence: string;
  /** Why it was proposed: `sentence-pattern`, `see-also`, `co-occurrence` (the built-in extractor). */
  signals?: string[];
}

export interface ExtractionResult {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  extractor: string;
  model: string;
  dropped: { item: string; reason: string }[];
}

export interface Extractor {
  readonly name: 'builtin' | 'ollama' | 'anthropic';
  readonly model: string;
  extract(request: ExtractionRequest, signal?: AbortSignal): Promise<ExtractionResult>;
  /** Releases what the backend holds (worker threads), at shutdown. */
  close?(): Promise<void>;
}

export const EXTRACTOR = Symbol('EXTRACTOR');
