import { availableParallelism } from 'node:os';
import { ConfigError } from './config-error.js';
import type { EMBEDDER_KINDS, EnvironmentDto, EXTRACTOR_KINDS } from './environment.dto.js';

export type ExtractorKind = (typeof EXTRACTOR_KINDS)[number];
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

/** The extraction and embedding backends (src/extractors/, src/embedders/, picked in src/llm/; docs/extractors.md). */
export interface LlmConfig {
  /** KURATE_EXTRACTOR: which backend proposes entities and relations. */
  extractor: ExtractorKind;
  /** KURATE_EMBEDDER: which backend turns chunks and entities into vectors. */
  embedder: EmbedderKind;
  /** KURATE_LLM_TIMEOUT_MS: one call to Ollama or Anthropic is abandoned (and retried by the job) after this long. */
  timeoutMs: number;
  /**
   * KURATE_BUILTIN_EXTRACTOR_THREADS: worker threads running the built-in extractor (0: on the main thread). Unset:
   * one thread on a machine with 4 cores or more, none below (handing chunks to a thread costs more CPU than it frees
   * when there is no idle core: bench/RESULTS.md).
   */
  builtinThreads: number;
  ollama: {
    /** OLLAMA_HOST, normalised to a URL with a scheme and a port. */
    host: string;
    /** KURATE_OLLAMA_MODEL: the chat model used for extraction. */
    model: string;
    /** KURATE_OLLAMA_EMBED_MODEL */
    embedModel: string;
    /** KURATE_OLLAMA_EMBED_DIMENSIONS; null: discovered from the first answer. */
    embedDimensions: number | null;
  };
  anthropic: {
    /** ANTHROPIC_API_KEY; required when KURATE_EXTRACTOR=anthropic. */
    apiKey: string | null;
    /** KURATE_ANTHROPIC_MODEL */
    model: string;
    /** ANTHROPIC_BASE_URL; null: the SDK's default (https://api.anthropic.com). */
    baseUrl: string | null;
    /** KURATE_ANTHROPIC_MAX_TOKENS: the answer budget per chunk. */
    maxTokens: number;
  };
}

export const DEFAULT_LLM_CONFIG: LlmConfig = {
  extractor: 'builtin',
  embedder: 'builtin',
  timeoutMs: 60_000,
  builtinThreads: availableParallelism() >= 4 ? 1 : 0,
  ollama: { host: 'http://127.0.0.1:11434', model: 'qwen2.5:7b-instruct', embedModel: 'nomic-embed-text', embedDimensions: null },
  anthropic: { apiKey: null, model: 'claude-haiku-5-5', baseUrl: null, maxTokens: 4096 },
};

export function llmConfigFrom(raw: EnvironmentDto): LlmConfig {
  const extractor = raw.KURATE_EXTRACTOR ?? DEFAULT_LLM_CONFIG.extractor;
  const apiKey = raw.ANTHROPIC_API_KEY?.trim() || null;
  if (extractor === 'anthropic' && !apiKey) {
    throw new ConfigError(
      'Invalid configuration: KURATE_EXTRACTOR=anthropic needs ANTHROPIC_API_KEY (an Anthropic API key); set it, or choose KURATE_EXTRACTOR=builtin or ollama.',
    );
  }
  return {
    extractor,
    embedder: raw.KURATE_EMBEDDER ?? DEFAULT_LLM_CONFIG.embedder,
    timeoutMs: raw.KURATE_LLM_TIMEOUT_MS ?? DEFAULT_LLM_CONFIG.timeoutMs,
    builtinThreads: raw.KURATE_BUILTIN_EXTRACTOR_THREADS ?? DEFAULT_LLM_CONFIG.builtinThreads,
    ollama: {
      host: raw.OLLAMA_HOST === undefined ? DEFAULT_LLM_CONFIG.ollama.host : ollamaHost(raw.OLLAMA_HOST),
      model: raw.KURATE_OLLAMA_MODEL ?? DEFAULT_LLM_CONFIG.ollama.model,
      embedModel: raw.KURATE_OLLAMA_EMBED_MODEL ?? DEFAULT_LLM_CONFIG.ollama.embedModel,
      embedDimensions: raw.KURATE_OLLAMA_EMBED_DIMENSIONS ?? null,
    },
    anthropic: {
      apiKey,
      model: raw.KURATE_ANTHROPIC_MODEL ?? DEFAULT_LLM_CONFIG.anthropic.model,
      baseUrl: raw.ANTHROPIC_BASE_URL === undefined ? null : httpUrl('ANTHROPIC_BASE_URL', raw.ANTHROPIC_BASE_URL).replace(/\/+$/, ''),
      maxTokens: raw.KURATE_ANTHROPIC_MAX_TOKENS ?? DEFAULT_LLM_CONFIG.anthropic.maxTokens,
    },
  };
}

/**
 * Read as Ollama's own CLI reads OLLAMA_HOST: without a scheme it is `http://` and port 11434 (`gpu-box`,
 * `0.0.0.0:11434`); with a scheme the URL's own default port applies.
 */
function ollamaHost(value: string): string {
  const trimmed = value.trim();
  const hasScheme = trimmed.includes('://');
  const url = new URL(httpUrl('OLLAMA_HOST', hasScheme ? trimmed : `http://${trimmed}`));
  if (!hasScheme && url.port === '' && !/^(\[[^\]]*\]|[^/:]*):\d+/.test(trimmed)) url.port = '11434';
  // 0.0.0.0 is where a server listens, not an address to call.
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.toString().replace(/\/+$/, '');
}

function httpUrl(variable: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`Invalid configuration: ${variable} must be an http:// or https:// URL (got ${JSON.stringify(value)}).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`Invalid configuration: ${variable} must be an http:// or https:// URL (got ${JSON.stringify(value)}).`);
  }
  return value.trim();
}
