import { Injectable } from '@nestjs/common';
import type { Actor } from '../auth/actor.js';
import type { ResolvedFile } from './markdown/file-embeds.js';

/** A file a page's current text references, with the page version whose text first referenced it. */
export interface PageFile extends ResolvedFile {
  addedInVersion: number;
}

/** What the attachments module answers for pages (it registers at module init; pages imports nothing of it). */
export interface PageFileSource {
  /** The files a page's text reaches, by the normalised target the text writes (`fileTargetOf`). */
  filesOf(pageId: string): Promise<Map<string, PageFile>>;
  /** Resolves targets against the files stored now that `viewer` may read (the live preview of unsaved text). */
  resolve(targets: string[], viewer: Actor): Promise<Map<string, ResolvedFile>>;
}

/** The one place pages ask about files: empty answers until a source registers (the attachments module does). */
@Injectable()
export class PageFiles {
  private source: PageFileSource | null = null;

  register(source: PageFileSource): void {
    this.source = source;
  }

  async filesOf(pageId: string): Promise<Map<string, PageFile>> {
    return this.source ? this.source.filesOf(pageId) : new Map();
  }

  async resolve(targets: string[], viewer: Actor): Promise<Map<string, ResolvedFile>> {
    return this.source && targets.length > 0 ? this.source.resolve(targets, viewer) : new Map();
  }
}
