import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { EXTRACTOR, type Extractor } from '../extractors/extraction.types.js';
import { EMBEDDER } from '../embedders/embedder.js';
import { Metrics } from '../metrics/metrics.js';
import { createEmbedder, createExtractor } from './llm-backends.js';
import { measuredEmbedder, measuredExtractor } from './measured-backends.js';

/**
 * Provides the configured Extractor (EXTRACTOR) and Embedder (EMBEDDER), each call counted and timed in the metrics;
 * inject them with @Inject(EXTRACTOR).
 */
@Module({
  providers: [
    { provide: EXTRACTOR, useFactory: (config: KurateConfig, metrics: Metrics) => measuredExtractor(createExtractor(config.llm), metrics), inject: [KurateConfig, Metrics] },
    { provide: EMBEDDER, useFactory: (config: KurateConfig, metrics: Metrics) => measuredEmbedder(createEmbedder(config.llm), metrics), inject: [KurateConfig, Metrics] },
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
