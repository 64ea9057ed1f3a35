import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { CreatePageDto, DiffQueryDto, GraphQueryDto, ListPagesQueryDto, PagingQueryDto, PreviewDto, RenamePageDto, UpdatePageDto } from './dto/page.dto.js';
import { pageResponse, PageResponse, revisionResponse, RevisionResponse } from './dto/page.response.js';
import { PageGraphService } from './page-graph.service.js';
import { PageRenderService } from './page-render.service.js';
import { PagesService } from './pages.service.js';
import { diffRevisions } from './revision-diff.js';
import { SlugPipe } from './slug.pipe.js';
import { VersionPipe } from './version.pipe.js';

@ApiTags('pages')
@Controller('api')
export class PagesApiController {
  constructor(
    private readonly pages: PagesService,
    private readonly graph: PageGraphService,
    private readonly renderer: PageRenderService,
  ) {}

  @Access('read')
  @Get('pages')
  async list(@Query() query: ListPagesQueryDto) {
    const perPage = query.perPage ?? 50;
    const page = query.page ?? 1;
    const [items, total] = await this.pages.list({ cluster: query.cluster, tag: query.tag, sort: query.sort ?? 'title', limit: perPage, offset: (page - 1) * perPage });
    return { items: items.map(pageResponse), total, page, perPage };
  }

  @Access('author')
  @Post('pages')
  @ApiCreatedResponse({ type: PageResponse })
  async create(@Body() dto: CreatePageDto, @CurrentActor() actor: Actor): Promise<PageResponse> {
    return pageResponse(await this.pages.create(dto, actor));
  }

  @Access('read')
  @Get('pages/:slug')
  @ApiOkResponse({ type: PageResponse })
  async get(@Param('slug', SlugPipe) slug: string, @Query('render') render?: string) {
    const page = await this.pages.get(slug);
    if (render !== 'true') return pageResponse(page);
    const { html, toc } = await this.renderer.render(page);
    return { ...pageResponse(page), html, toc };
  }

  @Access('author')
  @Put('pages/:slug')
  @ApiOkResponse({ type: PageResponse })
  @ApiConflictResponse({ description: 'The page changed since baseVersion; the body has the current text and yours.' })
  async update(@Param('slug', SlugPipe) slug: string, @Body() dto: UpdatePageDto, @CurrentActor() actor: Actor) {
    const { page, changed } = await this.pages.update(slug, dto, actor);
    return { ...pageResponse(page), changed };
  }

  @Access('author')
  @Post('pages/:slug/rename')
  async rename(@Param('slug', SlugPipe) slug: string, @Body() dto: RenamePageDto, @CurrentActor() actor: Actor) {
    const { page, rewrittenPages } = await this.pages.rename(slug, dto.title, { rewriteLinks: dto.rewriteLinks ?? false }, actor);
    return { ...pageResponse(page), rewrittenPages };
  }

  @Access('author')
  @Delete('pages/:slug')
  @HttpCode(204)
  async delete(@Param('slug', SlugPipe) slug: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.pages.delete(slug, actor);
  }

  @Access('author')
  @Post('pages/:slug/restore')
  @ApiOkResponse({ type: PageResponse })
  async restore(@Param('slug', SlugPipe) slug: string) {
    return pageResponse(await this.pages.restore(slug));
  }

  // The trash holds what its authors took back: its text is for those who may restore it, not for every reader.
  @Access('author')
  @Get('trash')
  async trash() {
    return { items: (await this.pages.listTrash()).map(pageResponse) };
  }

  @Access('read')
  @Get('pages/:slug/history')
  @ApiOkResponse({ type: [RevisionResponse] })
  async history(@Param('slug', SlugPipe) slug: string) {
    const { revisions } = await this.pages.history(slug);
    return { items: revisions.map((r) => revisionResponse(r)) };
  }

  @Access('read')
  @Get('pages/:slug/revisions/:version')
  @ApiOkResponse({ type: RevisionResponse })
  async revision(@Param('slug', SlugPipe) slug: string, @Param('version', VersionPipe) version: number) {
    return revisionResponse((await this.pages.revision(slug, version)).revision, true);
  }

  @Access('author')
  @Post('pages/:slug/revisions/:version/restore')
  async restoreRevision(@Param('slug', SlugPipe) slug: string, @Param('version', VersionPipe) version: number, @CurrentActor() actor: Actor) {
    const { page, changed } = await this.pages.restoreRevision(slug, version, actor);
    return { ...pageResponse(page), changed };
  }

  @Access('read')
  @Get('pages/:slug/diff')
  async diff(@Param('slug', SlugPipe) slug: string, @Query() query: DiffQueryDto) {
    const [from, to] = await Promise.all([this.pages.revision(slug, query.from), this.pages.revision(slug, query.to)]);
    return { from: query.from, to: query.to, ...diffRevisions(from.revision.body, to.revision.body) };
  }

  @Access('read')
  @Get('pages/:slug/backlinks')
  async backlinks(@Param('slug', SlugPipe) slug: string) {
    return { items: await this.graph.backlinks(slug) };
  }

  @Access('read')
  @Get('pages/:slug/links')
  async outbound(@Param('slug', SlugPipe) slug: string) {
    return { items: await this.graph.outbound(slug) };
  }

  @Access('read')
  @Get('pages/:slug/graph')
  async neighbourhood(@Param('slug', SlugPipe) slug: string, @Query() query: GraphQueryDto) {
    return this.graph.neighbourhood(slug, query.hops ?? 1);
  }

  @Access('read')
  @Post('preview')
  @HttpCode(200)
  async preview(@Body() dto: PreviewDto, @CurrentActor() actor: Actor) {
    return this.renderer.preview(dto.body, actor);
  }

  @Access('read')
  @Get('reports/wanted')
  async wanted(@Query() query: PagingQueryDto) {
    const perPage = query.perPage ?? 50;
    return this.graph.wanted(perPage, ((query.page ?? 1) - 1) * perPage);
  }

  @Access('read')
  @Get('reports/orphans')
  async orphans(@Query() query: PagingQueryDto) {
    const perPage = query.perPage ?? 50;
    return this.graph.orphans(perPage, ((query.page ?? 1) - 1) * perPage);
  }

  @Access('read')
  @Get('reports/hubs')
  async hubs(@Query() query: PagingQueryDto) {
    return { items: await this.graph.hubs(query.perPage ?? 50) };
  }

  @Access('read')
  @Get('recent-changes')
  async recent(@Query() query: PagingQueryDto) {
    const items = await this.pages.recentChanges(query.perPage ?? 50);
    return { items: items.map((r) => ({ ...revisionResponse(r), slug: r.currentSlug })) };
  }

  @Access('read')
  @Get('facets')
  facets() {
    return this.pages.facets();
  }
}
