import type { AttachmentBlobsRepository } from '../attachment-blobs.repository.js';
import { assertContentKey, type AttachmentStore } from './attachment-store.js';

/** Files as `bytea` rows of `attachment_blobs` in the wiki's own database: one thing to back up, no folder to mount. */
export class DatabaseStore implements AttachmentStore {
  readonly kind = 'database' as const;

  constructor(private readonly blobs: AttachmentBlobsRepository) {}

  async check(): Promise<void> {
    // The table comes with the migrations, which ran before any module started.
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    assertContentKey(key);
    await this.blobs.insert(key, bytes);
  }

  async get(key: string): Promise<Buffer | null> {
    assertContentKey(key);
    return this.blobs.find(key);
  }

  async has(key: string): Promise<boolean> {
    assertContentKey(key);
    return this.blobs.exists(key);
  }

  async delete(key: string): Promise<void> {
    assertContentKey(key);
    await this.blobs.delete(key);
  }
}
