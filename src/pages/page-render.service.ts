import { Injectable } from '@nestjs/common';
import type { Actor } from '../auth/actor.js';
import { parseFrontmatter } from './markdown/frontmatter.js';
import { parsePageSource } from './page-source.js';
import { MarkdownRenderer, type RenderedMarkdown, type ResolvedTarget } from './markdown/markdown-renderer.js';
import { PageLinksRepository } from './page-links.repository.js';
import type { PageEntity } from './page.entity.js';
import { extractLinks } from './markdown/wikilinks.js';
import { extractFileTargets } from './markdown/file-embeds.js';
import { PageFiles } from './page-files.js';

const CACHE_LIMIT = 500;

/** Renders pages to safe HTML, resolving wikilinks against the Page Graph. */
@Injectable()
export class PageRenderService {
  private readonly renderer = new MarkdownRenderer();
  // Rendered HTML by page version and the state of its outbound links; bounded, newest kept.
  private readonly cache = new Map<string, RenderedMarkdown>();

  constructor(
    private readonly links: PageLinksRepository,
    private readonly files: PageFiles,
  ) {}

  async render(page: PageEntity): Promise<RenderedMarkdown> {
    const [outbound, files] = await Promise.all([this.links.outbound(page.id), this.files.filesOf(page.id)]);
    const resolved = new Map<string, ResolvedTarget | null>();
    for (const link of outbound) resolved.set(link.targetKey, link.page ? { slug: link.page.slug, title: link.page.title } : null);
    const cacheKey = `${page.id}:${page.version}:${outbound.map((l) => `${l.targetKey}=${l.page?.slug ?? ''}/${l.page?.title ?? ''}`).join('|')}:${[...files].map(([target, f]) => `${target}=${f.url}/${f.mediaType}/${f.sizeBytes}`).join('|')}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const rendered = this.renderer.render(parseFrontmatter(page.body).body, (link) => resolved.get(link.key) ?? null, { resolveFile: (target) => files.get(target) ?? null });
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, rendered);
    return rendered;
  }

  /** Live preview of unsaved text: links resolve against the pages that exist now, files against those `viewer` may read. */
  async preview(body: string, viewer: Actor): Promise<RenderedMarkdown> {
    const { body: markdown } = parsePageSource(body);
    const keys = [...new Set(extractLinks(markdown).map((link) => link.key))];
    const [targets, files] = await Promise.all([this.links.resolveKeys(keys), this.files.resolve(extractFileTargets(markdown), viewer)]);
    return this.renderer.render(markdown, (link) => targets.get(link.key) ?? null, { resolveFile: (target) => files.get(target) ?? null });
  }
}
