import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigModule } from '../../src/config/config.module.js';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { BuiltinExtractor } from '../../src/extractors/builtin/builtin.extractor.js';
import { EXTRACTOR, type Extractor } from '../../src/extractors/extraction.types.js';
import { EMBEDDER, type Embedder } from '../../src/embedders/embedder.js';
import { HashingEmbedder } from '../../src/embedders/hashing.embedder.js';
import { LlmModule } from '../../src/llm/llm.module.js';
import { Metrics } from '../../src/metrics/metrics.js';

/** The registry the app's global MetricsModule provides (that module also reads the job queues, which need a database). */
@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
class MetricsRegistryModule {}

describe('LLM configuration', () => {
  it('defaults to the offline built-in extractor and embedder', () => {
    expect(loadConfig({}).llm).toEqual({
      extractor: 'builtin',
      embedder: 'builtin',
      timeoutMs: 60_000,
      builtinThreads: availableParallelism() >= 4 ? 1 : 0,
      ollama: { host: 'http://127.0.0.1:11434', model: 'qwen2.5:7b-instruct', embedModel: 'nomic-embed-text', embedDimensions: null },
      anthropic: { apiKey: null, model: 'claude-haiku-5-5', baseUrl: null, maxTokens: 4096 },
    });
  });

  it('reads every variable', () => {
    const { llm } = loadConfig({
      KURATE_EXTRACTOR: 'anthropic',
      KURATE_EMBEDDER: 'ollama',
      KURATE_LLM_TIMEOUT_MS: '15000',
      KURATE_BUILTIN_EXTRACTOR_THREADS: '3',
      OLLAMA_HOST: 'http://gpu-box:11500',
      KURATE_OLLAMA_MODEL: 'llama3.1:8b',
      KURATE_OLLAMA_EMBED_MODEL: 'mxbai-embed-large',
      KURATE_OLLAMA_EMBED_DIMENSIONS: '1024',
      ANTHROPIC_API_KEY: 'sk-ant-xyz',
      KURATE_ANTHROPIC_MODEL: 'claude-sonnet-5-5',
      ANTHROPIC_BASE_URL: 'https://llm-gateway.internal/anthropic/',
      KURATE_ANTHROPIC_MAX_TOKENS: '8000',
    });
    expect(llm).toEqual({
      extractor: 'anthropic',
      embedder: 'ollama',
      timeoutMs: 15_000,
      builtinThreads: 3,
      ollama: { host: 'http://gpu-box:11500', model: 'llama3.1:8b', embedModel: 'mxbai-embed-large', embedDimensions: 1024 },
      anthropic: { apiKey: 'sk-ant-xyz', model: 'claude-sonnet-5-5', baseUrl: 'https://llm-gateway.internal/anthropic', maxTokens: 8000 },
    });
  });

  it.each([
    ['gpu-box', 'http://gpu-box:11434'],
    ['gpu-box:8080', 'http://gpu-box:8080'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:11434', 'http://127.0.0.1:11434'],
    ['[::1]', 'http://[::1]:11434'],
    ['https://ollama.example.com', 'https://ollama.example.com'],
    ['http://localhost:11434/', 'http://localhost:11434'],
  ])('reads OLLAMA_HOST=%s as Ollama does: %s', (value, host) => {
    expect(loadConfig({ OLLAMA_HOST: value }).llm.ollama.host).toBe(host);
  });

  it('stops the server when KURATE_EXTRACTOR=anthropic has no ANTHROPIC_API_KEY, naming both', () => {
    for (const env of [{ KURATE_EXTRACTOR: 'anthropic' }, { KURATE_EXTRACTOR: 'anthropic', ANTHROPIC_API_KEY: '  ' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/KURATE_EXTRACTOR=anthropic needs ANTHROPIC_API_KEY/);
    }
  });

  it.each([
    [{ KURATE_EXTRACTOR: 'openai' }, /KURATE_EXTRACTOR must be one of builtin, ollama, anthropic \(got "openai"\)/],
    [{ KURATE_EMBEDDER: 'anthropic' }, /KURATE_EMBEDDER must be one of builtin, ollama/],
    [{ KURATE_LLM_TIMEOUT_MS: 'soon' }, /KURATE_LLM_TIMEOUT_MS must be a whole number of milliseconds/],
    [{ KURATE_LLM_TIMEOUT_MS: '10' }, /KURATE_LLM_TIMEOUT_MS must not be less than 100/],
    [{ KURATE_OLLAMA_EMBED_DIMENSIONS: '0' }, /KURATE_OLLAMA_EMBED_DIMENSIONS must not be less than 1/],
    [{ KURATE_ANTHROPIC_MAX_TOKENS: '10' }, /KURATE_ANTHROPIC_MAX_TOKENS must not be less than 256/],
    [{ OLLAMA_HOST: 'ftp://box' }, /OLLAMA_HOST must be an http:\/\/ or https:\/\/ URL \(got "ftp:\/\/box"\)/],
    [{ OLLAMA_HOST: 'http://' }, /OLLAMA_HOST must be an http:\/\/ or https:\/\/ URL/],
    [{ ANTHROPIC_BASE_URL: 'api.anthropic.com' }, /ANTHROPIC_BASE_URL must be an http:\/\/ or https:\/\/ URL/],
  ])('refuses %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never echoes ANTHROPIC_API_KEY in an error', () => {
    // A number is not a string: the validation error must not show the value.
    expect(() => loadConfig({ ANTHROPIC_API_KEY: 123 as unknown as string })).toThrow(/value not shown: it is a secret/);
  });
});

describe('LlmModule', () => {
  async function resolve(env: Record<string, string>): Promise<{ extractor: Extractor; embedder: Embedder }> {
    // From the TypeScript sources there is no compiled worker module for the extractor's threads (see
    // builtin-extractor-threads.test.ts): the built-in extractor runs on the main thread here.
    @Module({ imports: [ConfigModule.forRoot(loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '0', ...env })), MetricsRegistryModule, LlmModule] })
    class RootModule {}
    // abortOnError: false: a module that cannot start fails this test, rather than aborting its worker process.
    const app = await NestFactory.createApplicationContext(RootModule, { logger: false, abortOnError: false });
    try {
      return { extractor: app.get<Extractor>(EXTRACTOR), embedder: app.get<Embedder>(EMBEDDER) };
    } finally {
      await app.close();
    }
  }

  it('provides the built-in extractor and embedder by default', async () => {
    const { extractor, embedder } = await resolve({});
    // Each is wrapped to count and time its calls (kurate_llm_*): what it is shows in its name and model.
    expect([extractor.name, extractor.model]).toEqual(['builtin', new BuiltinExtractor().model]);
    expect([embedder.name, embedder.model, embedder.dimensions]).toEqual(['builtin', new HashingEmbedder().model, 384]);
  });

  it('provides Ollama or Anthropic backends with the configured models', async () => {
    const ollama = await resolve({ KURATE_EXTRACTOR: 'ollama', KURATE_EMBEDDER: 'ollama', KURATE_OLLAMA_EMBED_DIMENSIONS: '768' });
    expect([ollama.extractor.name, ollama.extractor.model]).toEqual(['ollama', 'qwen2.5:7b-instruct']);
    expect([ollama.embedder.name, ollama.embedder.model, ollama.embedder.dimensions]).toEqual(['ollama', 'nomic-embed-text', 768]);
    const anthropic = await resolve({ KURATE_EXTRACTOR: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-x', KURATE_ANTHROPIC_MODEL: 'claude-opus-5' });
    expect([anthropic.extractor.name, anthropic.extractor.model]).toEqual(['anthropic', 'claude-opus-5']);
  });
});
