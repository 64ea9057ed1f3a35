import { Module } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { EMBEDDER, EXTRACTOR } from './extraction.types.js';
import { createEmbedder, createExtractor } from './llm-backends.js';

/** Provides the configured Extractor (EXTRACTOR) and Embedder (EMBEDDER); inject them with @Inject(EXTRACTOR). */
@Module({
  providers: [
    { provide: EXTRACTOR, useFactory: (config: KurateConfig) => createExtractor(config.llm), inject: [KurateConfig] },
    { provide: EMBEDDER, useFactory: (config: KurateConfig) => createEmbedder(config.llm), inject: [KurateConfig] },
  ],
  exports: [EXTRACTOR, EMBEDDER],
})
export class LlmModule {}
