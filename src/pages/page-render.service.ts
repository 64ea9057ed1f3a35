import { Injectable } from '@nestjs/common';
import type { Actor } from '../auth/actor.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { parseFrontmatter } from './markdown/frontmatter.js';
import { parsePageSource } from './page-source.js';
import type { RenderedMarkdown, ResolvedTarget } from './markdown/markdown-renderer.js';
import type { ResolvedFile } from './markdown/file-embeds.js';
import type { RenderRequest } from './markdown/markdown-tasks.js';
import { PageLinksRepository } from './page-links.repository.js';
import type { PageEntity } from './page.entity.js';
import { TransclusionService, type TransclusionContext } from './transclusion.service.js';
import { PageFiles } from './page-files.js';
import { MarkdownPool } from './markdown-pool.js';

const CACHE_LIMIT = 500;

/**
 * How much text a visitor who is not logged in may preview (with public reading on, anyone may try Markdown out).
 * A logged-in user previews what they may save (a page, up to a megabyte). A visitor saves nothing, and a megabyte of
 * hostile Markdown holds the render thread for seconds: three at once queued every render behind them for a minute.
 */
export const ANONYMOUS_PREVIEW_CHARS = 64_000;

/** Renders pages to safe HTML, resolving wikilinks against the Page Graph and transcluding embedded pages. */
@Injectable()
export class PageRenderService {
  // Rendered HTML by page version, the state of its outbound links and the versions of the pages it embeds (found
  // through the link graph, so an edit of an embedded page is a new key for every page that embeds it); bounded.
  private readonly cache = new Map<string, RenderedMarkdown>();

  constructor(
    private readonly links: PageLinksRepository,
    private readonly transclusions: TransclusionService,
    private readonly files: PageFiles,
    private readonly markdown: MarkdownPool,
  ) {}

  async render(page: PageEntity): Promise<RenderedMarkdown> {
    const markdown = parseFrontmatter(page.body).body;
    const [outbound, embedded, ownFiles] = await Promise.all([this.links.outbound(page.id), this.transclusions.context(page.slug, markdown), this.files.filesOf(page.id)]);
    const files = await this.withEmbeddedFiles(ownFiles, embedded);
    const resolved = new Map<string, ResolvedTarget | null>(embedded?.resolved ?? []);
    for (const link of outbound) resolved.set(link.targetKey, link.page ? { slug: link.page.slug, title: link.page.title } : null);
    const cacheKey = [
      `${page.id}:${page.version}`,
      outbound.map((l) => `${l.targetKey}=${l.page?.slug ?? ''}/${l.page?.title ?? ''}`).join('|'),
      embedded?.stamp ?? '',
      [...files].map(([target, f]) => `${target}=${f.url}/${f.mediaType}/${f.sizeBytes}`).join('|'),
    ].join(':');
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const rendered = await this.markdown.render(renderRequestOf(markdown, resolved, embedded, files));
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, rendered);
    return rendered;
  }

  /** Live preview of unsaved text: links resolve against the pages that exist now, files against those `viewer` may read. */
  async preview(body: string, viewer: Actor): Promise<RenderedMarkdown> {
    if (viewer.userId === null && body.length > ANONYMOUS_PREVIEW_CHARS) {
      throw new DomainException(
        DomainErrorCode.PayloadTooLarge,
        `A visitor who is not logged in may preview up to ${ANONYMOUS_PREVIEW_CHARS / 1000} KB of text (this is ${Math.ceil(body.length / 1000)} KB); log in to preview a whole page.`,
      );
    }
    const { body: markdown } = parsePageSource(body);
    const { linkKeys, fileTargets } = await this.markdown.references(markdown);
    const [targets, embedded, ownFiles] = await Promise.all([this.links.resolveKeys(linkKeys), this.transclusions.context('', markdown), this.files.resolve(fileTargets, viewer)]);
    const files = await this.withEmbeddedFiles(ownFiles, embedded);
    const resolved = new Map<string, ResolvedTarget | null>(embedded?.resolved ?? []);
    for (const [key, target] of targets) resolved.set(key, target);
    return this.markdown.render(renderRequestOf(markdown, resolved, embedded, files));
  }

  /**
   * The page's own files and those of the pages it embeds (an image inside an embedded section shows as it does at
   * its source): each reference resolves as in the page that holds it, the host's own first where both name a target.
   */
  private async withEmbeddedFiles<F extends ResolvedFile>(own: Map<string, F>, embedded: TransclusionContext | null): Promise<Map<string, ResolvedFile>> {
    const ids = [...new Set([...(embedded?.pages.values() ?? [])].map((page) => page.id).filter((id): id is string => id !== undefined))];
    if (ids.length === 0) return own;
    const files = new Map<string, ResolvedFile>(own);
    for (const theirs of await Promise.all(ids.map((id) => this.files.filesOf(id)))) {
      for (const [target, file] of theirs) if (!files.has(target)) files.set(target, file);
    }
    return files;
  }
}

function renderRequestOf(markdown: string, resolved: Map<string, ResolvedTarget | null>, embedded: TransclusionContext | null, files: Map<string, ResolvedFile>): RenderRequest {
  return {
    markdown,
    links: [...resolved],
    embeds: embedded ? { hostSlug: embedded.hostSlug, pages: [...embedded.pages] } : null,
    files: [...files],
  };
}
