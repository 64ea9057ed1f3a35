import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import type { Actor } from '../auth/actor.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { KurateConfig } from '../config/kurate-config.js';
import { sqlStateOf } from '../db/sql-state.js';
import { formatBytes } from '../pages/markdown/file-embeds.js';
import { PageChangeFeed } from '../pages/page-change-feed.js';
import { PageFiles, type PageFile } from '../pages/page-files.js';
import { PagesService } from '../pages/pages.service.js';
import { checkedAttachmentPath, nameKeyOf, numberedPath } from './attachment-paths.js';
import { AttachmentsRepository, audienceOf, type AttachmentRow, type ListedAttachment } from './attachments.repository.js';
import { sniffMediaType } from './content-type.js';
import { PageFileRefsService } from './page-file-refs.service.js';
import { ATTACHMENT_STORE, type AttachmentStore } from './stores/attachment-store.js';

/** What to do when the path of an upload already holds another file. */
export const CONFLICT_RULES = ['rename', 'replace', 'fail'] as const;
export type ConflictRule = (typeof CONFLICT_RULES)[number];

export interface UploadInput {
  bytes: Buffer;
  /** The file's name as the client sent it; the path when none is given. */
  fileName: string;
  /** Where in the wiki the file goes (`assets/logo.png`); default: its name, at the top. */
  path?: string;
  onConflict: ConflictRule;
}

export type UploadStatus = 'created' | 'updated' | 'unchanged';

export interface UploadResult {
  attachment: AttachmentRow;
  status: UploadStatus;
}

// Obsidian names copies "photo 1.png", "photo 2.png"…; past this many a clear error beats a search.
const MAX_NUMBERED_COPIES = 1000;
const UNIQUE_VIOLATION = '23505';

/** Attachments: uploads (the bytes sniffed, never trusted), the catalogue, the access rule, deletion. */
@Injectable()
export class AttachmentsService {
  private readonly logger = new Logger(AttachmentsService.name);

  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly refs: PageFileRefsService,
    @Inject(ATTACHMENT_STORE) private readonly store: AttachmentStore,
    private readonly config: KurateConfig,
    private readonly changeFeed: PageChangeFeed,
    private readonly pages: PagesService,
    private readonly pageFiles: PageFiles,
    private readonly audit: AuditService,
  ) {}

  get maxBytes(): number {
    return this.config.attachments.maxBytes;
  }

  /** The 413 an upload over the limit gets (the multipart parser stops reading at the limit and says so too). */
  tooLarge(fileName: string): DomainException {
    return new DomainException(
      DomainErrorCode.PayloadTooLarge,
      `The file "${fileName.slice(0, 200)}" is larger than ${formatBytes(this.maxBytes)}, the largest file this wiki accepts (KURATE_ATTACHMENTS_MAX_BYTES).`,
      { maxBytes: this.maxBytes },
    );
  }

  async upload(input: UploadInput, actor: Actor): Promise<UploadResult> {
    if (input.bytes.length > this.maxBytes) throw this.tooLarge(input.fileName);
    const path = checkedAttachmentPath(input.path ?? input.fileName);
    const sha256 = createHash('sha256').update(input.bytes).digest('hex');
    const mediaType = await sniffMediaType(input.bytes);
    // The bytes are stored first: a catalogue row never points at content that is not there.
    await this.store.put(sha256, input.bytes);
    const write = { nameKey: nameKeyOf(path), mediaType, sizeBytes: input.bytes.length, sha256, store: this.store.kind };
    let replaced: string | null = null;
    let result: UploadResult;
    try {
      result = await this.attachments.transaction(async (tx) => {
        await this.refs.lockNames([write.nameKey], tx);
        const existing = await this.attachments.findByPath(path, tx);
        let outcome: UploadResult;
        if (!existing) {
          outcome = { attachment: await this.attachments.insert({ ...write, path }, actor.name, tx), status: 'created' };
        } else if (existing.sha256 === sha256) {
          return { attachment: existing, status: 'unchanged' as const };
        } else if (input.onConflict === 'replace') {
          replaced = existing.sha256;
          outcome = { attachment: await this.attachments.replaceContent(existing.id, { ...write, path: existing.path }, actor.name, tx), status: 'updated' };
        } else if (input.onConflict === 'fail') {
          throw new DomainException(DomainErrorCode.PathTaken, `Another file is already stored as "${existing.path}".`, { path: existing.path });
        } else {
          const copy = await this.freeCopyPath(path, sha256, tx);
          if (copy.existing) return { attachment: copy.existing, status: 'unchanged' as const };
          outcome = { attachment: await this.attachments.insert({ ...write, path: copy.path }, actor.name, tx), status: 'created' };
        }
        await this.refs.reresolveNames([write.nameKey], tx);
        await this.attachments.notify(this.changeFeed.announceChannel, tx);
        return outcome;
      });
    } catch (error) {
      // Refused (a taken path, say): the bytes stored first go again unless another file has them.
      await this.forgetContent(sha256);
      if (sqlStateOf(error) === UNIQUE_VIOLATION) {
        throw new DomainException(DomainErrorCode.PathTaken, `Another upload stored a file as "${path}" at the same moment; try again.`, { path });
      }
      throw error;
    }
    if (result.status !== 'unchanged') this.changeFeed.committed();
    if (replaced) await this.forgetContent(replaced);
    // A deletion of the same content that raced this upload (its last row went as ours arrived) is undone here.
    if (!(await this.store.has(sha256))) await this.store.put(sha256, input.bytes);
    return result;
  }

  /** The file at a path with its bytes, if this actor may read it; otherwise a 404 that does not say whether it exists. */
  async open(path: string, actor: Actor): Promise<{ attachment: AttachmentRow; bytes: Buffer }> {
    const attachment = await this.attachments.findVisibleByPath(path, audienceOf(actor));
    if (!attachment) throw new DomainException(DomainErrorCode.NotFound, `There is no file "${path.slice(0, 200)}".`);
    const bytes = await this.store.get(attachment.sha256);
    if (!bytes) throw new Error(`The ${this.store.kind} store has no content ${attachment.sha256} for the attachment "${attachment.path}"`);
    return { attachment, bytes };
  }

  list(actor: Actor, limit: number, offset: number): Promise<{ items: ListedAttachment[]; total: number }> {
    return this.attachments.list(audienceOf(actor), limit, offset);
  }

  /** Deletes a file for good (pages that embed it show it missing); admins only, audited. */
  async delete(path: string, actor: Actor, ip: string | null): Promise<void> {
    const noSuchFile = () => new DomainException(DomainErrorCode.NotFound, `There is no file "${path.slice(0, 200)}".`);
    const found = await this.attachments.findByPath(path);
    if (!found) throw noSuchFile();
    const attachment = await this.attachments.transaction(async (tx) => {
      await this.refs.lockNames([found.nameKey], tx);
      // Read again under the name's lock: a delete or a replacement of the file committed meanwhile is what this one
      // sees (two deletes at once: the second is a 404, as one after the other, and the log has one entry).
      const current = await this.attachments.findByPath(path, tx);
      if (!current) throw noSuchFile();
      await this.attachments.delete(current.id, tx);
      await this.refs.reresolveNames([current.nameKey], tx);
      await this.attachments.notify(this.changeFeed.announceChannel, tx);
      await this.audit.record(actor, 'attachment.delete', `attachment:${current.id}`, { path: current.path, sha256: current.sha256, sizeBytes: current.sizeBytes }, ip, tx);
      return current;
    });
    this.changeFeed.committed();
    await this.forgetContent(attachment.sha256);
  }

  /** The files a live page's text references (readers may read the page, so they may read these). */
  async filesOfPage(slug: string): Promise<PageFile[]> {
    const page = await this.pages.get(slug);
    return uniqueByPath([...(await this.pageFiles.filesOf(page.id)).values()]);
  }

  private async freeCopyPath(path: string, sha256: string, tx: EntityManager): Promise<{ path: string; existing: AttachmentRow | null }> {
    for (let n = 1; n <= MAX_NUMBERED_COPIES; n++) {
      const candidate = numberedPath(path, n);
      const existing = await this.attachments.findByPath(candidate, tx);
      if (!existing) return { path: candidate, existing: null };
      if (existing.sha256 === sha256) return { path: candidate, existing };
    }
    throw new DomainException(DomainErrorCode.PathTaken, `"${path}" and ${MAX_NUMBERED_COPIES} numbered copies of it are taken; give the file another name.`, { path });
  }

  /** Bytes no catalogue row needs any more leave the store (one copy serves every file with the same content). */
  private async forgetContent(sha256: string): Promise<void> {
    try {
      if (!(await this.attachments.contentInUse(sha256))) await this.store.delete(sha256);
    } catch (error) {
      // Left-over bytes cost space, never correctness: the next upload of the same content reuses them.
      this.logger.warn(`Could not remove unused content ${sha256} from the ${this.store.kind} store: ${(error as Error).message}`);
    }
  }
}


function uniqueByPath(files: PageFile[]): PageFile[] {
  const seen = new Map<string, PageFile>();
  for (const file of files) if (!seen.has(file.path)) seen.set(file.path, file);
  return [...seen.values()];
}
