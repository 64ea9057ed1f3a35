import type { ChatResponse, Ollama } from 'ollama';
import { EXTRACTION_JSON_SCHEMA, EXTRACTION_SYSTEM_PROMPT, extractionUserPrompt } from '../extraction-prompt.js';
import { MalformedExtractionError, parseModelJson, validateExtraction } from '../extraction-validator.js';
import { type ExtractionRequest, type ExtractionResult, type Extractor } from '../extraction.types.js';
import { ExtractorError } from '../../llm-client/llm-errors.js';
import { callOllama } from '../../llm-client/ollama-client.js';

export interface OllamaExtractorOptions {
  host: string;
  model: string;
  timeoutMs: number;
}

/** Extraction through Ollama's /api/chat with structured output (the JSON schema in `format`). */
export class OllamaExtractor implements Extractor {
  readonly name = 'ollama' as const;
  readonly model: string;
  // Some Ollama versions refuse `think` (even false) for models without the thinking capability; after the
  // first such refusal this process stops sending it.
  private sendThink = true;

  constructor(private readonly options: OllamaExtractorOptions) {
    this.model = options.model;
  }

  async extract(request: ExtractionRequest, signal?: AbortSignal): Promise<ExtractionResult> {
    const response = await this.chat(request, signal);
    if (response.done_reason === 'length') {
      throw new ExtractorError(`Ollama's answer was cut at the token limit (${this.model}); the chunk may be too long for the model's context`, true);
    }
    try {
      return validateExtraction(parseModelJson(response.message?.content ?? ''), request, { extractor: this.name, model: this.model });
    } catch (error) {
      if (error instanceof MalformedExtractionError) throw new ExtractorError(`Ollama (${this.model}) answered malformed output: ${error.message}`, true);
      throw error;
    }
  }

  private async chat(request: ExtractionRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const run = (client: Ollama) =>
      client.chat({
        model: this.model,
        messages: [
          { role: 'system', content: EXTRACTION_SYSTEM_PROMPT },
          { role: 'user', content: extractionUserPrompt(request) },
        ],
        format: EXTRACTION_JSON_SCHEMA,
        stream: false,
        ...(this.sendThink ? { think: false } : {}),
        options: { temperature: 0 },
      });
    const call = { host: this.options.host, timeoutMs: this.options.timeoutMs, signal, what: `chat with ${this.model}` };
    try {
      return await callOllama({ ...call, run });
    } catch (error) {
      if (this.sendThink && error instanceof ExtractorError && /does not support thinking|think value/i.test(error.message)) {
        this.sendThink = false;
        return callOllama({ ...call, run });
      }
      throw error;
    }
  }
}
