import { createServer, type Server } from 'node:http';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { KurateConfig } from '../config/kurate-config.js';
import { Metrics } from './metrics.js';

/**
 * KURATE_METRICS_PORT: a second HTTP listener that serves only GET /metrics, without a token, for a scraper on a
 * private network (it binds to KURATE_METRICS_HOST, 127.0.0.1 by default). Everything else there is a 404.
 */
@Injectable()
export class MetricsPort implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: KurateConfig,
  ) {}

  /** The port it listens on (useful when KURATE_METRICS_PORT asked for any free one), or null. */
  get port(): number | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.config.metrics;
    if (port === null) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served on this port.\n');
        return;
      }
      this.metrics.text().then(
        (text) => response.writeHead(200, { 'content-type': this.metrics.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
        (error: unknown) => {
          this.logger.error(`Metrics could not be collected: ${error instanceof Error ? error.message : String(error)}`);
          response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected; see the server log.\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on http://${host}:${this.port}/metrics (KURATE_METRICS_PORT, no token needed)`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
