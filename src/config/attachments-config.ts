import path from 'node:path';
import { ConfigError } from './config-error.js';
import type { EnvironmentDto } from './environment.dto.js';

export const ATTACHMENT_STORE_KINDS = ['local', 'database', 's3'] as const;
export type AttachmentStoreKind = (typeof ATTACHMENT_STORE_KINDS)[number];

/** Where an S3-compatible store keeps the files (KURATE_S3_*); docs/attachments.md. */
export interface S3StoreConfig {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Prepended to every object key, e.g. `kurate/` (empty: none). */
  prefix: string;
  /** `https://endpoint/bucket/key` (MinIO, most self-hosted stores) rather than `https://bucket.endpoint/key`. */
  pathStyle: boolean;
}

/** Files attached to pages (src/attachments/, docs/attachments.md). */
export interface AttachmentsConfig {
  /** KURATE_ATTACHMENTS_STORE: where the bytes live. Default `local`, or `database` when the data directory is `memory://`. */
  store: AttachmentStoreKind;
  /** KURATE_ATTACHMENTS_DIR: the local store's folder (default `<KURATE_DATA_DIR>/attachments`); null for other stores. */
  directory: string | null;
  /** KURATE_ATTACHMENTS_MAX_BYTES: the largest file accepted (larger gets 413). */
  maxBytes: number;
  s3: S3StoreConfig | null;
}

export const DEFAULT_MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

export const DEFAULT_ATTACHMENTS_CONFIG: AttachmentsConfig = { store: 'database', directory: null, maxBytes: DEFAULT_MAX_ATTACHMENT_BYTES, s3: null };

const S3_REQUIRED = ['KURATE_S3_ENDPOINT', 'KURATE_S3_BUCKET', 'KURATE_S3_ACCESS_KEY_ID', 'KURATE_S3_SECRET_ACCESS_KEY'] as const;

export function attachmentsConfigFrom(raw: EnvironmentDto, dataDir: string, cwd: string): AttachmentsConfig {
  const inMemory = dataDir.startsWith('memory://');
  const store = raw.KURATE_ATTACHMENTS_STORE ?? (inMemory ? 'database' : 'local');
  const maxBytes = raw.KURATE_ATTACHMENTS_MAX_BYTES ?? DEFAULT_MAX_ATTACHMENT_BYTES;
  if (store === 'local') {
    if (!raw.KURATE_ATTACHMENTS_DIR && inMemory) {
      throw new ConfigError('Invalid configuration: KURATE_ATTACHMENTS_STORE=local needs KURATE_ATTACHMENTS_DIR when KURATE_DATA_DIR is memory:// (or use KURATE_ATTACHMENTS_STORE=database).');
    }
    const directory = path.resolve(cwd, raw.KURATE_ATTACHMENTS_DIR ?? path.join(dataDir, 'attachments'));
    return { store, directory, maxBytes, s3: null };
  }
  if (store === 'database') return { store, directory: null, maxBytes, s3: null };
  const missing = S3_REQUIRED.filter((name) => !raw[name]);
  if (missing.length > 0) throw new ConfigError(`Invalid configuration: KURATE_ATTACHMENTS_STORE=s3 needs ${missing.join(', ')}.`);
  return {
    store,
    directory: null,
    maxBytes,
    s3: {
      endpoint: raw.KURATE_S3_ENDPOINT!.replace(/\/+$/, ''),
      bucket: raw.KURATE_S3_BUCKET!,
      region: raw.KURATE_S3_REGION ?? 'us-east-1',
      accessKeyId: raw.KURATE_S3_ACCESS_KEY_ID!,
      secretAccessKey: raw.KURATE_S3_SECRET_ACCESS_KEY!,
      prefix: raw.KURATE_S3_PREFIX ?? '',
      pathStyle: raw.KURATE_S3_PATH_STYLE ?? true,
    },
  };
}
