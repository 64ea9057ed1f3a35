import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  InternalServerError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import {
  EXTRACTION_JSON_SCHEMA,
  EXTRACTION_SYSTEM_PROMPT,
  EXTRACTION_TOOL_DESCRIPTION,
  EXTRACTION_TOOL_NAME,
  extractionUserPrompt,
} from '../extraction-prompt.js';
import { MalformedExtractionError, parseModelJson, validateExtraction } from '../extraction-validator.js';
import { type ExtractionRequest, type ExtractionResult, type Extractor } from '../extraction.types.js';
import { ExtractorError, retryAfterMs, withDeadline } from '../../llm-client/llm-errors.js';

export interface AnthropicExtractorOptions {
  apiKey: string;
  model: string;
  /** null: the SDK's default (https://api.anthropic.com). */
  baseUrl: string | null;
  maxTokens: number;
  timeoutMs: number;
}

/** Extraction through Anthropic's Messages API, the answer forced into the `record_knowledge` tool's input. */
export class AnthropicExtractor implements Extractor {
  readonly name = 'anthropic' as const;
  readonly model: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicExtractorOptions) {
    this.model = options.model;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      // Explicit, so that ANTHROPIC_BASE_URL read by the SDK itself never disagrees with our configuration.
      baseURL: options.baseUrl ?? 'https://api.anthropic.com',
      // The extraction job retries with backoff; retries inside the SDK would hide failures from it.
      maxRetries: 0,
      timeout: options.timeoutMs,
    });
  }

  async extract(request: ExtractionRequest, signal?: AbortSignal): Promise<ExtractionResult> {
    const message = await this.send(request, signal);
    if (!isMessage(message)) {
      // A proxy or captive portal answering 200 with its own page; the SDK hands that over as a string or as is.
      throw new ExtractorError(`Anthropic (${this.model}) answered something that is not a Message: ${describeBody(message)}`, true);
    }
    if (message.stop_reason === 'max_tokens') {
      throw new ExtractorError(`Anthropic's answer was cut at max_tokens=${this.options.maxTokens} (${this.model}); raise KURATE_ANTHROPIC_MAX_TOKENS`, true);
    }
    if (message.stop_reason === 'refusal') {
      // Asking again with the same chunk gets the same refusal.
      throw new ExtractorError(`Anthropic (${this.model}) declined to process this chunk (stop_reason refusal)`, false);
    }
    const toolUse = message.content.find((block) => block.type === 'tool_use' && block.name === EXTRACTION_TOOL_NAME);
    if (!toolUse || toolUse.type !== 'tool_use') {
      const kinds = message.content.map((block) => block.type).join(', ') || 'nothing';
      throw new ExtractorError(`Anthropic (${this.model}) did not call ${EXTRACTION_TOOL_NAME} (stop_reason ${message.stop_reason}; answered ${kinds})`, true);
    }
    try {
      // The SDK parses the tool input; a model may still hand over a JSON string instead of an object.
      const input = typeof toolUse.input === 'string' ? parseModelJson(toolUse.input) : toolUse.input;
      return validateExtraction(input, request, { extractor: this.name, model: this.model });
    } catch (error) {
      if (error instanceof MalformedExtractionError) throw new ExtractorError(`Anthropic (${this.model}) answered malformed output: ${error.message}`, true);
      throw error;
    }
  }

  private async send(request: ExtractionRequest, signal?: AbortSignal): Promise<Anthropic.Message> {
    const deadline = withDeadline(this.options.timeoutMs, signal);
    try {
      return await this.client.messages.create(
        {
          model: this.model,
          max_tokens: this.options.maxTokens,
          // Forced tool use and extended thinking do not mix; say so rather than rely on a model's default.
          thinking: { type: 'disabled' },
          system: EXTRACTION_SYSTEM_PROMPT,
          messages: [{ role: 'user', content: extractionUserPrompt(request) }],
          tools: [
            {
              name: EXTRACTION_TOOL_NAME,
              description: EXTRACTION_TOOL_DESCRIPTION,
              input_schema: EXTRACTION_JSON_SCHEMA as unknown as Anthropic.Tool.InputSchema,
            },
          ],
          tool_choice: { type: 'tool', name: EXTRACTION_TOOL_NAME },
        },
        { signal: deadline.signal, timeout: this.options.timeoutMs, maxRetries: 0 },
      );
    } catch (error) {
      throw this.mapError(error, deadline.timedOut(), signal);
    } finally {
      deadline.dispose();
    }
  }

  private mapError(error: unknown, timedOut: boolean, signal: AbortSignal | undefined): ExtractorError {
    const where = this.options.baseUrl ?? 'https://api.anthropic.com';
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return new ExtractorError(`Anthropic did not answer within ${this.options.timeoutMs} ms (${this.model})`, true);
    }
    if (error instanceof APIUserAbortError || signal?.aborted) return new ExtractorError(`Anthropic request cancelled (${this.model})`, true);
    // The SDK parses a JSON body itself; a body cut off on the way is worth asking again.
    if (error instanceof SyntaxError) return new ExtractorError(`Anthropic (${this.model}) answered a body that is not valid JSON: ${error.message}`, true);
    if (error instanceof APIConnectionError) {
      const cause = (error.cause as { cause?: { code?: string }; code?: string } | undefined) ?? undefined;
      const code = cause?.cause?.code ?? cause?.code;
      return new ExtractorError(`Cannot reach Anthropic at ${where}: ${code ?? error.message}`, true);
    }
    if (error instanceof APIError) {
      const detail = `Anthropic answered ${error.status ?? 'an error'}${error.type ? ` ${error.type}` : ''}: ${error.apiMessage ?? error.message} (${this.model})`;
      if (error instanceof RateLimitError) return new ExtractorError(detail, true, retryAfterMs(error.headers));
      // 5xx, including 529 overloaded_error.
      if (error instanceof InternalServerError) return new ExtractorError(detail, true, retryAfterMs(error.headers));
      // 408 request timeout and 409 conflict are transient too (the SDK itself retries them by default).
      if (error.status === 408 || error.status === 409) return new ExtractorError(detail, true, retryAfterMs(error.headers));
      if (error.status === 401) return new ExtractorError(`${detail}; check ANTHROPIC_API_KEY`, false);
      if (error.status === 404) return new ExtractorError(`${detail}; check KURATE_ANTHROPIC_MODEL and ANTHROPIC_BASE_URL`, false);
      return new ExtractorError(detail, false);
    }
    return new ExtractorError(`Anthropic request failed: ${error instanceof Error ? error.message : String(error)}`, false);
  }
}

function isMessage(body: unknown): body is Anthropic.Message {
  return typeof body === 'object' && body !== null && Array.isArray((body as { content?: unknown }).content);
}

function describeBody(body: unknown): string {
  if (body === undefined || body === null || body === '') return 'an empty body';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
