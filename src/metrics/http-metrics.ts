import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Metrics } from './metrics.js';

/** Where a middleware answered without a route (the anonymous page cache), it names the route in `res.locals`. */
export const METRICS_ROUTE_LOCAL = 'metricsRoute';

/**
 * The route a request matched, as its pattern (`/api/pages/:slug`), so that series stay few whatever the URLs are:
 * Express's matched route, else what a middleware that answered named, else `static` for files under /static, else
 * `unmatched` (404s for unknown paths).
 */
export function routeLabel(request: Request, response: Response): string {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${request.baseUrl}${route.path}`;
  const named = response.locals[METRICS_ROUTE_LOCAL];
  if (typeof named === 'string') return named;
  return request.path.startsWith('/static/') ? 'static' : 'unmatched';
}

/** Counts and times every request, by method, route pattern and status, when its answer is finished. */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const labels = { method: request.method, route: routeLabel(request, response), status: String(response.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
