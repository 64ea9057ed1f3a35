import { Inject, Injectable, Logger } from '@nestjs/common';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatBytes } from '../pages/markdown/file-embeds.js';
import { AttachmentBlobsRepository } from './attachment-blobs.repository.js';
import { AttachmentsRepository } from './attachments.repository.js';
import { ATTACHMENT_STORE, type AttachmentStore } from './stores/attachment-store.js';
import { DatabaseStore } from './stores/database.store.js';
import { LocalDirectoryStore, type StoredFile } from './stores/local-directory.store.js';
import { S3Store, type S3StoredObject } from './stores/s3.store.js';

/**
 * How old a left-over must be before the sweep removes it: one hour. An upload stores its bytes first and commits its
 * catalogue row a moment later (AttachmentsService.upload), and a temporary file lives only while its bytes are
 * written (at most KURATE_ATTACHMENTS_MAX_BYTES, 25 MiB by default: seconds, even on a slow disk). An hour is far
 * beyond both, so nothing an upload in flight still needs is ever looked at, and a crash's leftovers go within two.
 */
export const SWEEP_MIN_AGE_MS = 60 * 60_000;
/** Files (or rows) looked up in the catalogue at once; the event loop gets a turn between batches. */
const BATCH = 500;
/**
 * Objects of a bucket looked up at once. Fewer: each one no row references is asked for again and deleted (two round
 * trips to the bucket) while the catalogue's writes wait.
 */
const BUCKET_BATCH = 100;

export interface SweepResult {
  /** `*.tmp` files of writes cut short. */
  temporary: number;
  /** Contents no catalogue row references. */
  unreferenced: number;
  bytes: number;
}

/**
 * Removes what a crash leaves in the attachment store (docs/attachments.md): an upload stores its bytes before its
 * catalogue row commits, and a replacement or deletion forgets the old bytes after its commit, so a process killed in
 * between leaves bytes no row references; a kill mid-write leaves a `*.tmp` file. Both are removed once older than
 * SWEEP_MIN_AGE_MS (a file's mtime; a database row's created_at; an object's Last-Modified). Workers run it at start
 * and hourly (JobWorker.maintainEvery).
 */
@Injectable()
export class AttachmentStoreSweep {
  private readonly logger = new Logger('Attachments');

  constructor(
    @Inject(ATTACHMENT_STORE) private readonly store: AttachmentStore,
    private readonly attachments: AttachmentsRepository,
    private readonly blobs: AttachmentBlobsRepository,
  ) {}

  /** One sweep; `stopped` is asked between batches (the process is shutting down). Logs what it removed. */
  async sweep(options: { now?: number; stopped?: () => boolean } = {}): Promise<SweepResult> {
    const result: SweepResult = { temporary: 0, unreferenced: 0, bytes: 0 };
    const cutoff = (options.now ?? Date.now()) - SWEEP_MIN_AGE_MS;
    const stopped = options.stopped ?? (() => false);
    if (this.store instanceof LocalDirectoryStore) await this.sweepFolder(this.store, cutoff, stopped, result);
    else if (this.store instanceof DatabaseStore) await this.sweepTable(stopped, result);
    else if (this.store instanceof S3Store) await this.sweepBucket(this.store, cutoff, stopped, result);
    if (result.temporary + result.unreferenced > 0) {
      this.logger.log(
        `Removed ${result.unreferenced} unreferenced file(s) and ${result.temporary} temporary file(s) left by interrupted uploads or deletions (${formatBytes(result.bytes)}) from the ${this.store.kind} store`,
      );
    }
    return result;
  }

  private async sweepFolder(store: LocalDirectoryStore, cutoff: number, stopped: () => boolean, result: SweepResult): Promise<void> {
    let batch: StoredFile[] = [];
    let seen = 0;
    const flush = async () => {
      const candidates = batch;
      batch = [];
      if (candidates.length === 0) return;
      await this.attachments.withReferencesHeld([...new Set(candidates.map((file) => file.key))], async (referenced) => {
        for (const file of candidates) {
          if (referenced.has(file.key)) continue;
          // Looked at again under the lock: bytes stored again since (a new upload of the same content) stay.
          const size = await this.oldSize(store, file, cutoff);
          if (size === null) continue;
          await store.remove(file);
          result.unreferenced++;
          result.bytes += size;
        }
      });
    };
    for await (const file of store.files()) {
      if (stopped()) return;
      if (file.kind === 'temporary') {
        const size = await this.oldSize(store, file, cutoff);
        if (size !== null) {
          await store.remove(file);
          result.temporary++;
          result.bytes += size;
        }
      } else if ((await this.oldSize(store, file, cutoff)) !== null) {
        batch.push(file);
        if (batch.length >= BATCH) await flush();
      }
      if (++seen % BATCH === 0) await nextTurn();
    }
    if (!stopped()) await flush();
  }

  /** The file's size if it was last written before the cutoff; null if newer or gone. */
  private async oldSize(store: LocalDirectoryStore, file: StoredFile, cutoff: number): Promise<number | null> {
    const stats = await store.statOf(file);
    return stats && stats.mtimeMs < cutoff ? stats.size : null;
  }

  /**
   * The bucket's content objects (under the store's prefix; other keys are not looked at) last written before the
   * cutoff and referenced by no catalogue row. Each is asked for again under the lock before it is deleted: an upload
   * of the same content since wrote it again (a newer Last-Modified) and keeps it.
   */
  private async sweepBucket(store: S3Store, cutoff: number, stopped: () => boolean, result: SweepResult): Promise<void> {
    let batch: S3StoredObject[] = [];
    const flush = async () => {
      const candidates = batch;
      batch = [];
      if (candidates.length === 0) return;
      await this.attachments.withReferencesHeld(candidates.map((object) => object.key), async (referenced) => {
        for (const object of candidates) {
          if (referenced.has(object.key) || stopped()) continue;
          const now = await store.statOf(object.key);
          if (!now || now.modifiedMs >= cutoff) continue;
          await store.delete(object.key);
          result.unreferenced++;
          result.bytes += now.size;
        }
      });
    };
    for await (const object of store.objects()) {
      if (stopped()) return;
      if (object.modifiedMs >= cutoff) continue;
      batch.push(object);
      if (batch.length >= BUCKET_BATCH) await flush();
    }
    if (!stopped()) await flush();
  }

  private async sweepTable(stopped: () => boolean, result: SweepResult): Promise<void> {
    let after = '';
    while (!stopped()) {
      const keys = await this.blobs.unreferencedOlderThan(SWEEP_MIN_AGE_MS / 1000, after, BATCH);
      if (keys.length === 0) return;
      after = keys[keys.length - 1];
      const removed = await this.attachments.withReferencesHeld(keys, (referenced, tx) =>
        this.blobs.deleteMany(keys.filter((key) => !referenced.has(key)), tx),
      );
      result.unreferenced += removed.count;
      result.bytes += removed.bytes;
      if (keys.length < BATCH) return;
      await nextTurn();
    }
  }
}
