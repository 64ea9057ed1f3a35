import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachmentBlobsRepository } from '../../src/attachments/attachment-blobs.repository.js';
import type { AttachmentStore } from '../../src/attachments/stores/attachment-store.js';
import { DatabaseStore } from '../../src/attachments/stores/database.store.js';
import { LocalDirectoryStore } from '../../src/attachments/stores/local-directory.store.js';
import { S3Store } from '../../src/attachments/stores/s3.store.js';
import { ConfigError } from '../../src/config/kurate-config.js';
import { startFakeS3, type FakeS3 } from '../support/fake-s3.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PNG = readFileSync(path.join(ATTACHMENT_FIXTURES, 'pixel.png'));
const S3_KEYS = { bucket: 'kurate-files', accessKeyId: 'AKIAKURATETEST', secretAccessKey: 'test-secret-key-0123456789', region: 'eu-west-1' };
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function binary(res: NodeJS.ReadableStream, done: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('attachment stores: one contract, three implementations', () => {
  let t: TestApp;
  let s3: FakeS3;
  const folders: string[] = [];
  const tempFolder = () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'kurate-store-'));
    folders.push(folder);
    return folder;
  };
  const s3Config = (overrides: Partial<typeof S3_KEYS> = {}) => ({ endpoint: s3.url, prefix: 'wiki/', pathStyle: true, ...S3_KEYS, ...overrides });

  beforeAll(async () => {
    t = await startTestApp();
    s3 = await startFakeS3(S3_KEYS);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  const stores: [string, () => AttachmentStore][] = [
    ['local', () => new LocalDirectoryStore(tempFolder())],
    ['database', () => new DatabaseStore(t.app.get(AttachmentBlobsRepository))],
    ['s3', () => new S3Store(s3Config())],
  ];

  for (const [kind, make] of stores) {
    it(`${kind}: stores, reads, tells and forgets content by its SHA-256; writing twice is harmless`, async () => {
      const store = make();
      expect(store.kind).toBe(kind);
      await store.check();
      const bytes = Buffer.concat([PNG, Buffer.from(kind)]);
      const key = sha(bytes);
      expect(await store.get(key)).toBeNull();
      expect(await store.has(key)).toBe(false);
      await store.put(key, bytes);
      await store.put(key, bytes);
      expect(await store.has(key)).toBe(true);
      expect(Buffer.compare((await store.get(key))!, bytes)).toBe(0);
      const empty = Buffer.alloc(0);
      await store.put(sha(empty), empty);
      expect((await store.get(sha(empty)))!.length).toBe(0);
      await store.delete(key);
      await store.delete(key);
      expect(await store.get(key)).toBeNull();
      // Keys are content addresses only: nothing else can name a file or an object.
      await expect(store.get('../../etc/passwd')).rejects.toThrow('Not a content key');
    });
  }

  it('local: keeps files as ab/cd/<sha256>, and refuses to start on a folder it cannot write', async () => {
    const folder = tempFolder();
    const key = sha(PNG);
    await new LocalDirectoryStore(folder).put(key, PNG);
    expect(existsSync(path.join(folder, key.slice(0, 2), key.slice(2, 4), key))).toBe(true);
    // A folder under a file cannot be made, whoever runs the test (root may write anywhere else).
    const underFile = new LocalDirectoryStore(path.join(ATTACHMENT_FIXTURES, 'pixel.png', 'inner'));
    await expect(underFile.check()).rejects.toThrow(ConfigError);
    await expect(underFile.check()).rejects.toThrow('KURATE_ATTACHMENTS_DIR');
  });

  it('s3: speaks the S3 wire format, signed; a wrong secret, bucket or a failing service is a clear error', async () => {
    const store = new S3Store(s3Config());
    const key = sha(PNG);
    await store.put(key, PNG);
    expect(Buffer.compare(s3.objects.get(`kurate-files/wiki/${key}`)!, PNG)).toBe(0);
    expect(s3.requests.slice(-1)[0]).toEqual({ method: 'PUT', path: `/kurate-files/wiki/${key}` });
    await expect(new S3Store(s3Config({ secretAccessKey: 'wrong' })).put(key, PNG)).rejects.toThrow('403 (SignatureDoesNotMatch)');
    await expect(new S3Store(s3Config({ region: 'us-east-1' })).get(key)).rejects.toThrow('AuthorizationHeaderMalformed');
    await expect(new S3Store(s3Config({ bucket: 'no-such-bucket' })).check()).rejects.toThrow('KURATE_S3_BUCKET');
    await expect(new S3Store({ ...s3Config(), endpoint: 'http://127.0.0.1:9' }).check()).rejects.toThrow('KURATE_S3_ENDPOINT');
    s3.failWith = 503;
    try {
      await expect(store.get(key)).rejects.toThrow('503');
    } finally {
      s3.failWith = null;
    }
  });

  it('a wiki on the S3 store keeps uploads in the bucket and serves them back byte for byte', async () => {
    const app = await startTestApp({
      env: {
        KURATE_ATTACHMENTS_STORE: 's3', KURATE_S3_ENDPOINT: s3.url, KURATE_S3_BUCKET: S3_KEYS.bucket, KURATE_S3_REGION: S3_KEYS.region,
        KURATE_S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId, KURATE_S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey, KURATE_S3_PREFIX: 'app/',
      },
    });
    try {
      const author = await app.as('author');
      const bytes = Buffer.concat([PNG, Buffer.from('s3 app')]);
      const res = await author.post('/api/attachments').attach('file', bytes, 'cloud.png').expect(201);
      expect(res.body.sha256).toBe(sha(bytes));
      expect(s3.objects.has(`kurate-files/app/${sha(bytes)}`)).toBe(true);
      const served = await author.get('/files/cloud.png').buffer(true).parse(binary).expect(200);
      expect(Buffer.compare(served.body as Buffer, bytes)).toBe(0);
      expect((await app.dataSource.query('SELECT store FROM attachments'))[0].store).toBe('s3');
    } finally {
      await app.close();
    }
  });

  it('a wiki on the local store keeps uploads in KURATE_ATTACHMENTS_DIR; one that cannot reach its store does not start', async () => {
    const folder = tempFolder();
    const app = await startTestApp({ env: { KURATE_ATTACHMENTS_STORE: 'local', KURATE_ATTACHMENTS_DIR: folder } });
    try {
      const author = await app.as('author');
      const bytes = Buffer.concat([PNG, Buffer.from('local app')]);
      await author.post('/api/attachments').attach('file', bytes, 'disk.png').expect(201);
      const key = sha(bytes);
      expect(Buffer.compare(readFileSync(path.join(folder, key.slice(0, 2), key.slice(2, 4), key)), bytes)).toBe(0);
    } finally {
      await app.close();
    }
    await expect(startTestApp({
      env: {
        KURATE_ATTACHMENTS_STORE: 's3', KURATE_S3_ENDPOINT: 'http://127.0.0.1:9', KURATE_S3_BUCKET: 'kurate-files',
        KURATE_S3_ACCESS_KEY_ID: 'x', KURATE_S3_SECRET_ACCESS_KEY: 'y',
      },
    })).rejects.toThrow('KURATE_S3_ENDPOINT');
  });
});
