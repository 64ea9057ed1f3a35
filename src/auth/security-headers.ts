import type { RequestHandler } from 'express';
import helmet from 'helmet';

const STRICT_CSP = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'https:'],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

const frameguard = { action: 'deny' as const };
const strict = helmet({ contentSecurityPolicy: { useDefaults: false, directives: STRICT_CSP }, frameguard });
// swagger-ui (the API docs page) uses inline styles (its scripts are files); only its own pages get this allowance.
const apiDocs = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { ...STRICT_CSP, 'style-src': ["'self'", "'unsafe-inline'"] } },
  frameguard,
});

/** helmet's headers on every response, with a Content-Security-Policy that allows no inline script or style. */
export function securityHeaders(): RequestHandler {
  return (request, response, next) => (request.path === '/api/docs' || request.path.startsWith('/api/docs/') ? apiDocs : strict)(request, response, next);
}
