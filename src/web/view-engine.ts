import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import hbs from 'hbs';
import { registerViewHelpers } from './view-helpers.js';

/** Handlebars views (views/, with views/partials), static assets under /static, and the graph library. */
export function configureViews(app: NestExpressApplication, root: string): void {
  const viewsDir = path.join(root, 'views');
  const partialsDir = path.join(viewsDir, 'partials');
  for (const file of readdirSync(partialsDir).filter((f) => f.endsWith('.hbs'))) {
    hbs.handlebars.registerPartial(path.basename(file, '.hbs'), readFileSync(path.join(partialsDir, file), 'utf8'));
  }
  registerViewHelpers(hbs.handlebars);
  app.setBaseViewsDir(viewsDir);
  app.setViewEngine('hbs');
  app.set('view options', { layout: 'layouts/main' });
  app.set('view cache', true);
  app.useStaticAssets(path.join(root, 'public'), { prefix: '/static', maxAge: '1h' });
  app.useStaticAssets(path.join(root, 'node_modules/cytoscape/dist'), { prefix: '/static/vendor/cytoscape', maxAge: '1d' });
  // KaTeX's stylesheet and fonts (math is rendered on the server), and Mermaid's browser bundle alone (diagrams,
  // drawn by public/js/mermaid-diagrams.js when JavaScript runs): from the installed packages, never from a CDN.
  app.useStaticAssets(path.join(root, 'node_modules/katex/dist'), { prefix: '/static/vendor/katex', maxAge: '1d' });
  const mermaidBundle = path.join(root, 'node_modules/mermaid/dist/mermaid.min.js');
  app.use('/static/vendor/mermaid/mermaid.min.js', (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.sendFile(mermaidBundle, { maxAge: '1d' });
  });
  // The fCoSE force layout for the page graph (cytoscape-fcose and the two packages it is built on), from npm: only
  // their browser bundles, not the rest of each package.
  for (const file of ['layout-base/layout-base.js', 'cose-base/cose-base.js', 'cytoscape-fcose/cytoscape-fcose.js']) {
    const absolute = path.join(root, 'node_modules', file);
    app.use(`/static/vendor/${file}`, (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      res.sendFile(absolute, { maxAge: '1d' });
    });
  }
}
