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
  /** Titles of pages this chunk links to. */
  linkTargets: string[];
}

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  confidence: number;
  evidence: string;
}

export interface ExtractedRelation {
  source: string;
  predicate: Predicate;
  target: string;
  confidence: number;
  evidence: string;
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
