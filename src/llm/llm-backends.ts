import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config/config-error.js';
import type { LlmConfig } from '../config/llm-config.js';
import { AnthropicExtractor } from '../extractors/anthropic/anthropic.extractor.js';
import { BuiltinExtractor } from '../extractors/builtin/builtin.extractor.js';
import type { Extractor } from '../extractors/extraction.types.js';
import type { Embedder } from '../embedders/embedder.js';
import { HashingEmbedder } from '../embedders/hashing.embedder.js';
import { OllamaEmbedder } from '../embedders/ollama.embedder.js';
import { OllamaExtractor } from '../extractors/ollama/ollama.extractor.js';

/** The extractor KURATE_EXTRACTOR names, built from the validated configuration. */
export function createExtractor(config: LlmConfig): Extractor {
  switch (config.extractor) {
    case 'builtin':
      return new BuiltinExtractor({ threads: config.builtinThreads, workerFile: config.builtinThreads > 0 ? builtinWorkerFile() : undefined });
    case 'ollama':
      return new OllamaExtractor({ host: config.ollama.host, model: config.ollama.model, timeoutMs: config.timeoutMs });
    case 'anthropic':
      return new AnthropicExtractor({
        // loadConfig refuses KURATE_EXTRACTOR=anthropic without a key, so this is set here.
        apiKey: config.anthropic.apiKey ?? '',
        model: config.anthropic.model,
        baseUrl: config.anthropic.baseUrl,
        maxTokens: config.anthropic.maxTokens,
        timeoutMs: config.timeoutMs,
      });
  }
}

/**
 * The compiled worker module of the built-in extractor (dist/extractors/builtin/). Run from the TypeScript sources (the tests), there is none:
 * KURATE_BUILTIN_EXTRACTOR_THREADS must then be 0.
 */
function builtinWorkerFile(): string {
  const file = fileURLToPath(new URL('../extractors/builtin/builtin-extraction.worker.js', import.meta.url));
  if (!existsSync(file)) {
    throw new ConfigError(`KURATE_BUILTIN_EXTRACTOR_THREADS needs the compiled worker module ${file}: build the server (npm run build), or set KURATE_BUILTIN_EXTRACTOR_THREADS=0.`);
  }
  return file;
}

/** The embedder KURATE_EMBEDDER names. */
export function createEmbedder(config: LlmConfig): Embedder {
  switch (config.embedder) {
    case 'builtin':
      return new HashingEmbedder();
    case 'ollama':
      return new OllamaEmbedder({
        host: config.ollama.host,
        model: config.ollama.embedModel,
        dimensions: config.ollama.embedDimensions,
        timeoutMs: config.timeoutMs,
      });
  }
}
