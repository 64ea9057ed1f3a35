import { LRUCache } from 'lru-cache';
import type { PageEntity } from './page.entity.js';

/** What an edit needs to know of the page it writes, besides the author's text. */
export type PageFacts = Pick<PageEntity, 'id' | 'slug' | 'title' | 'cluster' | 'version' | 'contentHash' | 'linkKeys'> & {
  /** Whether this version references any file (undefined: the write that saved it did not say). */
  hasFileReferences?: boolean;
};

/** Pages remembered at once (a few hundred bytes each). */
const REMEMBERED_PAGES = 10_000;

/**
 * The pages this process saved last, as their saves committed them: an author who saves again edits the version the
 * last save returned, and that edit need not read the page first (PagesService.update). Nothing here is trusted
 * beyond that: an entry serves only an edit of its very version, and the edit's UPDATE writes only if the page still
 * has that version and is not in the trash (else it reads the page and answers the conflict or the 404 as it would
 * have). A save elsewhere (another process, a rename here rewriting a link) moves the version on: the entry then
 * serves no edit that could succeed.
 */
export class RecentSaves {
  private readonly bySlug = new LRUCache<string, PageFacts>({ max: REMEMBERED_PAGES });

  /** After the write committed: the page as written, and whether its text references files (when the write knows). */
  remember(page: PageFacts, hasFileReferences?: boolean): void {
    const { id, slug, title, cluster, version, contentHash, linkKeys } = page;
    this.bySlug.set(slug, { id, slug, title, cluster, version, contentHash, linkKeys, hasFileReferences });
  }

  /** After a write committed that moved the page away from the slug (a rename, the trash). */
  forget(slug: string): void {
    this.bySlug.delete(slug);
  }

  /** The page at this slug as this process last saved it, when that is this version. */
  at(slug: string, version: number): PageFacts | undefined {
    const page = this.bySlug.get(slug);
    return page?.version === version ? page : undefined;
  }
}
