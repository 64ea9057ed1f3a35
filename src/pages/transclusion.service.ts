import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { parseFrontmatter } from './markdown/frontmatter.js';
import type { ResolvedTarget } from './markdown/markdown-renderer.js';
import { stripComments } from './markdown/obsidian-syntax.js';
import { plainText } from './markdown/plain-text.js';
import { distinctWords, MAX_TRANSCLUSION_DEPTH, startTransclusion, transcludedText, type EmbeddedPage, type Transclusion } from './markdown/transclusion.js';
import { embedKeysOf, extractLinks, type ParsedLink } from './markdown/wikilinks.js';
import { PageLinksRepository, type EmbedderRow } from './page-links.repository.js';
import type { PageEntity } from './page.entity.js';
import { TransclusionRepository } from './transclusion.repository.js';

/** The pages a page embeds, loaded for one rendering or one search-vector refresh. */
export interface TransclusionContext {
  transclusion: Transclusion;
  /** The embedded pages by link key, and the host's slug: what a worker thread rebuilds `transclusion` from. */
  pages: Map<string, EmbeddedPage>;
  hostSlug: string;
  /** Resolutions of the links inside embedded content (the host's own come from its Page Graph rows). */
  resolved: Map<string, ResolvedTarget | null>;
  /** Changes whenever an embedded page, or a link inside one, changes: part of the render cache's key. */
  stamp: string;
}

/**
 * Transclusion over the Page Graph: loads the pages a page embeds (to MAX_TRANSCLUSION_DEPTH, one query per level),
 * and keeps the transcluded text in the search vector of every page that embeds a page that changed.
 */
@Injectable()
export class TransclusionService {
  constructor(
    private readonly repository: TransclusionRepository,
    private readonly links: PageLinksRepository,
  ) {}

  // What each embedded page version holds (its Markdown and the keys it links and embeds), so that a page view costs
  // the version queries, not a parse of every embedded page; bounded, oldest first out.
  private readonly parsed = new Map<string, ParsedEmbed>();

  private parse(row: { id: string; version: number; body: string }): ParsedEmbed {
    const key = `${row.id}@${row.version}`;
    let parsed = this.parsed.get(key);
    // The body is compared too: a version read inside a write that was then rolled back may be written again with
    // other text.
    if (!parsed || parsed.body !== row.body) {
      const markdown = markdownOf(row.body);
      const links = extractLinks(stripComments(markdown));
      parsed = { body: row.body, markdown, embeds: embedKeysOf(links), links: [...new Set(links.map((link) => link.key).filter(Boolean))] };
      this.parsed.delete(key);
      if (this.parsed.size >= PARSED_LIMIT) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(key, parsed);
    }
    return parsed;
  }

  /**
   * Null when the page embeds nothing (the common case costs no query). `embeds`: the keys the page embeds, when the
   * caller has parsed them already.
   */
  async context(hostSlug: string, markdown: string, db?: EntityManager, embeds?: string[]): Promise<TransclusionContext | null> {
    if (!markdown.includes('![[')) return null;
    const byKey = new Map<string, EmbeddedPage>();
    const stamps: string[] = [];
    let wanted = embeds ?? embedKeys(markdown);
    const seen = new Set<string>();
    const innerKeys = new Set<string>();
    for (let depth = 0; depth < MAX_TRANSCLUSION_DEPTH && wanted.length > 0; depth++) {
      wanted.forEach((key) => seen.add(key));
      const rows = await this.repository.pagesByKeys(wanted, db);
      const next = new Set<string>();
      for (const row of rows) {
        const parsed = this.parse(row);
        byKey.set(row.key, { id: row.id, slug: row.slug, title: row.title, markdown: parsed.markdown });
        parsed.links.forEach((key) => innerKeys.add(key));
        stamps.push(`${row.key}=${row.id}@${row.version}`);
        for (const key of parsed.embeds) if (!seen.has(key)) next.add(key);
      }
      wanted = [...next];
    }
    if (byKey.size === 0) return null;
    const inner = [...innerKeys];
    // Inside a write (db given) only the embeds matter: the search text needs no link's resolution.
    const targets = db ? new Map<string, ResolvedTarget>() : await this.links.resolveKeys(inner);
    const resolved = new Map<string, ResolvedTarget | null>(inner.map((key) => [key, targets.get(key) ?? null]));
    for (const [key, page] of byKey) resolved.set(key, { slug: page.slug, title: page.title });
    const transclusion = startTransclusion(hostSlug, (link: ParsedLink) => byKey.get(link.key) ?? null);
    stamps.sort();
    const links = [...resolved].map(([key, target]) => `${key}=${target?.slug ?? ''}/${target?.title ?? ''}`).sort();
    return { transclusion, pages: byKey, hostSlug, resolved, stamp: `${stamps.join(',')};${links.join('|')}` };
  }

  /**
   * After a page write (inside its transaction): the transcluded text in the search vector of the page itself and of
   * every page that embeds it, directly or through other embeds. `own`: the page's Markdown (without frontmatter)
   * and the keys it embeds, when the save has parsed them already. `readEmbedders`: the pages that may embed this one
   * (TransclusionRepository.embeddersOf with its id and keys), when the save has read them already. Returns the pages
   * visited: this one and every page that embeds it, directly or through others (their renderings follow this page's
   * text).
   */
  async refreshSearch(page: PageEntity, tx: EntityManager, own?: { markdown: string; embedKeys: string[] }, readEmbedders?: EmbedderRow[]): Promise<string[]> {
    const done = new Set<string>();
    if (!page.deletedAt) await this.refreshOne(page, tx, done, own);
    let changed = [page.id];
    let keys = page.linkKeys;
    for (let depth = 0; depth < MAX_TRANSCLUSION_DEPTH && changed.length > 0; depth++) {
      const read = depth === 0 && readEmbedders ? readEmbedders : await this.repository.embeddersOf(changed, keys, tx);
      const embedders = read.filter((row) => !done.has(row.id));
      const transcluding: string[] = [];
      for (const row of embedders) if (await this.refreshOne(row, tx, done)) transcluding.push(row.id);
      // Only a page that embeds pages carries what it embeds on to the pages that embed it.
      changed = transcluding;
      keys = [];
    }
    return [...done];
  }

  /**
   * Sets the page's transcluded words; false when it embeds no page (nothing to set). A page other than the one saved
   * (`own` absent) whose `![[` embeds no page at all (a syntax example in a code block, say) is left as it is: its
   * own save stored its search vector without transcluded words, and nothing another page does changes that.
   */
  private async refreshOne(page: { id: string; slug: string; version: number; body: string }, tx: EntityManager, done: Set<string>, own?: { markdown: string; embedKeys: string[] }): Promise<boolean> {
    const { id, slug, body } = page;
    done.add(id);
    // A body without `![[` embeds nothing, and its frontmatter need not be parsed to know it (most saves).
    if (!body.includes('![[')) return false;
    // A page version's Markdown and embeds: from the save that wrote it, else parsed once per version (an embedder
    // refreshed after each save of a page it embeds is parsed once, not at every save).
    const { markdown, embeds } = own ? { markdown: own.markdown, embeds: own.embedKeys } : this.parse(page);
    if (!own && embeds.length === 0) return false;
    const context = await this.context(slug, markdown, tx, embeds);
    if (!context && !markdown.includes('![[')) return false;
    // Nothing transcluded (its embeds are files, or pages that are gone): the stored words are cleared, and the page's
    // own text need not be read to tell which words are new.
    const words = context ? distinctWords(transcludedText(slug, markdown, context.transclusion, (link) => context.resolved.get(link.key)?.slug ?? null), plainText(markdown)) : '';
    await this.repository.setTranscludedText(id, words, tx);
    return embeds.length > 0;
  }
}

const PARSED_LIMIT = 2_000;

interface ParsedEmbed {
  body: string;
  markdown: string;
  embeds: string[];
  links: string[];
}

function embedKeys(markdown: string): string[] {
  return embedKeysOf(extractLinks(stripComments(markdown)));
}

function markdownOf(body: string): string {
  try {
    return parseFrontmatter(body).body;
  } catch {
    return body;
  }
}
