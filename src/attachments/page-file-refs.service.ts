import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Actor } from '../auth/actor.js';
import type { EntityManager } from 'typeorm';
import { lockKeysSql } from '../db/advisory-locks.js';
import { extractFileReferences, fileTargetOf, type ResolvedFile } from '../pages/markdown/file-embeds.js';
import { parseFrontmatter } from '../pages/markdown/frontmatter.js';
import { PageFiles, type PageFile, type PageFileSource } from '../pages/page-files.js';
import { PageSaveHooks, type PageSavedEvent, type PageSaveListener } from '../pages/page-save-hooks.js';
import { fileUrlOf, nameKeyOf, pickFile } from './attachment-paths.js';
import { AttachmentsRepository, audienceOf, type AttachmentRow } from './attachments.repository.js';

// Advisory-lock namespace for file names (any constant): a page save and an upload of a file it names take turns,
// so a reference saved at the moment its file arrives is still resolved.
export const FILE_NAME_LOCKS = 7_104_264;

/**
 * Keeps `page_file_refs` (which files each page's text references, resolved to stored files or not yet, and the
 * version that added each) and the file links of the Page Graph, on every page save and every upload; answers
 * pages' questions about files (PageFileSource).
 */
@Injectable()
export class PageFileRefsService implements PageSaveListener, PageFileSource, OnModuleInit {
  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly saveHooks: PageSaveHooks,
    private readonly pageFiles: PageFiles,
  ) {}

  onModuleInit(): void {
    this.saveHooks.register(this);
    this.pageFiles.register(this);
  }

  async onPageSaved({ page, change, fileReferences, replacedHadFileReferences }: PageSavedEvent, tx: EntityManager): Promise<void> {
    // A page in the trash keeps its references: they are what keeps its files from readers (docs/attachments.md).
    if (change === 'deleted') return;
    const references = fileReferences ?? extractFileReferences(parseFrontmatter(page.body).body);
    const targets = [...new Set(references.map((reference) => reference.target))];
    if (targets.length === 0) {
      // None now, and none in the version replaced (its save wrote them in its transaction): no row to delete.
      if (replacedHadFileReferences === false) return;
      await this.attachments.replaceRefs(page.id, [], page.version, tx);
      return;
    }
    const nameKeys = [...new Set(targets.map(nameKeyOf))];
    await this.lockNames(nameKeys, tx);
    const candidates = await this.attachments.findByNameKeys(nameKeys, tx);
    const reached = new Map(targets.map((target) => [target, pickFile(target, candidates)?.id ?? null]));
    await this.attachments.replaceRefs(page.id, targets.map((target) => ({ target, nameKey: nameKeyOf(target), attachmentId: reached.get(target)! })), page.version, tx);
    const links = new Map<string, string | null>();
    for (const { target, wikilinkTarget } of references) if (wikilinkTarget !== null) links.set(wikilinkTarget, reached.get(target)!);
    await this.attachments.setPageLinkAttachments(page.id, [...links].map(([target, attachmentId]) => ({ target, attachmentId })), tx);
  }

  /**
   * After files of these names were stored, replaced or deleted: every reference to such a name is resolved again
   * (a new file may be a better match than the one a link reached), and so are the Page Graph's links.
   */
  async reresolveNames(nameKeys: string[], tx: EntityManager): Promise<void> {
    await this.lockNames(nameKeys, tx);
    const refs = await this.attachments.refsByNameKeys(nameKeys, tx);
    if (refs.length === 0) return;
    const candidates = await this.attachments.findByNameKeys(nameKeys, tx);
    const resolved = new Map<string, string | null>();
    const changed: { pageId: string; target: string; attachmentId: string | null }[] = [];
    for (const ref of refs) {
      const attachmentId = pickFile(ref.target, candidates)?.id ?? null;
      resolved.set(`${ref.pageId}\n${ref.target}`, attachmentId);
      if (attachmentId !== ref.attachmentId) changed.push({ pageId: ref.pageId, target: ref.target, attachmentId });
    }
    await this.attachments.setRefAttachments(changed, tx);
    await this.linkWikilinks([...new Set(refs.map((ref) => ref.pageId))], resolved, tx);
  }

  /** After a restore rebuilt page_links from the pages' text: every wikilink to a file reaches it again. */
  async relinkAll(): Promise<void> {
    await this.attachments.transaction(async (tx) => {
      const refs = await this.attachments.resolvedRefs(tx);
      const resolved = new Map(refs.map((ref) => [`${ref.pageId}\n${ref.target}`, ref.attachmentId as string | null]));
      const pageIds = [...new Set(refs.map((ref) => ref.pageId))];
      for (let i = 0; i < pageIds.length; i += 1000) await this.linkWikilinks(pageIds.slice(i, i + 1000), resolved, tx);
    });
  }

  async lockNames(nameKeys: string[], tx: EntityManager): Promise<void> {
    if (nameKeys.length === 0) return;
    await tx.query(
      `SELECT ${lockKeysSql(FILE_NAME_LOCKS, '$1::text[]')} AS locked`,
      [nameKeys],
    );
  }

  async filesOf(pageId: string): Promise<Map<string, PageFile>> {
    const rows = await this.attachments.filesOfPage(pageId);
    return new Map(rows.map((row) => [row.target, { ...resolvedFile(row), addedInVersion: row.addedVersion }]));
  }

  async resolve(targets: string[], viewer: Actor): Promise<Map<string, ResolvedFile>> {
    const candidates = await this.attachments.findByNameKeys([...new Set(targets.map(nameKeyOf))], undefined, audienceOf(viewer));
    const files = new Map<string, ResolvedFile>();
    for (const target of targets) {
      const file = pickFile(target, candidates);
      if (file) files.set(target, resolvedFile(file));
    }
    return files;
  }

  /** Sets which stored file each wikilink of these pages reached (`resolved` by page and normalised target). */
  private async linkWikilinks(pageIds: string[], resolved: Map<string, string | null>, tx: EntityManager): Promise<void> {
    const links = await this.attachments.wikilinksOf(pageIds, tx);
    const updates: { id: string; attachmentId: string | null }[] = [];
    for (const link of links) {
      const target = fileTargetOf(link.target, { percentEncoded: false });
      const key = target === null ? null : `${link.pageId}\n${target}`;
      if (key === null || !resolved.has(key)) continue;
      const attachmentId = resolved.get(key) ?? null;
      if (attachmentId !== link.attachmentId) updates.push({ id: link.id, attachmentId });
    }
    await this.attachments.setLinkAttachments(updates, tx);
  }
}

function resolvedFile(file: Pick<AttachmentRow, 'path' | 'mediaType' | 'sizeBytes'>): ResolvedFile {
  return { path: file.path, url: fileUrlOf(file.path), mediaType: file.mediaType, sizeBytes: Number(file.sizeBytes) };
}
