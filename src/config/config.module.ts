import { DynamicModule, Global, Module } from '@nestjs/common';
import { KurateConfig } from './kurate-config.js';

@Global()
@Module({})
export class ConfigModule {
  /** The configuration is loaded (and validated) before Nest starts, so a bad value fails fast with a sentence. */
  static forRoot(config: KurateConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: KurateConfig, useValue: config }], exports: [KurateConfig] };
  }
}
