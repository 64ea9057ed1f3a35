import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import type { S3StoreConfig } from '../../config/attachments-config.js';
import { ConfigError } from '../../config/config-error.js';
import { assertContentKey, isContentKey, type AttachmentStore } from './attachment-store.js';

const TIMEOUT_MS = 60_000;

/** An object of the store, as a bucket listing or a HEAD Object describes it. */
export interface S3StoredObject {
  /** The content key (the object's key without the configured prefix). */
  key: string;
  size: number;
  /** Last-Modified: when the object was last written (a PUT of the same key writes it again). */
  modifiedMs: number;
}

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …): the scale-out store, shared by every app process
 * with no shared disk. Plain S3 REST calls (PUT, GET, HEAD, DELETE Object; HEAD Bucket at start; ListObjectsV2 for the
 * sweep) signed with AWS Signature V4 by `aws4fetch`, a dependency-free signer, instead of the AWS SDK (about 130
 * packages for five calls).
 */
export class S3Store implements AttachmentStore {
  readonly kind = 's3' as const;
  private readonly client: AwsClient;

  constructor(private readonly config: S3StoreConfig) {
    this.client = new AwsClient({
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      service: 's3',
      region: config.region,
      // A few quick retries of 5xx and 429 answers; a store that stays down fails the request with a clear error.
      retries: 2,
      initRetryMs: 100,
    });
  }

  async check(): Promise<void> {
    let response: Response;
    try {
      response = await this.send(this.bucketUrl(), 'HEAD');
    } catch (error) {
      throw new ConfigError(`Invalid configuration: the S3 endpoint ${this.config.endpoint} (KURATE_S3_ENDPOINT) cannot be reached (${(error as Error).message}).`);
    }
    if (!response.ok) {
      throw new ConfigError(`Invalid configuration: the S3 bucket "${this.config.bucket}" (KURATE_S3_BUCKET) answered ${response.status} at ${this.config.endpoint}: check the bucket and the keys (KURATE_S3_ACCESS_KEY_ID, KURATE_S3_SECRET_ACCESS_KEY).`);
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const response = await this.send(this.objectUrl(key), 'PUT', bytes);
    if (!response.ok) throw await this.failure('PUT', key, response);
  }

  async get(key: string): Promise<Buffer | null> {
    const response = await this.send(this.objectUrl(key), 'GET');
    if (response.status === 404) return null;
    if (!response.ok) throw await this.failure('GET', key, response);
    return Buffer.from(await response.arrayBuffer());
  }

  async has(key: string): Promise<boolean> {
    const response = await this.send(this.objectUrl(key), 'HEAD');
    if (response.status === 404) return false;
    if (!response.ok) throw await this.failure('HEAD', key, response);
    return true;
  }

  /** The object's size and last write, or null if there is none (HEAD Object). */
  async statOf(key: string): Promise<S3StoredObject | null> {
    const response = await this.send(this.objectUrl(key), 'HEAD');
    if (response.status === 404) return null;
    if (!response.ok) throw await this.failure('HEAD', key, response);
    const modifiedMs = Date.parse(response.headers.get('last-modified') ?? '');
    const size = Number(response.headers.get('content-length'));
    if (!Number.isFinite(modifiedMs) || !Number.isFinite(size)) throw new Error(`S3 HEAD of ${key.slice(0, 12)}… gave no Last-Modified or Content-Length`);
    return { key, size, modifiedMs };
  }

  /**
   * Every object of the store under the configured prefix, in key order, a listing page (up to 1,000) at a time
   * (ListObjectsV2). Objects whose key is not a content key are not the store's and are left out.
   */
  async *objects(): AsyncGenerator<S3StoredObject> {
    const { prefix } = this.config;
    let token: string | null = null;
    do {
      const url = new URL(this.bucketUrl());
      url.searchParams.set('list-type', '2');
      if (prefix) url.searchParams.set('prefix', prefix);
      if (token) url.searchParams.set('continuation-token', token);
      const response = await this.send(url.toString(), 'GET');
      if (!response.ok) throw await this.failure('LIST', '', response);
      const page = parseObjectListing(await response.text());
      for (const object of page.objects) {
        const key = object.key.startsWith(prefix) ? object.key.slice(prefix.length) : '';
        if (isContentKey(key)) yield { key, size: object.size, modifiedMs: object.modifiedMs };
      }
      token = page.nextToken;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    const response = await this.send(this.objectUrl(key), 'DELETE');
    // Deleting what is not there succeeds in S3 (204).
    if (!response.ok && response.status !== 404) throw await this.failure('DELETE', key, response);
  }

  private send(url: string, method: string, body?: Buffer): Promise<Response> {
    // The payload's hash is signed too (aws4fetch would send UNSIGNED-PAYLOAD), so the store checks what arrived.
    const headers: Record<string, string> = { 'x-amz-content-sha256': createHash('sha256').update(body ?? Buffer.alloc(0)).digest('hex') };
    if (body) headers['content-type'] = 'application/octet-stream';
    return this.client.fetch(url, {
      method,
      body: body ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : undefined,
      headers,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }

  private bucketUrl(): string {
    const endpoint = new URL(this.config.endpoint);
    if (this.config.pathStyle) return `${endpoint.origin}${endpoint.pathname.replace(/\/$/, '')}/${this.config.bucket}`;
    return `${endpoint.protocol}//${this.config.bucket}.${endpoint.host}${endpoint.pathname.replace(/\/$/, '')}`;
  }

  private objectUrl(key: string): string {
    assertContentKey(key);
    const objectKey = `${this.config.prefix}${key}`.split('/').map(encodeURIComponent).join('/');
    return `${this.bucketUrl()}/${objectKey}`;
  }

  private async failure(method: string, key: string, response: Response): Promise<Error> {
    const text = await response.text().catch(() => '');
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
    const what = key ? `${method} of ${key.slice(0, 12)}…` : `${method} of the bucket`;
    return new Error(`S3 ${what} answered ${response.status}${code ? ` (${code})` : ''}`);
  }
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An XML text node's value: its entity and character references resolved. */
function xmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, ref: string) =>
    ref.startsWith('#x') ? String.fromCodePoint(parseInt(ref.slice(2), 16))
      : ref.startsWith('#') ? String.fromCodePoint(parseInt(ref.slice(1), 10))
        : XML_ENTITIES[ref]);
}

/** The text of the first `<name>` element in `xml` (elements of a listing hold text only), or null. */
function element(xml: string, name: string): string | null {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match ? xmlText(match[1]) : null;
}

/**
 * A ListObjectsV2 answer (`<ListBucketResult>`): each `<Contents>` entry's key, size and last write, and the token of
 * the next page when `<IsTruncated>` is true. Its elements hold text only, so a reader of that fixed shape does
 * instead of an XML library.
 */
export function parseObjectListing(xml: string): { objects: { key: string; size: number; modifiedMs: number }[]; nextToken: string | null } {
  if (!/<ListBucketResult[\s>]/.test(xml)) throw new Error('S3 LIST of the bucket answered something other than a ListBucketResult');
  const objects = [...xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map(([, entry]) => {
    const key = element(entry, 'Key');
    const size = Number(element(entry, 'Size'));
    const modifiedMs = Date.parse(element(entry, 'LastModified') ?? '');
    if (key === null || !Number.isFinite(size) || !Number.isFinite(modifiedMs)) throw new Error('S3 LIST of the bucket answered an entry without a key, size or last write');
    return { key, size, modifiedMs };
  });
  const truncated = element(xml, 'IsTruncated') === 'true';
  const nextToken = truncated ? element(xml, 'NextContinuationToken') : null;
  if (truncated && !nextToken) throw new Error('S3 LIST of the bucket answered a truncated page without a continuation token');
  return { objects, nextToken };
}
