import type { Embedder } from '../embedders/embedder.js';
import type { Extractor } from '../extractors/extraction.types.js';
import { ExtractorError } from '../llm-client/llm-errors.js';
import type { Metrics } from '../metrics/metrics.js';

/** What went wrong in a backend call, for the error counter: few values, whatever the backend said. */
export function llmErrorKind(error: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return 'aborted';
  if (error instanceof Error && (error.name === 'TimeoutError' || /timed out/i.test(error.message))) return 'timeout';
  if (error instanceof ExtractorError) return error.retryAfterMs !== undefined ? 'rate_limited' : error.retryable ? 'retryable' : 'permanent';
  return 'other';
}

async function measure<T>(metrics: Metrics, backend: string, operation: 'extract' | 'embed', signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  const stop = metrics.llmDuration.startTimer({ backend, operation });
  try {
    const result = await call();
    metrics.llmCalls.inc({ backend, operation, outcome: 'ok' });
    return result;
  } catch (error) {
    metrics.llmCalls.inc({ backend, operation, outcome: 'error' });
    metrics.llmErrors.inc({ backend, operation, kind: llmErrorKind(error, signal) });
    throw error;
  } finally {
    stop();
  }
}

/** The extractor, with each call counted and timed by backend (kurate_llm_*). */
export function measuredExtractor(inner: Extractor, metrics: Metrics): Extractor {
  return {
    get name() {
      return inner.name;
    },
    get model() {
      return inner.model;
    },
    extract: (request, signal) => measure(metrics, inner.name, 'extract', signal, () => inner.extract(request, signal)),
    close: inner.close ? () => inner.close!() : undefined,
  };
}

/** The embedder, with each call counted and timed by backend. */
export function measuredEmbedder(inner: Embedder, metrics: Metrics): Embedder {
  return {
    get name() {
      return inner.name;
    },
    get model() {
      return inner.model;
    },
    // Ollama's is learned from its first answer: read it each time.
    get dimensions() {
      return inner.dimensions;
    },
    embed: (texts, signal) => measure(metrics, inner.name, 'embed', signal, () => inner.embed(texts, signal)),
  };
}
