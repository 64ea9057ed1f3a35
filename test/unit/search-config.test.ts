import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { DEFAULT_SEARCH_CONFIG } from '../../src/config/search-config.js';

describe('search configuration', () => {
  it('has defaults, and reads every KURATE_SEARCH_* variable', () => {
    expect(loadConfig({}).search).toEqual(DEFAULT_SEARCH_CONFIG);
    const config = loadConfig({
      KURATE_SEARCH_RRF_K: '10', KURATE_SEARCH_TOP_N: '30', KURATE_SEARCH_WEIGHT_LEXICAL: '1', KURATE_SEARCH_WEIGHT_VECTOR: '0.5',
      KURATE_SEARCH_WEIGHT_GRAPH: '0.25', KURATE_SEARCH_GRAPH_MAX_HOPS: '3',
      KURATE_SEARCH_VECTOR_MIN_SIMILARITY: '0.1', KURATE_SEARCH_VECTOR_FALLBACK: 'false', KURATE_SEARCH_LINKED_SLOTS: '2',
      KURATE_SEARCH_NAMED_BOOST: '0.5', KURATE_SEARCH_EXPANSION_WEIGHT: '0', KURATE_SEARCH_CONTEXT_WEIGHT: '0.25',
      KURATE_SEARCH_SYNONYM_WEIGHT: '0.2', KURATE_SEARCH_SYNONYM_RARE_PAGES: '10',
    }).search;
    expect(config).toEqual({ rrfK: 10, topN: 30, weights: { lexical: 1, vector: 0.5, graph: 0.25 }, graphMaxHops: 3, vectorMinSimilarity: 0.1, vectorFallback: false, linkedSlots: 2, namedBoost: 0.5, expansionWeight: 0, contextWeight: 0.25, synonymWeight: 0.2, synonymRarePages: 10 });
  });

  it('stops at boot with a sentence naming the variable', () => {
    expect(() => loadConfig({ KURATE_SEARCH_GRAPH_MAX_HOPS: '1.5' })).toThrow(/KURATE_SEARCH_GRAPH_MAX_HOPS must be a whole number from 0 to 5 \(got "1.5"\)/);
    expect(() => loadConfig({ KURATE_SEARCH_WEIGHT_VECTOR: '-1' })).toThrow(/KURATE_SEARCH_WEIGHT_VECTOR must be a number from 0 to 100/);
    expect(() => loadConfig({ KURATE_SEARCH_RRF_K: 'sixty' })).toThrow(ConfigError);
    expect(() => loadConfig({ KURATE_SEARCH_NAMED_BOOST: 'lots' })).toThrow(/KURATE_SEARCH_NAMED_BOOST must be a number from 0 to 100/);
    expect(() => loadConfig({ KURATE_SEARCH_CONTEXT_WEIGHT: '-0.1' })).toThrow(/KURATE_SEARCH_CONTEXT_WEIGHT must be a number from 0 to 100/);
    expect(() => loadConfig({ KURATE_SEARCH_SYNONYM_WEIGHT: 'on' })).toThrow(/KURATE_SEARCH_SYNONYM_WEIGHT must be a number from 0 to 10/);
    expect(() => loadConfig({ KURATE_SEARCH_SYNONYM_RARE_PAGES: '0' })).toThrow(/KURATE_SEARCH_SYNONYM_RARE_PAGES must be a whole number from 1/);
    expect(() => loadConfig({ KURATE_SEARCH_VECTOR_FALLBACK: 'maybe' })).toThrow(/KURATE_SEARCH_VECTOR_FALLBACK must be true or false/);
    expect(() => loadConfig({ KURATE_SEARCH_WEIGHT_LEXICAL: '0', KURATE_SEARCH_WEIGHT_VECTOR: '0', KURATE_SEARCH_WEIGHT_GRAPH: '0' })).toThrow(/cannot all be 0/);
  });
});
