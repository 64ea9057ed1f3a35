import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { againOnConflict, sqlStateOf } from '../db/sql-state.js';
import type { Actor } from '../auth/actor.js';
import { aliasesOf, clustersOf, parseFrontmatter, tagsOf } from './markdown/frontmatter.js';
import { parsePageSource } from './page-source.js';
import { rewriteWikilinks } from './markdown/link-rewrite.js';
import { inlineTags, stripComments } from './markdown/obsidian-syntax.js';
import { pageSlug, slugify } from './markdown/slug.js';
import { outboundLinks } from './markdown/wikilinks.js';
import { PageLinksRepository, type EmbedderRow, type LinkKeyTurns, type LinkingSource } from './page-links.repository.js';
import { PageChangeFeed, type Announcement } from './page-change-feed.js';
import { PageSaveHooks, type PageChange } from './page-save-hooks.js';
import type { PageRevisionEntity } from './page-revision.entity.js';
import type { PageEntity } from './page.entity.js';
import { PagesRepository, type PageListFilter, type PageWrite } from './pages.repository.js';
import { TransclusionService } from './transclusion.service.js';
import { MarkdownPool } from './markdown-pool.js';
import { RecentSaves, type PageFacts } from './recent-saves.js';
import type { SaveAnalysis } from './markdown/markdown-tasks.js';
import { withoutInvisibleControls } from '../common/invisible-controls.js';

/** A page write that PostgreSQL aborted as a deadlock runs again at most this many times in all. */
const MAX_WRITE_ATTEMPTS = 3;
/** PostgreSQL's "program limit exceeded": the one a page's text reaches is a search vector over 1 MB. */
const PROGRAM_LIMIT_EXCEEDED = '54000';

/**
 * `error`, or, when it is PostgreSQL's program limit (a page with more distinct words than its search vector holds,
 * about 100,000), the 422 that says so: nothing is saved.
 */
function orTooManyWords(error: unknown): unknown {
  if (sqlStateOf(error) !== PROGRAM_LIMIT_EXCEEDED) return error;
  return new DomainException(
    DomainErrorCode.TooComplex,
    'The page has more distinct words than the search index can hold for one page (PostgreSQL keeps at most 1 MB of it). Nothing was saved; split the text into several pages.',
  );
}

export interface CreatePageInput {
  /** Used when the frontmatter has no `title`. */
  title?: string;
  body: string;
  message?: string;
}

export interface UpdatePageInput {
  body: string;
  baseVersion: number;
  message?: string;
}

/** Where an imported note lives in its vault: its path, and the `cluster:` line import added for its folder. */
export interface VaultOrigin {
  path: string | null;
  cluster: string | null;
}

export interface SaveResult {
  page: PageEntity;
  /** False when the save changed nothing (same text): no revision is written. */
  changed: boolean;
}

/** Pages and their revisions: every write keeps the page, its revision and its links consistent in one transaction. */
@Injectable()
export class PagesService {
  constructor(
    private readonly pages: PagesRepository,
    private readonly links: PageLinksRepository,
    private readonly saveHooks: PageSaveHooks,
    private readonly changeFeed: PageChangeFeed,
    private readonly transclusions: TransclusionService,
    private readonly markdown: MarkdownPool,
  ) {}

  /** The pages this process saved last (an author's next save of one needs no read first). */
  private readonly recentSaves = new RecentSaves();

  async get(slug: string): Promise<PageEntity> {
    const page = await this.pages.findLiveBySlug(slug);
    if (page) return page;
    const trashed = await this.pages.findBySlug(slug);
    if (trashed) throw inTrash(trashed);
    throw new DomainException(DomainErrorCode.NotFound, `There is no page "${slug}".`);
  }

  /** The live pages among these slugs, by slug. */
  async findLiveMany(slugs: string[]): Promise<Map<string, PageEntity>> {
    return new Map((await this.pages.findLiveBySlugs([...new Set(slugs)])).map((page) => [page.slug, page]));
  }

  /** The live page for a slug, or where an old slug now redirects. */
  async lookup(slug: string): Promise<{ page: PageEntity } | { redirectTo: string } | null> {
    const page = await this.pages.findLiveBySlug(slug);
    if (page) return { page };
    const redirectTo = await this.pages.findRedirect(slug);
    return redirectTo ? { redirectTo } : null;
  }

  list(filter: PageListFilter) {
    return this.pages.list(filter);
  }

  facets() {
    return this.pages.facets();
  }

  tagged(tag: string, limit: number, offset: number) {
    return this.pages.tagged(tag, limit, offset);
  }

  allTags() {
    return this.pages.allTags();
  }

  /** `vaultOrigin`: where an imported page lives in its vault, recorded with it (see {@link recordVaultOrigin}). */
  async create(input: CreatePageInput, actor: Actor, vaultOrigin: VaultOrigin | null = null): Promise<PageEntity> {
    const write = this.prepare(input.body, input.title);
    const analysis = await this.markdown.saveAnalysis(write.markdown);
    const { links } = analysis;
    write.searchLexemes = await this.searchLexemes(write.text);
    const created = await this.write({ changes: write.linkKeys, reads: links.map((l) => l.targetKey) }, async (tx) => {
      // The slug's unique index decides whether it is free; only a taken one is read, for the message.
      const page = await this.pages.insert(write, actor.name, input.message ?? 'Created', tx, vaultOrigin);
      if (!page) throw (await this.slugTaken(write.slug, tx)) ?? new DomainException(DomainErrorCode.SlugTaken, `A page "${write.title}" was being created at the same moment; try again.`, { slug: write.slug });
      // Its links, other pages' links that now reach it, and the pages that may embed it: one statement. Nothing here
      // writes this page's row again.
      const embedders = await this.links.insertOutboundOfNew(page.id, links, write.linkKeys, tx);
      // A new page has no earlier version, and so no file reference to delete.
      return this.saved(page, 'created', tx, undefined, { write, analysis, replacedHadFileReferences: false, embedders });
    });
    this.recentSaves.remember(created, analysis.fileReferences.length > 0);
    return created;
  }

  async update(slug: string, input: UpdatePageInput, actor: Actor): Promise<SaveResult> {
    // The page as this process's last save of it committed it, when that is the version edited: an author saving
    // again spares the read. It is a hint: the UPDATE writes only that version of that page, live, and when it finds
    // none (another process saved, trashed or renamed it, and perhaps gave its slug to another page), the hint is
    // dropped and the save runs again from a read, answering whatever that read gives.
    const remembered = this.recentSaves.at(slug, input.baseVersion);
    if (remembered) {
      try {
        return await this.updateFrom(remembered, null, input, actor);
      } catch (error) {
        if (!(error instanceof DomainException && (error.code === DomainErrorCode.VersionConflict || error.code === DomainErrorCode.NotFound))) throw error;
        this.recentSaves.forget(slug);
      }
    }
    const read = await this.get(slug);
    return this.updateFrom(read, read, input, actor);
  }

  /** An edit of `current` (`read`: the page as read now, or null when `current` is remembered from this process's save). */
  private async updateFrom(current: PageFacts, read: PageEntity | null, input: UpdatePageInput, actor: Actor): Promise<SaveResult> {
    const write = this.prepare(input.body, current.title, current.slug);
    if (current.version !== input.baseVersion) throw this.conflict(read!, input);
    // Nothing to save: the answer is the page as it is now (read, if it was remembered).
    if (write.contentHash === current.contentHash) return this.unchanged(read ?? (await this.get(current.slug)), input);
    const analysis = await this.markdown.saveAnalysis(write.markdown);
    const { links } = analysis;
    write.searchLexemes = await this.searchLexemes(write.text);
    const ownKeys = [...new Set([...current.linkKeys, ...write.linkKeys])];
    // The same title and names: no link elsewhere resolves or reads differently, so only this page, the pages that
    // embed it and the pages whose backlinks change for readers, and the page caches forget only those. A backlink
    // shows this page's title and cluster: with the same cluster too, only the pages it starts or stops linking to.
    const sameNames = write.title === current.title && sameSet(write.linkKeys, current.linkKeys);
    const sameBacklinks = write.cluster === current.cluster;
    const touched = new Set<string>([current.id]);
    // Keeping its names, the save changes what no key resolves to: it only reads its own keys too.
    const targets = links.map((l) => l.targetKey);
    const keys = sameNames ? { changes: [], reads: [...ownKeys, ...targets] } : { changes: ownKeys, reads: targets };
    const result = await this.write(keys, async (tx, announced) => {
      const saved = await this.pages.updateIfVersion(current.id, input.baseVersion, write, actor.name, input.message ?? '', tx);
      if (!saved) throw this.notSaved(await this.pages.findById(current.id, tx), input, current.slug);
      let embedders: EmbedderRow[] | undefined;
      if (sameNames) {
        // With the same title and names, every link to one of them resolves as it did: nothing to resolve again. One
        // statement writes the links, reads the pages that may embed this one and announces what it knows changed.
        const edit = await this.links.replaceOutboundOfEdit(current.id, links, write.linkKeys, sameBacklinks, tx, announced.announcement);
        for (const id of edit.backlinksChanged) touched.add(id);
        embedders = edit.embedders;
        announced.took(edit.announced);
      } else {
        for (const id of await this.links.replaceOutbound(current.id, links, tx)) touched.add(id);
        for (const id of await this.links.reresolve(current.id, ownKeys, tx)) touched.add(id);
      }
      // Nothing since the UPDATE wrote this page's row: the row it returned is the page as saved.
      const replacedHadFileReferences = current.hasFileReferences;
      return { page: await this.saved(saved, 'updated', tx, touched, { write, analysis, replacedHadFileReferences, embedders }), changed: true };
    }, sameNames ? () => [...touched] : undefined);
    this.recentSaves.remember(result.page, analysis.fileReferences.length > 0);
    return result;
  }

  /** A save of the text the page has: nothing is written, unless the page has moved on from the version edited. */
  private unchanged(now: PageEntity, input: UpdatePageInput): SaveResult {
    if (now.version !== input.baseVersion) throw this.conflict(now, input);
    return { page: now, changed: false };
  }

  /**
   * Gives a page a new title and slug; the old slug redirects. With `rewriteLinks`, pages that linked by the old
   * name are edited (a new revision each) to use the new title.
   */
  async rename(slug: string, newTitle: string, options: { rewriteLinks: boolean }, actor: Actor): Promise<{ page: PageEntity; rewrittenPages: string[] }> {
    // A rename carries no base version: when the page changed between reading it and writing (another rename
    // rewrote a link in it, an edit was saved), it is read again and renamed as it is now.
    for (let attempt = 1; ; attempt++) {
      try {
        const renamed = await this.renameOnce(slug, newTitle, options, actor);
        this.recentSaves.forget(slug);
        this.recentSaves.remember(renamed.page);
        return renamed;
      } catch (error) {
        if (!(error instanceof DomainException && error.code === DomainErrorCode.VersionConflict) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
      }
    }
  }

  private async renameOnce(slug: string, newTitle: string, options: { rewriteLinks: boolean }, actor: Actor): Promise<{ page: PageEntity; rewrittenPages: string[] }> {
    const current = await this.get(slug);
    const title = withoutInvisibleControls(newTitle).trim();
    const newSlug = pageSlug(title);
    if (!newSlug) throw new DomainException(DomainErrorCode.InvalidInput, 'The new title needs at least one letter or digit.');
    const { frontmatter } = parseFrontmatter(current.body);
    // A title written in the frontmatter would override the new one on the next save, so it is rewritten too.
    const body = frontmatter.title !== undefined ? replaceFrontmatterTitle(current.body, title) : current.body;
    const write = this.prepare(body, title, newSlug);
    write.title = title;
    write.searchLexemes = await this.searchLexemes(write.text);
    const ownKeys = [...new Set([...current.linkKeys, ...write.linkKeys])];
    return this.write({ changes: ownKeys, reads: [] }, async (tx) => {
      if (newSlug !== current.slug) await this.assertSlugFree(newSlug, tx);
      // The pages whose links are rewritten are locked before this page's row: a rename of one of them, which locks
      // its own row first and then this page (as a page that links to it), queues behind this one.
      const sources = options.rewriteLinks ? await this.links.sourcesLinkingTo(current.id, tx) : [];
      const saved = await this.pages.updateIfVersion(current.id, current.version, write, actor.name, `Renamed from "${current.title}"`, tx);
      if (!saved) throw this.notSaved(await this.pages.findById(current.id, tx), { body, baseVersion: current.version }, current.slug);
      if (newSlug !== current.slug) {
        await this.pages.addRedirect(current.slug, current.id, tx);
        await this.pages.removeRedirect(newSlug, tx);
      }
      const rewrittenPages = await this.rewriteIncoming(current, sources, title, actor, tx);
      await this.links.reresolve(current.id, ownKeys, tx);
      return { page: await this.saved(current.id, 'renamed', tx), rewrittenPages };
    });
  }

  /**
   * Records where an imported page lives in its vault, so that `kurate export` writes it back there: only while the
   * page still has the title and cluster the import gave it (`page`, as the import saved it). A rename or a move
   * committed since (which clears the origin: it no longer says where the page is) is not undone.
   */
  async recordVaultOrigin(page: Pick<PageEntity, 'id' | 'title' | 'cluster'>, origin: VaultOrigin): Promise<void> {
    await this.pages.setVaultOrigin(page.id, origin.path, origin.cluster, { title: page.title, cluster: page.cluster });
  }

  async delete(slug: string, actor: Actor): Promise<void> {
    const page = await this.get(slug);
    await this.write({ changes: page.linkKeys, reads: [] }, async (tx) => {
      // Another request may have trashed it since it was read: this one answers as it would have after it.
      if (!(await this.pages.markDeleted(page.id, actor.name, tx))) throw inTrash(page);
      await this.links.reresolve(page.id, page.linkKeys, tx);
      await this.saved(page.id, 'deleted', tx);
    });
    this.recentSaves.forget(page.slug);
  }

  async restore(slug: string): Promise<PageEntity> {
    const page = await this.pages.findBySlug(slug);
    if (!page) throw new DomainException(DomainErrorCode.NotFound, `There is no page "${slug}" in the trash.`);
    if (!page.deletedAt) throw new DomainException(DomainErrorCode.NotInTrash, `The page "${page.title}" is not in the trash.`);
    return this.write({ changes: page.linkKeys, reads: [] }, async (tx) => {
      if (!(await this.pages.markRestored(page.id, tx))) throw new DomainException(DomainErrorCode.NotInTrash, `The page "${page.title}" is not in the trash.`);
      await this.links.reresolve(page.id, page.linkKeys, tx);
      return this.saved(page.id, 'restored', tx);
    });
  }

  listTrash() {
    return this.pages.listTrash();
  }

  async history(slug: string): Promise<{ page: PageEntity; revisions: PageRevisionEntity[] }> {
    const page = await this.get(slug);
    return { page, revisions: await this.pages.listRevisions(page.id) };
  }

  async revision(slug: string, version: number): Promise<{ page: PageEntity; revision: PageRevisionEntity }> {
    const page = await this.get(slug);
    const revision = await this.pages.findRevision(page.id, version);
    if (!revision) throw new DomainException(DomainErrorCode.NotFound, `The page "${page.title}" has no version ${version}.`);
    return { page, revision };
  }

  /** Saves an old revision's text as a new revision. */
  async restoreRevision(slug: string, version: number, actor: Actor): Promise<SaveResult> {
    const { page, revision } = await this.revision(slug, version);
    return this.update(slug, { body: revision.body, baseVersion: page.version, message: `Restored version ${version}` }, actor);
  }

  recentChanges(limit: number) {
    return this.pages.recentChanges(limit);
  }

  fullTextSearch(query: string, limit: number, offset: number) {
    return this.pages.fullTextSearch(query, limit, offset);
  }

  /**
   * Every page's derived data computed again from its Markdown, as a save computes it: search vector and link keys
   * (the search-term triggers follow), outbound links, then every link's resolution. Used after a restore, where
   * these are rebuilt rather than trusted. A page whose source no longer parses keeps its keys and gets no links.
   */
  async rebuildIndex(batchSize = 200): Promise<{ pages: number; links: number; unparsable: string[] }> {
    const summary = { pages: 0, links: 0, unparsable: [] as string[] };
    for (let after: string | null = null; ; ) {
      const batch = await this.pages.pagesAfter(after, batchSize);
      if (batch.length === 0) break;
      await this.pages.transaction(async (tx) => {
        for (const page of batch) {
          let write: PageWrite;
          try {
            write = this.prepare(page.body, page.title, page.slug);
          } catch {
            summary.unparsable.push(page.slug);
            continue;
          }
          write.title = page.title;
          write.searchLexemes = await this.searchLexemes(write.text, tx);
          const links = outboundLinks(write.text);
          await this.pages.updateDerived(page.id, write, tx);
          await this.links.replaceOutbound(page.id, links, tx);
          summary.links += links.length;
        }
      });
      summary.pages += batch.length;
      after = batch[batch.length - 1].id;
      if (batch.length < batchSize) break;
    }
    await this.write({ changes: [], reads: [] }, (tx) => this.links.resolveAll(tx));
    return summary;
  }

  /**
   * Runs a page write in one transaction; once it has committed, every process's page caches forget what it changed
   * (`touchedPages`: the ids of the only pages it changed for readers; without it, everything). `linkKeys`: the
   * keys whose resolution the write may change (the page's names when they appear, go or change), held alone, and
   * the keys it only resolves (those it links to, its names when they stay), held shared: a write that changes a
   * key and one that links to it take turns, so a page and a link to it saved at the same moment still meet, while
   * saves that merely link to the same page go on together. Two writes that lock the same rows
   * in a different order can still deadlock on PostgreSQL; the one it aborts runs again from the start and sees what
   * the other did.
   */
  private async write<T>(linkKeys: LinkKeyTurns, work: (tx: EntityManager, announced: AnnouncedPages) => Promise<T>, touchedPages?: () => string[]): Promise<T> {
    try {
      return await againOnConflict(MAX_WRITE_ATTEMPTS, () => this.writeOnce(linkKeys, work, touchedPages));
    } catch (error) {
      throw orTooManyWords(error);
    }
  }

  private async writeOnce<T>(linkKeys: LinkKeyTurns, work: (tx: EntityManager, announced: AnnouncedPages) => Promise<T>, touchedPages?: () => string[]): Promise<T> {
    let changed: string[] | null = null;
    const announcement = this.changeFeed.announcement;
    let result: T;
    try {
      result = await this.pages.transaction(async (tx) => {
        // NOTIFY is delivered at commit, so announcing first is the same as announcing last, and shares a round trip.
        await this.links.lockKeys(linkKeys, tx, touchedPages ? null : announcement);
        const announced = new AnnouncedPages(announcement);
        const value = await work(tx, announced);
        // A write that knows which pages it changed names them (by slug), so caches keep every other page: those its
        // statements did not name already (an edit's links statement names most).
        if (touchedPages) {
          const rest = touchedPages().filter((id) => !announced.ids.has(id));
          changed = rest.length > 0 ? [...announced.slugs, ...(await this.links.announcePages(rest, tx, announcement))] : [...announced.slugs];
        }
        return value;
      });
    } catch (error) {
      // This process ignores its own notifications: a write that failed (even at its commit) forgets everything.
      this.changeFeed.committed(null);
      throw error;
    }
    this.changeFeed.committed(changed);
    return result;
  }

  /** A long text's search lexemes (PagesRepository.searchLexemes); too many distinct words is the 422 a write gives. */
  private async searchLexemes(text: string, db?: EntityManager): Promise<string | null> {
    try {
      return await this.pages.searchLexemes(text, db);
    } catch (error) {
      throw orTooManyWords(error);
    }
  }

  /** Parses and validates a page's source; throws a 400 (naming the line) before anything is written. */
  private prepare(body: string, fallbackTitle: string | undefined, keepSlug?: string): PageWrite {
    // PostgreSQL text cannot hold NUL characters.
    if (body.includes('\0') || fallbackTitle?.includes('\0')) {
      throw new DomainException(DomainErrorCode.InvalidInput, 'The text contains a NUL character (\\u0000), which a page cannot hold.');
    }
    const { frontmatter, body: markdown } = parsePageSource(body);
    // Comments are the author's alone: no search term, link or tag comes from them.
    const text = stripComments(markdown);
    // What the reader sees is the title: no direction control or invisible separator makes one look like another.
    const title = withoutInvisibleControls(frontmatter.title ?? fallbackTitle ?? '').trim();
    if (!title) throw new DomainException(DomainErrorCode.InvalidInput, 'A page needs a title (a title field or `title:` in the frontmatter).');
    const slug = keepSlug ?? pageSlug(title);
    if (!slug) throw new DomainException(DomainErrorCode.InvalidInput, `The title "${title}" needs at least one letter or digit.`);
    const clusters = clustersOf(frontmatter);
    const aliases = aliasesOf(frontmatter);
    const linkKeys = [...new Set([slug, slugify(title), ...aliases.map(slugify)].filter(Boolean))];
    return {
      slug, title, body, markdown, text, frontmatter,
      cluster: clusters[0] ?? null,
      clusters,
      // `#tags` in the text join the frontmatter's.
      tags: [...new Set([...tagsOf(frontmatter), ...inlineTags(text)])],
      aliases,
      pageType: typeof frontmatter.type === 'string' ? frontmatter.type : null,
      isSystem: frontmatter.system === true,
      linkKeys,
      contentHash: createHash('sha256').update(title).update('\0').update(body).digest('hex'),
    };
  }

  /**
   * After a page write: refreshes transclusions and lets other modules react in the same transaction (policy
   * reconciliation, extraction). `written`: the page as the write returned it, or its id to read it back.
   * `parsed`: what this save has read from the source already (its Markdown, links, embeds and files), so that
   * nothing after it parses the page again.
   */
  private async saved(
    written: PageEntity | string,
    change: PageChange,
    tx: EntityManager,
    touched?: Set<string>,
    parsed?: { write: PageWrite; analysis: SaveAnalysis; replacedHadFileReferences?: boolean; embedders?: EmbedderRow[] },
  ): Promise<PageEntity> {
    const page = typeof written === 'string' ? (await this.pages.findById(written, tx))! : written;
    // Its links are in place: the transcluded text of this page and of the pages embedding it follows (and their
    // renderings: they are among the pages this write changed for readers).
    const own = parsed && { markdown: parsed.write.markdown, embedKeys: parsed.analysis.embedKeys };
    for (const id of await this.transclusions.refreshSearch(page, tx, own, parsed?.embedders)) touched?.add(id);
    await this.saveHooks.pageSaved({ page, change, fileReferences: parsed?.analysis.fileReferences, text: parsed?.write.text, replacedHadFileReferences: parsed?.replacedHadFileReferences }, tx);
    return page;
  }

  private async rewriteIncoming(page: PageEntity, sources: readonly LinkingSource[], newTitle: string, actor: Actor, tx: EntityManager): Promise<string[]> {
    const rewritten: string[] = [];
    for (const source of sources) {
      const body = rewriteWikilinks(source.body, new Set(page.linkKeys), newTitle);
      if (body === source.body) continue;
      const write = this.prepare(body, source.title, source.slug);
      write.searchLexemes = await this.searchLexemes(write.text, tx);
      // The source's row is locked since it was read (sourcesLinkingTo), so its version still holds.
      if (!(await this.pages.updateIfVersion(source.id, source.version, write, actor.name, `Link to "${page.title}" renamed to "${newTitle}"`, tx))) {
        throw new Error(`The page "${source.slug}" changed while its link was being rewritten, though its row was locked`);
      }
      await this.links.replaceOutbound(source.id, outboundLinks(write.text), tx);
      await this.saved(source.id, 'updated', tx);
      rewritten.push(source.slug);
    }
    return rewritten;
  }

  private async assertSlugFree(slug: string, tx: EntityManager): Promise<void> {
    const taken = await this.slugTaken(slug, tx);
    if (taken) throw taken;
  }

  /** Why a new page cannot have this slug (a live page has it, or one in the trash), or null when none has it. */
  private async slugTaken(slug: string, tx: EntityManager): Promise<DomainException | null> {
    const existing = await this.pages.findBySlug(slug, tx);
    if (!existing) return null;
    if (existing.deletedAt) {
      return new DomainException(DomainErrorCode.PageInTrash, `A page "${existing.title}" with this name is in the trash: restore it or choose another title.`, { slug });
    }
    return new DomainException(DomainErrorCode.SlugTaken, `A page named "${existing.title}" already exists.`, { slug });
  }

  /**
   * Why a write of the version read missed its row: the page went to the trash meanwhile (404), or was saved (409); or
   * its row is gone (a restore replaced the wiki under a page this process remembered: 404).
   */
  private notSaved(now: PageEntity | null, input: UpdatePageInput, slug: string): DomainException {
    if (!now) return new DomainException(DomainErrorCode.NotFound, `There is no page "${slug}".`);
    return now.deletedAt ? inTrash(now) : this.conflict(now, input);
  }

  private conflict(current: PageEntity, input: UpdatePageInput): DomainException {
    return new DomainException(
      DomainErrorCode.VersionConflict,
      `Someone saved "${current.title}" (version ${current.version}) after you started editing version ${input.baseVersion}. Your text was not saved; merge it with theirs and save again.`,
      { currentVersion: current.version, currentBody: current.body, updatedBy: current.updatedBy, yourBody: input.body, baseVersion: input.baseVersion },
    );
  }
}

/**
 * The pages a write's statements announced as they went (PageLinksRepository.replaceOutboundOfEdit), by id and slug:
 * the write announces only the others it changed, at its end. Made afresh for each attempt of a write (a transaction
 * rolled back took its NOTIFYs with it).
 */
class AnnouncedPages {
  readonly ids = new Set<string>();
  readonly slugs: string[] = [];

  constructor(readonly announcement: Announcement | null) {}

  took(pages: { ids: string[]; slugs: string[] }): void {
    pages.ids.forEach((id) => this.ids.add(id));
    this.slugs.push(...pages.slugs);
  }
}

function replaceFrontmatterTitle(body: string, title: string): string {
  return body.replace(/^(\uFEFF?---\r?\n(?:[\s\S]*?\r?\n)?)title:[^\n]*(\r?\n)/, (_m, head: string, eol: string) => `${head}title: ${JSON.stringify(title)}${eol}`);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  return x.size === new Set(b).size && b.every((k) => x.has(k));
}

/** The 404 for a page that is in the trash (a reader's link to it, a second delete). */
function inTrash(page: PageEntity): DomainException {
  return new DomainException(DomainErrorCode.NotFound, `The page "${page.title}" is in the trash.`, { inTrash: true, slug: page.slug });
}
