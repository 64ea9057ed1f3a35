import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
  // KaTeX's stylesheet and fonts (math is rendered on the server) and Mermaid's browser bundle (diagrams, drawn by
  // public/js/kurate.js when JavaScript runs): served from the installed packages, never from a CDN.
  app.useStaticAssets(path.join(root, 'node_modules/katex/dist'), { prefix: '/static/vendor/katex', maxAge: '1d' });
  app.useStaticAssets(path.join(root, 'node_modules/mermaid/dist'), { prefix: '/static/vendor/mermaid', maxAge: '1d' });
}
