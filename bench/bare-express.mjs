// The baseline: a bare Express 5 app serving, from memory, the exact bytes Kurate answered for the same URLs.
// Usage: PORT=… node bench/bare-express.mjs <pages.json>   (pages.json: {routePrefix, contentType, pages: {slug: body}})
import { readFileSync } from 'node:fs';
import express from 'express';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const bodies = new Map(Object.entries(spec.pages).map(([slug, text]) => [slug, Buffer.from(text, 'utf8')]));
const app = express();
app.disable('x-powered-by');
app.get('/health', (_req, res) => res.send('ok'));
app.get(`${spec.routePrefix}:slug`, (req, res) => {
  const body = bodies.get(req.params.slug);
  if (!body) return res.status(404).send('not found');
  res.type(spec.contentType).send(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
