import type { AttachmentStoreKind } from '../../config/attachments-config.js';

/**
 * Where the bytes of attachments live, by content address (the SHA-256 of the bytes, in hex): one interface, three
 * implementations (a local folder, PostgreSQL, an S3-compatible object store), chosen by KURATE_ATTACHMENTS_STORE.
 * Writing the same key twice is harmless (the content is the same); a missing key reads as null.
 */
export interface AttachmentStore {
  readonly kind: AttachmentStoreKind;
  /** At start: the store is there and writable, or a sentence saying what to fix. */
  check(): Promise<void>;
  put(key: string, bytes: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

/** The configured store (a Nest provider token). */
export const ATTACHMENT_STORE = Symbol('ATTACHMENT_STORE');

const CONTENT_KEY = /^[0-9a-f]{64}$/;

/** Whether the text is a content key (a SHA-256 hex digest). */
export function isContentKey(key: string): boolean {
  return CONTENT_KEY.test(key);
}

/** Keys are SHA-256 hex digests and nothing else: no key can name a path or an object outside the store. */
export function assertContentKey(key: string): void {
  if (!isContentKey(key)) throw new Error(`Not a content key: ${JSON.stringify(key.slice(0, 80))}`);
}
