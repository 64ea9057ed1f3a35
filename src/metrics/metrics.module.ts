import { Global, Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { MetricsCollectors } from './metrics-collectors.js';
import { MetricsPort } from './metrics-port.js';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/**
 * /metrics and the registry every module records into (`Metrics`). Global: the rooms above this one inject Metrics
 * and record their own measures; none of them is imported here (see ARCHITECTURE.md).
 */
@Global()
@Module({
  imports: [JobsModule],
  controllers: [MetricsController],
  providers: [Metrics, MetricsCollectors, MetricsPort],
  exports: [Metrics],
})
export class MetricsModule {}
