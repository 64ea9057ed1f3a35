import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { KurateConfig } from '../config/kurate-config.js';
import { EpochCache } from './epoch-cache.js';
import { PageChangeFeed } from './page-change-feed.js';

const MAX_PAGES = 5_000;
const PAGE_PATH = /^\/page\/([^/?]+)$/;

interface CachedHtml {
  html: string;
  etag: string;
}

/**
 * Page views, cached until any page changes: the view model for everyone, and for anonymous readers the whole HTML,
 * served before sessions, identity and routing run (the page is the same for every anonymous reader).
 */
@Injectable()
export class PageViewCache<Model = unknown> {
  readonly models: EpochCache<Model>;
  private readonly anonymousHtml: EpochCache<CachedHtml>;

  constructor(
    feed: PageChangeFeed,
    private readonly config: KurateConfig,
  ) {
    this.models = new EpochCache<Model>(feed, MAX_PAGES);
    this.anonymousHtml = new EpochCache<CachedHtml>(feed, MAX_PAGES);
  }

  /** Express middleware: answers an anonymous page view from memory when it can; otherwise marks it for storing. */
  anonymousViews(): RequestHandler {
    return (request: Request, response: Response, next: NextFunction) => {
      const slug = this.anonymousSlug(request);
      if (slug === null) return next();
      this.anonymousHtml.getFresh(slug).then((hit) => {
        if (!hit) {
          response.locals.anonymousView = { slug, epoch: this.anonymousHtml.begin() };
          return next();
        }
        // Answered before routing: the metrics learn the route from here (src/metrics/http-metrics.ts).
        response.locals.metricsRoute = '/page/:slug';
        response.set({ 'Content-Type': 'text/html; charset=utf-8', ETag: hit.etag });
        response.send(hit.html);
      }, next);
    };
  }

  /**
   * The page part of a logged-in page view (views/page-view.hbs without the layout), rendered once per cached view
   * model and role: it depends on the role alone (which page actions show), never on who the user is or on their
   * session (the layout around it, with the user's name and CSRF token, is rendered for every request). Kept with the
   * model, so it goes when the model does (any change of the page, src/pages/epoch-cache.ts).
   */
  bodyFor(model: object, role: string): string | undefined {
    return this.bodies.get(model)?.get(role);
  }

  keepBody(model: object, role: string, html: string): void {
    let byRole = this.bodies.get(model);
    if (!byRole) this.bodies.set(model, (byRole = new Map()));
    byRole.set(role, html);
  }

  private readonly bodies = new WeakMap<object, Map<string, string>>();

  /** After a page view rendered for a request the middleware marked: keep the HTML for the next anonymous reader. */
  storeAnonymousView(response: Response, html: string): void {
    const marked = response.locals.anonymousView as { slug: string; epoch: number } | undefined;
    if (!marked || response.locals.currentUser) return;
    const etag = `W/"${createHash('sha1').update(html).digest('base64url')}"`;
    this.anonymousHtml.set(marked.slug, { html, etag }, marked.epoch);
  }

  private anonymousSlug(request: Request): string | null {
    if (!this.config.auth.publicRead || (request.method !== 'GET' && request.method !== 'HEAD')) return null;
    if (request.headers.authorization !== undefined || request.headers.cookie?.includes('kurate.sid=')) return null;
    const match = PAGE_PATH.exec(request.url);
    if (!match) return null;
    try {
      return decodeURIComponent(match[1]);
    } catch {
      return null;
    }
  }
}
