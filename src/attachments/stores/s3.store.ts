import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import type { S3StoreConfig } from '../../config/attachments-config.js';
import { ConfigError } from '../../config/config-error.js';
import { assertContentKey, type AttachmentStore } from './attachment-store.js';

const TIMEOUT_MS = 60_000;

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …): the scale-out store, shared by every app process
 * with no shared disk. Plain S3 REST calls (PUT, GET, HEAD, DELETE Object; HEAD Bucket at start) signed with AWS
 * Signature V4 by `aws4fetch`, a dependency-free signer, instead of the AWS SDK (about 130 packages for four calls).
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
    return new Error(`S3 ${method} of ${key.slice(0, 12)}… answered ${response.status}${code ? ` (${code})` : ''}`);
  }
}
