import { Ollama } from 'ollama';
import { ExtractorError, retryAfterMs, withDeadline } from './llm-errors.js';

export interface OllamaCall<T> {
  host: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The operation, for messages: "chat with qwen2.5:7b-instruct". */
  what: string;
  run(client: Ollama): Promise<T>;
}

/**
 * Runs one request through the real `ollama` client with a deadline. The client has no per-request signal for
 * non-streamed calls, so each call gets a client whose fetch carries our signal (and lets us read the headers of
 * an error answer, for Retry-After). Every failure becomes an ExtractorError that says whether to retry.
 */
export async function callOllama<T>(call: OllamaCall<T>): Promise<T> {
  const deadline = withDeadline(call.timeoutMs, call.signal);
  let lastHeaders: Headers | null = null;
  const client = new Ollama({
    host: call.host,
    fetch: async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const response = await fetch(input, { ...init, signal: deadline.signal });
      lastHeaders = response.headers;
      if (response.ok || response.headers.get('content-type')?.includes('application/json')) return response;
      // A proxy's HTML or text error page: hand the client Ollama's JSON error shape (it would console.log otherwise).
      const text = (await response.text()).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
      return new Response(JSON.stringify({ error: text || `${response.status} ${response.statusText}` }), {
        status: response.status,
        statusText: response.statusText,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  try {
    return await call.run(client);
  } catch (error) {
    throw ollamaError(error, call, deadline, lastHeaders);
  } finally {
    deadline.dispose();
  }
}

function ollamaError(error: unknown, call: OllamaCall<unknown>, deadline: ReturnType<typeof withDeadline>, headers: Headers | null): ExtractorError {
  if (error instanceof ExtractorError) return error;
  if (deadline.timedOut()) return new ExtractorError(`Ollama at ${call.host} did not answer within ${call.timeoutMs} ms (${call.what})`, true);
  if (call.signal?.aborted) return new ExtractorError(`Ollama request cancelled (${call.what})`, true);
  if (error instanceof SyntaxError) return new ExtractorError(`Ollama answered something that is not JSON (${call.what}): ${error.message}`, true);
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (status !== undefined) {
    const detail = `Ollama answered ${status}: ${message} (${call.what})`;
    if (status === 429 || status === 408 || status === 503 || status >= 500) return new ExtractorError(detail, true, retryAfterMs(headers));
    if (status === 404 && /model/i.test(message)) {
      return new ExtractorError(`${detail}; pull the model on the Ollama host (\`ollama pull <model>\`) or set another model`, false);
    }
    return new ExtractorError(detail, false);
  }
  // fetch failed: connection refused, reset, DNS — the server may come back.
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? message;
  return new ExtractorError(`Cannot reach Ollama at ${call.host}: ${why} (${call.what})`, true);
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status_code?: unknown })?.status_code;
  return typeof status === 'number' ? status : undefined;
}
