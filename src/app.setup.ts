import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import type { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import { AppLogger } from './common/app-logger.js';
import { useAuthentication } from './auth/auth.pipeline.js';
import { securityHeaders } from './auth/security-headers.js';
import { GlobalExceptionFilter } from './common/domain-exception.filter.js';
import { inputRules, InputRulesInterceptor } from './common/input-rules.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { Metrics } from './metrics/metrics.js';
import { PageViewCache } from './pages/page-view-cache.js';
import type { KurateConfig } from './config/kurate-config.js';
import { configureViews } from './web/view-engine.js';
import { uploadFormParser } from './attachments/upload-parser.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A body declared (or taken to be) UTF-8 must be UTF-8: decoded as it is, each invalid byte would silently become
 * U+FFFD in what is stored. It is a 400 instead (the message of a body that cannot be read).
 */
function utf8Only(_request: unknown, _response: unknown, body: Buffer, encoding: string): void {
  if (encoding.toLowerCase() === 'utf-8' && !isUtf8(body)) {
    throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, type: 'encoding.invalid' });
  }
}

/**
 * A form body must also decode: each `%XX` escape must be two hex digits and the escaped bytes UTF-8. Node's
 * querystring keeps an escape it cannot decode as written, so `title=F9%ff` made a page titled `F9%ff`. Browsers
 * never send such a form; a hand-made one gets the 400 of a body that cannot be read.
 */
function formEncodingOnly(request: unknown, response: unknown, body: Buffer, encoding: string): void {
  utf8Only(request, response, body, encoding);
  const text = body.toString('latin1');
  if (!text.includes('%')) return;
  for (const part of text.split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw Object.assign(new Error('The form is not valid: a percent escape in it is not two hex digits, or not UTF-8.'), { status: 400, type: 'encoding.invalid' });
    }
  }
}

/** Everything that makes the app what it is, shared by main.ts, the tests and the benchmarks. */
export function configureApp(app: NestExpressApplication, config: KurateConfig): void {
  // First: every answer is counted and timed, static files and cached page views included.
  app.use(httpMetrics(app.get(Metrics)));
  app.use(securityHeaders());
  // `verify` goes to Express's parser as given: Nest only sets it itself for { rawBody: true }, which Kurate does not use.
  app.useBodyParser('json', { limit: config.http.maxBodyBytes, verify: utf8Only } as NestExpressBodyParserOptionsFor<'json'>);
  // Flat forms (extended: false): a form field cannot nest, so only JSON needs the depth limit of the input rules.
  app.useBodyParser('urlencoded', { limit: config.http.maxBodyBytes, extended: false, verify: formEncodingOnly } as NestExpressBodyParserOptionsFor<'urlencoded'>);
  // NUL and nesting depth, for every text a request carries, before any route (docs/data-integrity.md).
  app.use(inputRules);
  app.useGlobalInterceptors(new InputRulesInterceptor(app.get(Reflector)));
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  app.useGlobalFilters(new GlobalExceptionFilter());
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  configureViews(app, PROJECT_ROOT);
  // Anonymous page views come from memory when they can, before any session work.
  app.use(app.get(PageViewCache).anonymousViews());
  // After the static assets (which need no session), before every route.
  useAuthentication(app, [uploadFormParser({ maxFileBytes: config.attachments.maxBytes, maxFieldBytes: config.http.maxBodyBytes })]);
  const openApi = new DocumentBuilder()
    .setTitle('Kurate')
    .setDescription('Pages, revisions, the Page Graph and search. Errors are JSON: {statusCode, error, message, code?}.')
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A personal API token (kur_…), from /account/tokens or POST /api/tokens.' })
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, openApi), { jsonDocumentUrl: 'api/docs/openapi.json' });
}

export async function createApp(config: KurateConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: new AppLogger(config.logLevel),
    // A module that cannot start rejects here (main.ts says why and exits; a test fails) rather than aborting the process.
    abortOnError: false,
  });
  configureApp(app, config);
  app.enableShutdownHooks();
  return app;
}
