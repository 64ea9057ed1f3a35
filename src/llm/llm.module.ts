import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { EXTRACTOR, type Extractor } from '../extractors/extraction.types.js';
import { EMBEDDER } from '../embedders/embedder.js';
import { createEmbedder, createExtractor } from './llm-backends.js';

/** Provides the configured Extractor (EXTRACTOR) and Embedder (EMBEDDER); inject them with @Inject(EXTRACTOR). */
@Module({
  providers: [
    { provide: EXTRACTOR, useFactory: (config: KurateConfig) => createExtractor(config.llm), inject: [KurateConfig] },
    { provide: EMBEDDER, useFactory: (config: KurateConfig) => createEmbedder(config.llm), inject: [KurateConfig] },
  ],
  exports: [EXTRACTOR, EMBEDDER],
})
export class LlmModule implements OnApplicationShutdown {
  constructor(@Inject(EXTRACTOR) private readonly extractor: Extractor) {}

  /** The built-in extractor's worker threads stop with the server. */
  async onApplicationShutdown(): Promise<void> {
    await this.extractor.close?.();
  }
}
