import { ExtractorError } from '../llm-client/llm-errors.js';
import { type Embedder } from './embedder.js';
import { callOllama } from '../llm-client/ollama-client.js';

export interface OllamaEmbedderOptions {
  host: string;
  model: string;
  /** null: learned from the first answer. */
  dimensions: number | null;
  timeoutMs: number;
}

/** Embeddings through Ollama's /api/embed. Failures are ExtractorErrors (retryable or not), like the extractors'. */
export class OllamaEmbedder implements Embedder {
  readonly name = 'ollama' as const;
  readonly model: string;
  private knownDimensions: number | null;

  constructor(private readonly options: OllamaEmbedderOptions) {
    this.model = options.model;
    this.knownDimensions = options.dimensions;
  }

  /** The configured dimension, else the one the first answer had; 0 before the first embed() when not configured. */
  get dimensions(): number {
    return this.knownDimensions ?? 0;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    const response = await callOllama({
      host: this.options.host,
      timeoutMs: this.options.timeoutMs,
      signal,
      what: `embed ${texts.length} text(s) with ${this.model}`,
      run: (client) => client.embed({ model: this.model, input: texts, truncate: true }),
    });
    const vectors = response.embeddings;
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new ExtractorError(`Ollama returned ${Array.isArray(vectors) ? vectors.length : 'no'} embeddings for ${texts.length} texts (${this.model})`, true);
    }
    const expected = this.knownDimensions ?? vectors[0]?.length;
    for (const vector of vectors) {
      if (!Array.isArray(vector) || vector.length !== expected || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        // A different dimension means a different model behind the same name: retrying will not help.
        throw new ExtractorError(
          `Ollama returned an embedding of ${Array.isArray(vector) ? vector.length : 0} dimensions from ${this.model}, expected ${expected}; set KURATE_OLLAMA_EMBED_DIMENSIONS to the model's dimension or re-embed`,
          false,
        );
      }
    }
    this.knownDimensions = expected;
    return vectors;
  }
}
