import { randomBytes } from 'node:crypto';
import { mkdir, opendir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../config/config-error.js';
import { assertContentKey, isContentKey, type AttachmentStore } from './attachment-store.js';

/** A file of the store's layout, as the sweep (AttachmentStoreSweep) sees it. */
export interface StoredFile {
  /** `content`: `ab/cd/<sha256>`; `temporary`: `ab/cd/<sha256>.<random>.tmp`, a write under way or cut short. */
  kind: 'content' | 'temporary';
  key: string;
  path: string;
}

const FAN_OUT = /^[0-9a-f]{2}$/;
const TEMPORARY_FILE = /^([0-9a-f]{64})\.[0-9a-f]{12}\.tmp$/;

/**
 * Files in a folder (KURATE_ATTACHMENTS_DIR, default `<KURATE_DATA_DIR>/attachments`), as `ab/cd/<sha256>`: two
 * levels of fan-out keep folders small. A file is written under a temporary name and renamed, so a reader never
 * sees half of one.
 */
export class LocalDirectoryStore implements AttachmentStore {
  readonly kind = 'local' as const;

  constructor(private readonly directory: string) {}

  async check(): Promise<void> {
    const probe = path.join(this.directory, `.write-check-${randomBytes(4).toString('hex')}`);
    try {
      await mkdir(this.directory, { recursive: true });
      await writeFile(probe, '');
      await rm(probe);
    } catch (error) {
      throw new ConfigError(`Invalid configuration: the attachments folder ${this.directory} (KURATE_ATTACHMENTS_DIR) cannot be written (${(error as Error).message}).`);
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(key);
    if (await this.has(key)) return;
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes, { flag: 'wx' });
    await rename(temporary, target);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then((s) => s.isFile(), () => false);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Every file of the store's layout, one folder at a time, read as a stream (opendir), so a folder of any size is
   * never held in memory whole. Names of any other shape (the operator's own files, say) are never listed.
   */
  async *files(): AsyncGenerator<StoredFile> {
    for await (const first of this.folders(this.directory)) {
      for await (const second of this.folders(path.join(this.directory, first))) {
        const folder = path.join(this.directory, first, second);
        const entries = await opendir(folder).catch(() => null);
        if (!entries) continue;
        for await (const entry of entries) {
          if (!entry.isFile()) continue;
          const temporary = TEMPORARY_FILE.exec(entry.name);
          const key = temporary ? temporary[1] : isContentKey(entry.name) ? entry.name : null;
          // Only a file in the folders its key names is the store's.
          if (!key || key.slice(0, 2) !== first || key.slice(2, 4) !== second) continue;
          yield { kind: temporary ? 'temporary' : 'content', key, path: path.join(folder, entry.name) };
        }
      }
    }
  }

  /** A file of files(): when it was last written (ms since the epoch) and its size; null when it is gone. */
  async statOf(file: StoredFile): Promise<{ mtimeMs: number; size: number } | null> {
    return stat(file.path).then((s) => ({ mtimeMs: s.mtimeMs, size: s.size }), () => null);
  }

  /** Removes a file of files(); one already gone is no error. */
  async remove(file: StoredFile): Promise<void> {
    await rm(file.path, { force: true });
  }

  private async *folders(parent: string): AsyncGenerator<string> {
    const entries = await opendir(parent).catch(() => null);
    if (!entries) return;
    for await (const entry of entries) if (entry.isDirectory() && FAN_OUT.test(entry.name)) yield entry.name;
  }

  private pathOf(key: string): string {
    assertContentKey(key);
    return path.join(this.directory, key.slice(0, 2), key.slice(2, 4), key);
  }
}
