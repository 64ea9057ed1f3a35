import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { FileReference } from './markdown/file-embeds.js';
import type { PageEntity } from './page.entity.js';

export type PageChange = 'created' | 'updated' | 'renamed' | 'deleted' | 'restored';

export interface PageSavedEvent {
  /** The page as this write left it (read inside the transaction). */
  page: PageEntity;
  change: PageChange;
  /**
   * Whether the page may feed the knowledge graph, as the inclusion policy's listener (which runs first) just decided
   * in this transaction; undefined until it has.
   */
  kgIncluded?: boolean;
  /** The page's file references, when the save has read them already (off the main thread, for a large page). */
  fileReferences?: FileReference[];
  /**
   * Whether the version this write replaced referenced any file, when the write knows it (an edit of the version this
   * process saved last: RecentSaves); undefined when it does not.
   */
  replacedHadFileReferences?: boolean;
  /**
   * The page's Markdown without frontmatter and %%comments%% (what search and extraction read), when the save has
   * parsed it already: a listener need not parse the source again.
   */
  text?: string;
}

/** Another module's reaction to a page write (the inclusion policy, extraction). */
export interface PageSaveListener {
  /** Runs inside the save's transaction: use `tx` for every query (PGlite hangs on any other), throw to undo the save. */
  onPageSaved(event: PageSavedEvent, tx: EntityManager): Promise<void>;
}

/**
 * Listeners register here at module init, so the pages module never imports the modules that react to a save
 * (they import PagesModule, as the arrows point). They run in registration order, which follows module imports.
 */
@Injectable()
export class PageSaveHooks {
  private readonly listeners: PageSaveListener[] = [];

  register(listener: PageSaveListener): void {
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  async pageSaved(event: PageSavedEvent, tx: EntityManager): Promise<void> {
    for (const listener of this.listeners) await listener.onPageSaved(event, tx);
  }
}
