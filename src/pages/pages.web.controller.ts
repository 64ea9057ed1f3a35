import { BadRequestException, Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { ShowsInputProblemsInForm } from '../common/input-rules.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { CreatePageDto, GraphQueryDto, ListPagesQueryDto, RenamePageDto, UpdatePageDto } from './dto/page.dto.js';
import { isSafeSlug, pageSlug } from './markdown/slug.js';
import { PageGraphService } from './page-graph.service.js';
import { PageRenderService } from './page-render.service.js';
import { PageViewCache } from './page-view-cache.js';
import { PageFiles } from './page-files.js';
import {
  diffView, editFormModel, filesByVersion, formError, pageFilesView, formErrorStatus, historyView, newFormModel, noticeText, pageHref, pageMeta, pageSummary, titleFromSlug, tocView,
  type FormError,
} from './page-view-models.js';
import { fieldText, readForm } from '../web/forms.js';
import { pager } from '../web/pager.js';
import { parseVersion } from './version.pipe.js';
import type { PageEntity } from './page.entity.js';
import { PagesService } from './pages.service.js';
import { groupRecentChanges } from './recent-changes.js';
import { diffRevisions } from './revision-diff.js';
import { SlugPipe } from './slug.pipe.js';

const PAGES_PER_LIST = 50;
/** cytoscape, then the fCoSE layout's UMD bundles in the order they need each other (public/js/kurate.js draws). */
const PAGE_GRAPH_SCRIPTS = [
  '/static/vendor/cytoscape/cytoscape.min.js', '/static/vendor/layout-base/layout-base.js', '/static/vendor/cose-base/cose-base.js',
  '/static/vendor/cytoscape-fcose/cytoscape-fcose.js',
];
/** Revisions read for /recent; grouped by page and day they make far fewer lines. */
const RECENT_CHANGES = 300;
const REPORT_ROWS = 200;

/** What a page view shows, the same for every reader (so it can be cached until any page changes). */
interface PageViewModel {
  title: string;
  page: ReturnType<typeof pageMeta>;
  html: string;
  toc: ReturnType<typeof tocView>;
  backlinks: ReturnType<typeof pageSummary>[];
  /** KaTeX's stylesheet (served from node_modules), on pages with math. */
  extraCss?: string[];
  files: ReturnType<typeof pageFilesView>;
}

const MATH_CSS = ['/static/vendor/katex/katex.min.css'];

/** The server-rendered wiki: plain HTML forms that work without JavaScript. Routes shape view models; services do the work. */
@ApiExcludeController()
@Controller()
export class PagesWebController {
  constructor(
    private readonly pages: PagesService,
    private readonly graph: PageGraphService,
    private readonly renderer: PageRenderService,
    private readonly viewCache: PageViewCache<PageViewModel>,
    private readonly files: PageFiles,
  ) {}

  @Access('read')
  @Get()
  async home(@Res() res: Response) {
    const [[, pageCount], links, wanted, orphans, hubs, recent] = await Promise.all([
      this.pages.list({ sort: 'title', limit: 1, offset: 0 }),
      this.graph.linkCounts(),
      this.graph.wanted(10, 0),
      this.graph.orphans(1, 0),
      this.graph.hubs(10),
      this.pages.recentChanges(10),
    ]);
    res.render('home', {
      title: 'Home',
      counts: { pages: pageCount, links: links.resolved, broken: links.broken, wanted: wanted.total, orphans: orphans.total },
      empty: pageCount === 0,
      recent: recent.map((r) => ({ ...r, href: pageHref(r.currentSlug) })),
      hubs: hubs.map((h) => ({ ...pageSummary(h), inbound: h.inbound })),
      wanted: wanted.items.map((w) => ({ target: w.target, wantedBy: w.wantedBy, createHref: newPageHref(w.target) })),
    });
  }

  // Declared before `page/:slug` so that "new" is not read as a slug.
  @Access('author')
  @Get('page/new')
  newPage(@Query('title') title: unknown, @Res() res: Response) {
    res.render('page-new', newFormModel({ title: typeof title === 'string' ? title.slice(0, 300) : '', body: '', message: '' }));
  }

  @Access('author')
  @Post('page')
  @ShowsInputProblemsInForm()
  async create(@Body() form: unknown, @CurrentActor() actor: Actor, @Res() res: Response) {
    const typed = { title: fieldText(form, 'title'), body: fieldText(form, 'body'), message: fieldText(form, 'message') };
    const input = readForm(CreatePageDto, form);
    if (!input.ok) return res.status(400).render('page-new', newFormModel(typed, formError(input.message)));
    try {
      const page = await this.pages.create({ ...input.value, message: input.value.message || undefined }, actor);
      res.redirect(303, `${pageHref(page.slug)}?notice=created`);
    } catch (error) {
      const status = error instanceof DomainException ? formErrorStatus(error) : null;
      if (status === null) throw error;
      res.status(status).render('page-new', newFormModel(typed, formError(error as DomainException, typed.body)));
    }
  }

  @Access('read')
  @Get('page/:slug')
  async view(@Param('slug') raw: string, @Req() req: Request, @Res() res: Response) {
    const notice = noticeText(req.query.notice, { rewritten: req.query.rewritten });
    const cached = await this.viewCache.models.getFresh(raw);
    if (cached) return this.renderView(res, cached, notice);
    const epoch = this.viewCache.models.begin();
    const page = await this.locate(raw, '', req, res);
    if (!page) return;
    const [rendered, backlinks, files] = await Promise.all([this.renderer.render(page), this.graph.backlinksOf(page), this.files.filesOf(page.id)]);
    const model: PageViewModel = {
      title: page.title,
      page: pageMeta(page),
      html: rendered.html,
      toc: tocView(rendered.toc),
      backlinks: backlinks.map(pageSummary),
      extraCss: rendered.html.includes('<span class="katex">') ? MATH_CSS : undefined,
      files: pageFilesView(page, files),
    };
    this.viewCache.models.set(raw, model, epoch);
    this.renderView(res, model, notice);
  }

  /**
   * A page view: for an anonymous reader the whole page, which the cache keeps; for a logged-in user the page part
   * once per model and role (PageViewCache.bodyFor), and the layout around it (their name, their CSRF token) each time.
   */
  private renderView(res: Response, model: PageViewModel, notice: string | null): void {
    const fail = (error: Error | null) => {
      res.req.next?.(error);
    };
    const role = (res.locals.currentUser as { role?: string } | null)?.role;
    if (!role || notice) {
      return res.render('page-view', { ...model, notice }, (error: Error | null, html: string) => {
        if (error) return fail(error);
        this.viewCache.storeAnonymousView(res, html);
        res.send(html);
      });
    }
    const inLayout = (body: string) =>
      res.render('layouts/main', { title: model.title, extraCss: model.extraCss, body, layout: false }, (error: Error | null, html: string) => {
        if (error) return fail(error);
        res.send(html);
      });
    const body = this.viewCache.bodyFor(model, role);
    if (body !== undefined) return inLayout(body);
    res.render('page-view', { ...model, notice: null, layout: false }, (error: Error | null, html: string) => {
      if (error) return fail(error);
      this.viewCache.keepBody(model, role, html);
      inLayout(html);
    });
  }

  @Access('author')
  @Get('page/:slug/edit')
  async edit(@Param('slug') raw: string, @Req() req: Request, @Res() res: Response) {
    const page = await this.locate(raw, '/edit', req, res);
    if (!page) return;
    const { html } = await this.renderer.render(page);
    res.render('page-edit', editFormModel(page, { body: page.body, baseVersion: page.version, message: '' }, html));
  }

  @Access('author')
  @Post('page/:slug')
  @ShowsInputProblemsInForm()
  async update(@Param('slug', SlugPipe) slug: string, @Body() form: unknown, @CurrentActor() actor: Actor, @Res() res: Response) {
    const typed = { body: fieldText(form, 'body'), message: fieldText(form, 'message'), baseVersion: Number(fieldText(form, 'baseVersion')) || 0 };
    const input = readForm(UpdatePageDto, form);
    try {
      if (!input.ok) {
        const page = await this.pages.get(slug);
        return res.status(400).render('page-edit', editFormModel(page, typed, null, formError(input.message)));
      }
      const { page, changed } = await this.pages.update(slug, { ...input.value, message: input.value.message || undefined }, actor);
      res.redirect(303, `${pageHref(page.slug)}?notice=${changed ? 'saved' : 'unchanged'}`);
    } catch (error) {
      const status = error instanceof DomainException ? formErrorStatus(error) : null;
      if (status === null) throw error;
      if (!(error instanceof DomainException)) throw error;
      if (error.code === DomainErrorCode.VersionConflict) {
        const title = (await this.pages.get(slug).catch(() => null))?.title ?? titleFromSlug(slug);
        return res.status(409).render('page-conflict', conflictModel({ slug, title }, typed, error));
      }
      // Even when the page went to the trash meanwhile, the text comes back to the author.
      const page = error.code === DomainErrorCode.NotFound ? null : await this.pages.get(slug).catch(() => null);
      res.status(status).render('page-edit', editFormModel(page ?? { slug, title: titleFromSlug(slug), version: typed.baseVersion }, typed, null, formError(error, typed.body)));
    }
  }

  @Access('read')
  @Get('page/:slug/history')
  async history(@Param('slug') raw: string, @Req() req: Request, @Res() res: Response) {
    const located = await this.locate(raw, '/history', req, res);
    if (!located) return;
    const { page, revisions } = await this.pages.history(located.slug);
    const added = filesByVersion(pageFilesView(page, await this.files.filesOf(page.id)));
    const rows = historyView(page, revisions).map((row) => ({ ...row, addedFiles: added.get(row.version) ?? [] }));
    res.render('page-history', { title: `History of ${page.title}`, page: pageMeta(page), revisions: rows, canCompare: revisions.length > 1 });
  }

  @Access('read')
  @Get('page/:slug/diff')
  async diff(@Param('slug') raw: string, @Query('from') fromRaw: unknown, @Query('to') toRaw: unknown, @Req() req: Request, @Res() res: Response) {
    const from = parseVersion(fromRaw, 'from');
    const to = parseVersion(toRaw, 'to');
    const located = await this.locate(raw, '/diff', req, res);
    if (!located) return;
    const [older, newer] = await Promise.all([this.pages.revision(located.slug, from), this.pages.revision(located.slug, to)]);
    res.render('page-diff', {
      title: `${located.title}: version ${from} → ${to}`,
      page: pageMeta(located),
      from: { version: from, author: older.revision.author, createdAt: older.revision.createdAt, href: pageHref(located.slug, `/revisions/${from}`) },
      to: { version: to, author: newer.revision.author, createdAt: newer.revision.createdAt, href: pageHref(located.slug, `/revisions/${to}`) },
      swapHref: pageHref(located.slug, `/diff?from=${to}&to=${from}`),
      diff: diffView(diffRevisions(older.revision.body, newer.revision.body), older.revision.body),
    });
  }

  @Access('read')
  @Get('page/:slug/revisions/:version')
  async revision(@Param('slug') raw: string, @Param('version') versionRaw: string, @Req() req: Request, @Res() res: Response) {
    const version = parseVersion(versionRaw, 'version');
    const located = await this.locate(raw, `/revisions/${version}`, req, res);
    if (!located) return;
    const { page, revision } = await this.pages.revision(located.slug, version);
    res.render('page-revision', {
      title: `${page.title}, version ${version}`,
      page: pageMeta(page),
      revision,
      isCurrent: revision.version === page.version,
      restoreAction: pageHref(page.slug, `/revisions/${version}/restore`),
      diffHref: revision.version === page.version ? null : pageHref(page.slug, `/diff?from=${version}&to=${page.version}`),
    });
  }

  @Access('author')
  @Post('page/:slug/revisions/:version/restore')
  async restoreRevision(@Param('slug', SlugPipe) slug: string, @Param('version') versionRaw: string, @CurrentActor() actor: Actor, @Res() res: Response) {
    const { page, changed } = await this.pages.restoreRevision(slug, parseVersion(versionRaw, 'version'), actor);
    res.redirect(303, `${pageHref(page.slug)}?notice=${changed ? 'reverted' : 'unchanged'}`);
  }

  @Access('author')
  @Get('page/:slug/rename')
  async renameForm(@Param('slug') raw: string, @Req() req: Request, @Res() res: Response) {
    const page = await this.locate(raw, '/rename', req, res);
    if (!page) return;
    const backlinks = await this.graph.backlinks(page.slug);
    res.render('page-rename', renameModel(page, { title: page.title, rewriteLinks: backlinks.length > 0 }, backlinks.length));
  }

  @Access('author')
  @Post('page/:slug/rename')
  @ShowsInputProblemsInForm()
  async rename(@Param('slug', SlugPipe) slug: string, @Body() form: unknown, @CurrentActor() actor: Actor, @Res() res: Response) {
    const typed = { title: fieldText(form, 'title'), rewriteLinks: ['on', 'true', '1'].includes(fieldText(form, 'rewriteLinks')) };
    const input = readForm(RenamePageDto, form);
    try {
      if (!input.ok) throw new DomainException(DomainErrorCode.InvalidInput, input.message);
      const { page, rewrittenPages } = await this.pages.rename(slug, input.value.title, { rewriteLinks: input.value.rewriteLinks ?? false }, actor);
      res.redirect(303, `${pageHref(page.slug)}?notice=renamed&rewritten=${rewrittenPages.length}`);
    } catch (error) {
      const status = error instanceof DomainException && error.code !== DomainErrorCode.NotFound ? formErrorStatus(error) : null;
      if (status === null) throw error;
      const page = await this.pages.get(slug);
      res.status(status).render('page-rename', renameModel(page, typed, (await this.graph.backlinks(slug)).length, formError(error as DomainException)));
    }
  }

  @Access('author')
  @Get('page/:slug/delete')
  async deleteForm(@Param('slug') raw: string, @Req() req: Request, @Res() res: Response) {
    const page = await this.locate(raw, '/delete', req, res);
    if (!page) return;
    const backlinks = await this.graph.backlinks(page.slug);
    res.render('page-delete', { title: `Delete ${page.title}?`, page: pageMeta(page), backlinks: backlinks.map(pageSummary), action: pageHref(page.slug, '/delete') });
  }

  @Access('author')
  @Post('page/:slug/delete')
  async delete(@Param('slug', SlugPipe) slug: string, @CurrentActor() actor: Actor, @Res() res: Response) {
    await this.pages.delete(slug, actor);
    res.redirect(303, `/trash?notice=deleted&slug=${encodeURIComponent(slug)}`);
  }

  // The trash holds what its authors took back: its text is for those who may restore it, not for every reader.
  @Access('author')
  @Get('trash')
  async trash(@Query('notice') notice: unknown, @Query('slug') slug: unknown, @Res() res: Response) {
    const items = await this.pages.listTrash();
    res.render('trash', {
      title: 'Trash',
      notice: noticeText(notice),
      items: items.map((p) => ({
        ...pageSummary(p), deletedAt: p.deletedAt, deletedBy: p.deletedBy, version: p.version,
        restoreAction: `/trash/${encodeURIComponent(p.slug)}/restore`, justDeleted: p.slug === slug,
      })),
    });
  }

  @Access('author')
  @Post('trash/:slug/restore')
  async restore(@Param('slug', SlugPipe) slug: string, @Res() res: Response) {
    const page = await this.pages.restore(slug);
    res.redirect(303, `${pageHref(page.slug)}?notice=restored`);
  }

  @Access('read')
  @Get('pages')
  async list(@Query() query: ListPagesQueryDto, @Res() res: Response) {
    const page = query.page ?? 1;
    const sort = query.sort ?? 'title';
    const [[items, total], facets] = await Promise.all([
      this.pages.list({ cluster: query.cluster || undefined, tag: query.tag || undefined, sort, limit: PAGES_PER_LIST, offset: (page - 1) * PAGES_PER_LIST }),
      this.pages.facets(),
    ]);
    res.render('pages-list', {
      title: 'All pages',
      items: items.map((p) => ({ ...pageSummary(p), tags: p.tags, updatedAt: p.updatedAt, updatedBy: p.updatedBy })),
      total,
      filtered: Boolean(query.cluster || query.tag),
      clusters: facets.clusters.map((c) => ({ ...c, selected: c.name === query.cluster })),
      tags: facets.tags.map((t) => ({ ...t, selected: t.name === query.tag })),
      sortTitle: sort === 'title',
      sortUpdated: sort === 'updated',
      pager: pager('/pages', { cluster: query.cluster, tag: query.tag, sort: sort === 'title' ? undefined : sort }, page, PAGES_PER_LIST, total),
    });
  }

  @Access('read')
  @Get('recent')
  async recent(@Res() res: Response) {
    const days = groupRecentChanges(await this.pages.recentChanges(RECENT_CHANGES));
    res.render('recent', {
      title: 'Recent changes',
      limit: RECENT_CHANGES,
      days: days.map((d) => ({
        day: d.day,
        pages: d.pages.map((p) => ({
          title: p.title, latestAt: p.latestAt, count: p.revisions.length, several: p.revisions.length > 1,
          created: p.fromVersion === 0,
          authors: p.authors.map((a) => ({ ...a, several: a.changes > 1 })),
          href: pageHref(p.currentSlug),
          historyHref: pageHref(p.currentSlug, '/history'),
          diffHref: p.fromVersion > 0 ? pageHref(p.currentSlug, `/diff?from=${p.fromVersion}&to=${p.toVersion}`) : null,
          lastMessage: p.revisions[0].message,
          revisions: p.revisions.map((r) => ({
            version: r.version, author: r.author, message: r.message, createdAt: r.createdAt,
            revisionHref: pageHref(r.currentSlug, `/revisions/${r.version}`),
            diffHref: r.version > 1 ? pageHref(r.currentSlug, `/diff?from=${r.version - 1}&to=${r.version}`) : null,
          })),
        })),
      })),
    });
  }

  @Access('read')
  @Get('reports')
  async reports(@Res() res: Response) {
    const [wanted, orphans, hubs] = await Promise.all([this.graph.wanted(REPORT_ROWS, 0), this.graph.orphans(REPORT_ROWS, 0), this.graph.hubs(50)]);
    res.render('reports', {
      title: 'Reports',
      wanted: wanted.items.map((w) => ({ target: w.target, wantedBy: w.wantedBy, fromPages: w.fromPages.map(pageSummary), createHref: newPageHref(w.target) })),
      wantedTotal: wanted.total,
      wantedMore: wanted.total > wanted.items.length,
      orphans: orphans.items.map(pageSummary),
      orphansTotal: orphans.total,
      orphansMore: orphans.total > orphans.items.length,
      hubs: hubs.map((h) => ({ ...pageSummary(h), inbound: h.inbound })),
    });
  }

  @Access('read')
  @Get('page/:slug/graph')
  async graphView(@Param('slug') raw: string, @Query() query: GraphQueryDto, @Req() req: Request, @Res() res: Response) {
    const page = await this.locate(raw, '/graph', req, res);
    if (!page) return;
    const hops = query.hops ?? 1;
    const { nodes, edges } = await this.graph.neighbourhood(page.slug, hops);
    const others = nodes.filter((n) => n.slug !== page.slug).map((n) => ({ ...pageSummary(n), depth: n.depth }));
    res.render('page-graph', {
      title: `Links around ${page.title}`,
      page: pageMeta(page),
      hops,
      oneHop: hops === 1,
      oneHopHref: pageHref(page.slug, '/graph?hops=1'),
      twoHopsHref: pageHref(page.slug, '/graph?hops=2'),
      direct: others.filter((n) => n.depth === 1),
      indirect: others.filter((n) => n.depth === 2),
      edgeCount: edges.length,
      alone: others.length === 0,
      scripts: PAGE_GRAPH_SCRIPTS,
    });
  }

  /**
   * Finds the live page a URL names. Otherwise answers by itself and returns null: a 301 for an old or non-canonical
   * slug (keeping the sub-path and the query), a 404 offering to create the page, or a 404 saying it is in the trash.
   */
  private async locate(raw: string, suffix: string, req: Request, res: Response): Promise<PageEntity | null> {
    const slug = pageSlug(raw);
    if (!slug) throw new BadRequestException(`"${raw.slice(0, 80)}" cannot name a page: a page name needs at least one letter or digit.`);
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const found = await this.pages.lookup(slug);
    if (found && 'page' in found && raw === slug) return found.page;
    if (found) {
      res.redirect(301, pageHref('page' in found ? found.page.slug : found.redirectTo, suffix) + query);
      return null;
    }
    try {
      await this.pages.get(slug);
    } catch (error) {
      if (error instanceof DomainException && error.details.inTrash) {
        res.status(404).render('page-trashed', { title: 'In the trash', message: error.message, slug, restoreAction: `/trash/${encodeURIComponent(slug)}/restore` });
        return null;
      }
      if (!(error instanceof DomainException)) throw error;
    }
    const title = titleFromSlug(isSafeSlug(raw) ? raw : raw.trim());
    res.status(404).render('page-missing', { title: 'No such page', missingTitle: title, createHref: newPageHref(title) });
    return null;
  }
}

function newPageHref(title: string): string {
  return `/page/new?${new URLSearchParams({ title })}`;
}

/** A version number from the URL; out-of-range numbers are a 400, not a database error. */

function conflictModel({ slug, title }: { slug: string; title: string }, typed: { body: string; message: string }, error: DomainException) {
  const details = error.details as { currentVersion: number; currentBody: string; updatedBy: string; yourBody: string; baseVersion: number };
  return {
    title: 'Edit conflict',
    message: error.message,
    action: pageHref(slug),
    page: { slug, title, href: pageHref(slug), historyHref: pageHref(slug, '/history') },
    theirs: { body: details.currentBody, version: details.currentVersion, updatedBy: details.updatedBy },
    yours: { body: typed.body, message: typed.message, baseVersion: details.baseVersion },
    newBaseVersion: details.currentVersion,
    diff: diffView(diffRevisions(details.currentBody, typed.body), details.currentBody),
    diffHref: pageHref(slug, `/diff?from=${details.baseVersion}&to=${details.currentVersion}`),
  };
}

function renameModel(page: PageEntity, typed: { title: string; rewriteLinks: boolean }, backlinkCount: number, error: FormError | null = null) {
  return {
    title: `Rename ${page.title}`,
    page: pageMeta(page),
    form: typed,
    backlinkCount,
    action: pageHref(page.slug, '/rename'),
    error,
  };
}
