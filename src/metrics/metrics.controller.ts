import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Metrics } from './metrics.js';

/** GET /metrics: Prometheus text, for admins and tokens with the `metrics` scope (docs/operations.md). */
@ApiTags('metrics')
@ApiBearerAuth()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Access('metrics')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Operational metrics in the Prometheus text format (an admin, or a token with the metrics scope)' })
  @ApiOkResponse({ description: 'text/plain; version=0.0.4' })
  async scrape(@Res() response: Response): Promise<void> {
    const text = await this.metrics.text();
    response.type(this.metrics.contentType).send(text);
  }
}
