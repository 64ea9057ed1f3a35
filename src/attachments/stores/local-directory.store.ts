import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../config/config-error.js';
import { assertContentKey, type AttachmentStore } from './attachment-store.js';

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

  private pathOf(key: string): string {
    assertContentKey(key);
    return path.join(this.directory, key.slice(0, 2), key.slice(2, 4), key);
  }
}
