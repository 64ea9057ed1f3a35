import { ConfigError } from './config-error.js';

/** Hybrid search: how the lexical, vector and graph lists are fused (src/search/, docs/search.md). */
export interface SearchConfig {
  /** KURATE_SEARCH_RRF_K: the k of reciprocal-rank fusion (1/(k + rank)); larger flattens the lists' heads. */
  rrfK: number;
  /** KURATE_SEARCH_TOP_N: only each list's first N pages take part in the fusion. */
  topN: number;
  /** KURATE_SEARCH_WEIGHT_LEXICAL / _VECTOR / _GRAPH: each list's weight in the fusion; 0 turns a list off. */
  weights: { lexical: number; vector: number; graph: number };
  /** KURATE_SEARCH_VECTOR_FALLBACK: when no word matches, rank by vector search even if its weight is 0 (questions never come back empty). */
  vectorFallback: boolean;
  /** KURATE_SEARCH_GRAPH_MAX_HOPS: how far over approved edges the graph list looks from the query's entities. */
  graphMaxHops: number;
  /** KURATE_SEARCH_LINKED_SLOTS: result slots (ranks 4, 7, 10, …) reserved for pages the best three hits link to (Page Graph). */
  linkedSlots: number;
  /** KURATE_SEARCH_VECTOR_MIN_SIMILARITY: chunks less similar (cosine) to the query than this are not candidates, so unrelated words find nothing. */
  vectorMinSimilarity: number;
  /** KURATE_SEARCH_NAMED_BOOST: how much a page whose title or alias the query names is lifted (1: by the best BM25 score for a whole-query name; 0: off). */
  namedBoost: number;
  /** KURATE_SEARCH_EXPANSION_WEIGHT: the weight of the other names (aliases, merged names) of what the query names, searched for too (0: off). */
  expansionWeight: number;
  /** KURATE_SEARCH_CONTEXT_WEIGHT: how much what other pages say about an approved entity lifts the page bearing its name (0: off). */
  contextWeight: number;
  /**
   * KURATE_SEARCH_SYNONYM_WEIGHT: the weight of WordNet synonyms of the reader's words that fewer than
   * KURATE_SEARCH_SYNONYM_RARE_PAGES pages use (by default: none), searched for too (0: off).
   */
  synonymWeight: number;
  /** KURATE_SEARCH_SYNONYM_RARE_PAGES: a reader's word in fewer pages than this may be stood in for by its synonyms. */
  synonymRarePages: number;
}

export const DEFAULT_SEARCH_CONFIG: SearchConfig = {
  rrfK: 60,
  topN: 50,
  // Vector and knowledge-graph lists are off by default (vector search still answers when no word matches): with the
  // built-in hashing embedder and extractor, the evaluation shows neither lifts nDCG@10 (bench/RESULTS.md, "Search
  // relevance"). The Page Graph's linked slots do.
  weights: { lexical: 1, vector: 0, graph: 0 },
  vectorFallback: true,
  graphMaxHops: 2,
  vectorMinSimilarity: 0.2,
  // Measured: two slots lift nDCG@10 and hurt no kind of query (bench/RESULTS.md).
  linkedSlots: 2,
  namedBoost: 1,
  expansionWeight: 0.3,
  contextWeight: 0.4,
  // Measured: lifts Dendron's nDCG@10 by 0.03-0.04 with and without the graph (alias recall 0.73 -> 0.87), changes no
  // kind of Foam's query for the worse; words in 1-3 pages widened too measured the same (bench/RESULTS.md,
  // 2026-12-03), so only the words the wiki never uses are, which means the same in a wiki of any size.
  synonymWeight: 0.4,
  synonymRarePages: 1,
};

interface NumberRule {
  variable: string;
  min: number;
  max: number;
  integer: boolean;
}

function readNumber(env: NodeJS.ProcessEnv, rule: NumberRule, fallback: number): number {
  const text = env[rule.variable];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < rule.min || value > rule.max || (rule.integer && !Number.isInteger(value))) {
    const kind = rule.integer ? 'a whole number' : 'a number';
    throw new ConfigError(`Invalid configuration: ${rule.variable} must be ${kind} from ${rule.min} to ${rule.max} (got ${JSON.stringify(text)}).`);
  }
  return value;
}

function readBoolean(env: NodeJS.ProcessEnv, variable: string, fallback: boolean): boolean {
  const text = env[variable]?.trim();
  if (text === undefined || text === '') return fallback;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new ConfigError(`Invalid configuration: ${variable} must be true or false (got ${JSON.stringify(env[variable])}).`);
}

/** Reads the KURATE_SEARCH_* variables; a bad value throws a ConfigError naming the variable. */
export function searchConfigFrom(env: NodeJS.ProcessEnv): SearchConfig {
  const d = DEFAULT_SEARCH_CONFIG;
  const weight = (name: string, fallback: number) => readNumber(env, { variable: `KURATE_SEARCH_WEIGHT_${name}`, min: 0, max: 100, integer: false }, fallback);
  const config: SearchConfig = {
    rrfK: readNumber(env, { variable: 'KURATE_SEARCH_RRF_K', min: 0, max: 10_000, integer: false }, d.rrfK),
    topN: readNumber(env, { variable: 'KURATE_SEARCH_TOP_N', min: 1, max: 1000, integer: true }, d.topN),
    weights: { lexical: weight('LEXICAL', d.weights.lexical), vector: weight('VECTOR', d.weights.vector), graph: weight('GRAPH', d.weights.graph) },
    vectorFallback: readBoolean(env, 'KURATE_SEARCH_VECTOR_FALLBACK', d.vectorFallback),
    graphMaxHops: readNumber(env, { variable: 'KURATE_SEARCH_GRAPH_MAX_HOPS', min: 0, max: 5, integer: true }, d.graphMaxHops),
    linkedSlots: readNumber(env, { variable: 'KURATE_SEARCH_LINKED_SLOTS', min: 0, max: 5, integer: true }, d.linkedSlots),
    vectorMinSimilarity: readNumber(env, { variable: 'KURATE_SEARCH_VECTOR_MIN_SIMILARITY', min: -1, max: 1, integer: false }, d.vectorMinSimilarity),
    namedBoost: readNumber(env, { variable: 'KURATE_SEARCH_NAMED_BOOST', min: 0, max: 100, integer: false }, d.namedBoost),
    expansionWeight: readNumber(env, { variable: 'KURATE_SEARCH_EXPANSION_WEIGHT', min: 0, max: 10, integer: false }, d.expansionWeight),
    contextWeight: readNumber(env, { variable: 'KURATE_SEARCH_CONTEXT_WEIGHT', min: 0, max: 100, integer: false }, d.contextWeight),
    synonymWeight: readNumber(env, { variable: 'KURATE_SEARCH_SYNONYM_WEIGHT', min: 0, max: 10, integer: false }, d.synonymWeight),
    synonymRarePages: readNumber(env, { variable: 'KURATE_SEARCH_SYNONYM_RARE_PAGES', min: 1, max: 1_000_000, integer: true }, d.synonymRarePages),
  };
  if (config.weights.lexical + config.weights.vector + config.weights.graph === 0) {
    throw new ConfigError('Invalid configuration: KURATE_SEARCH_WEIGHT_LEXICAL, _VECTOR and _GRAPH cannot all be 0 (search would rank nothing).');
  }
  return config;
}
