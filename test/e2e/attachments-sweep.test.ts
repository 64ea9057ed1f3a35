import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameKeyOf } from '../../src/attachments/attachment-paths.js';
import { AttachmentStoreSweep, SWEEP_MIN_AGE_MS } from '../../src/attachments/attachment-store-sweep.js';
import { FILE_NAME_LOCKS } from '../../src/attachments/page-file-refs.service.js';
import { lockKeySql } from '../../src/db/advisory-locks.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { startFakeS3, type FakeS3 } from '../support/fake-s3.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { holdLock, ON_POSTGRES, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PNG = readFileSync(path.join(ATTACHMENT_FIXTURES, 'pixel.png'));
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const png = (tag: string) => Buffer.concat([PNG, Buffer.from(tag)]);
/** Two hours ago: older than the sweep's safe age. */
const OLD = new Date(Date.now() - 2 * SWEEP_MIN_AGE_MS);

/** What a crash leaves: a file written straight into the store's layout, optionally with an old mtime. */
function plant(folder: string, name: string, bytes: Buffer, options: { old: boolean; key?: string }): string {
  const key = options.key ?? name.slice(0, 64);
  const dir = path.join(folder, key.slice(0, 2), key.slice(2, 4));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  if (options.old) utimesSync(file, OLD, OLD);
  return file;
}

const age = (file: string) => utimesSync(file, OLD, OLD);

describe('the attachment store sweep: what crashes leave goes, nothing a file needs does', () => {
  describe('local store', () => {
    let t: TestApp;
    let folder: string;
    const stored = (key: string) => path.join(folder, key.slice(0, 2), key.slice(2, 4), key);

    beforeAll(async () => {
      folder = mkdtempSync(path.join(tmpdir(), 'kurate-sweep-'));
      t = await startTestApp({ env: { KURATE_ATTACHMENTS_STORE: 'local', KURATE_ATTACHMENTS_DIR: folder } });
    });
    afterAll(async () => {
      await t?.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('removes old *.tmp files and old unreferenced contents; keeps fresh ones, referenced ones (shared too) and foreign files', async () => {
      const author = await t.as('author');
      // Referenced: one content under two paths, and one under a single path; all aged as if uploaded long ago.
      const shared = png('shared');
      await author.post('/api/attachments').field('path', 'a/shared.png').attach('file', shared, 'shared.png').expect(201);
      await author.post('/api/attachments').field('path', 'b/shared.png').attach('file', shared, 'shared.png').expect(201);
      const single = png('single');
      await author.post('/api/attachments').attach('file', single, 'single.png').expect(201);
      age(stored(sha(shared)));
      age(stored(sha(single)));

      // Left by crashes, long ago: bytes stored before a catalogue insert that never committed, and a half write.
      const orphan = randomBytes(20_000);
      const oldOrphan = plant(folder, sha(orphan), orphan, { old: true });
      const halfKey = sha(Buffer.from('half'));
      const oldTemporary = plant(folder, `${halfKey}.${'0a1b2c3d4e5f'}.tmp`, Buffer.from('ha'), { old: true, key: halfKey });
      // In flight now: an upload's bytes whose row is not committed yet, and one being written.
      const fresh = Buffer.from('fresh upload');
      const freshOrphan = plant(folder, sha(fresh), fresh, { old: false });
      const freshTemporary = plant(folder, `${halfKey}.${'ffffffffffff'}.tmp`, Buffer.from('h'), { old: false, key: halfKey });
      // Not the store's: names of another shape, or a content name in folders its key does not name.
      const foreign = [
        plant(folder, 'notes.txt', Buffer.from('mine'), { old: true, key: halfKey }),
        plant(folder, sha(Buffer.from('misplaced')), Buffer.from('misplaced'), { old: true, key: 'ffff' + halfKey.slice(4) }),
      ];
      writeFileSync(path.join(folder, 'README'), 'the operator’s');
      utimesSync(path.join(folder, 'README'), OLD, OLD);

      const result = await t.app.get(AttachmentStoreSweep).sweep();

      expect(result).toEqual({ temporary: 1, unreferenced: 1, bytes: orphan.length + 2 });
      expect(existsSync(oldOrphan)).toBe(false);
      expect(existsSync(oldTemporary)).toBe(false);
      for (const kept of [stored(sha(shared)), stored(sha(single)), freshOrphan, freshTemporary, ...foreign, path.join(folder, 'README')]) {
        expect(existsSync(kept), kept).toBe(true);
      }
      const served = await author.get('/files/a/shared.png').expect(200);
      expect(Number(served.headers['content-length'])).toBe(shared.length);

      // A second sweep finds nothing more.
      expect(await t.app.get(AttachmentStoreSweep).sweep()).toEqual({ temporary: 0, unreferenced: 0, bytes: 0 });
    });

    it('bytes a delete or a replacement forgot (killed after its commit) go once old; a file still sharing them keeps them', async () => {
      const author = await t.as('author');
      const admin = await t.as('admin');
      const first = png('first');
      const second = png('second');
      await author.post('/api/attachments').field('path', 'r/x.png').attach('file', first, 'x.png').expect(201);
      await author.post('/api/attachments').field('path', 'r/x.png').field('onConflict', 'replace').attach('file', second, 'x.png').expect(200);
      // The replacement's forgetContent did not run (the process was killed): the old bytes are back, aged.
      plant(folder, sha(first), first, { old: true });
      age(stored(sha(second)));
      const result = await t.app.get(AttachmentStoreSweep).sweep();
      expect(result).toMatchObject({ unreferenced: 1, temporary: 0 });
      expect(existsSync(stored(sha(first)))).toBe(false);
      expect(existsSync(stored(sha(second)))).toBe(true);
      await admin.delete('/api/attachments/r/x.png').expect(204);
      expect(existsSync(stored(sha(second)))).toBe(false);
    });

    it('walks a large folder in batches', async () => {
      const planted: string[] = [];
      for (let i = 0; i < 1_200; i++) {
        const bytes = Buffer.from(`orphan ${i}`);
        planted.push(plant(folder, sha(bytes), bytes, { old: true }));
      }
      const result = await t.app.get(AttachmentStoreSweep).sweep();
      expect(result.unreferenced).toBe(1_200);
      expect(planted.filter((file) => existsSync(file))).toEqual([]);
    });

    it('stops between files when told the worker is stopping', async () => {
      const bytes = Buffer.from('left for the next sweep');
      const file = plant(folder, sha(bytes), bytes, { old: true });
      expect(await t.app.get(AttachmentStoreSweep).sweep({ stopped: () => true })).toEqual({ temporary: 0, unreferenced: 0, bytes: 0 });
      expect(existsSync(file)).toBe(true);
      await t.app.get(AttachmentStoreSweep).sweep();
      expect(existsSync(file)).toBe(false);
    });

    it.runIf(ON_POSTGRES)('an upload of old unreferenced bytes that commits while the sweep removes them still has them after', async () => {
      const author = await t.as('author');
      const bytes = png('raced');
      const file = plant(folder, sha(bytes), bytes, { old: true });
      // The upload finds the bytes there (put writes nothing) and waits for its name's lock before inserting its row.
      const gate = await holdLock(t.dataSource, `SELECT ${lockKeySql(FILE_NAME_LOCKS, '$1')}`, [nameKeyOf('raced.png')]);
      const upload = author.post('/api/attachments').attach('file', bytes, 'raced.png').then((r) => r);
      await waitFor('the upload to wait for its name', async () => (await gate.waiting()) >= 1);
      expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBe(1);
      expect(existsSync(file)).toBe(false);
      await gate.release();
      expect((await upload).status).toBe(201);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      await author.get('/files/raced.png').expect(200);
    });

    it('a worker sweeps when it starts (and hourly after)', async () => {
      const bytes = Buffer.from('left by a crash before this start');
      const file = plant(folder, sha(bytes), bytes, { old: true });
      const worker = t.app.get(JobWorker);
      await worker.start();
      try {
        await waitFor('the start-up sweep', () => !existsSync(file), 20_000);
      } finally {
        await worker.stop();
      }
    });
  });

  describe('database store', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { KURATE_ATTACHMENTS_STORE: 'database' } });
    });
    afterAll(() => t?.close());

    it('removes old attachment_blobs rows no catalogue row references, and nothing else', async () => {
      const author = await t.as('author');
      const referenced = png('in the catalogue');
      await author.post('/api/attachments').attach('file', referenced, 'kept.png').expect(201);
      const orphan = randomBytes(1_000);
      const fresh = Buffer.from('an upload in flight');
      for (const bytes of [orphan, fresh]) await t.dataSource.query('INSERT INTO attachment_blobs (sha256, bytes) VALUES ($1, $2)', [sha(bytes), bytes]);
      await t.dataSource.query(`UPDATE attachment_blobs SET created_at = now() - interval '2 hours' WHERE sha256 = ANY($1::text[])`, [[sha(referenced), sha(orphan)]]);

      const result = await t.app.get(AttachmentStoreSweep).sweep();

      expect(result).toEqual({ temporary: 0, unreferenced: 1, bytes: orphan.length });
      const left: { sha256: string }[] = await t.dataSource.query('SELECT sha256 FROM attachment_blobs ORDER BY sha256');
      expect(left.map((row) => row.sha256).sort()).toEqual([sha(referenced), sha(fresh)].sort());
      await author.get('/files/kept.png').expect(200);
    });
  });

  describe('S3 store', () => {
    const KEYS = { bucket: 'kurate-files', accessKeyId: 'AKIAKURATESWEEP', secretAccessKey: 'sweep-secret-key-0123456789', region: 'eu-west-1' };
    let t: TestApp;
    let s3: FakeS3;
    const object = (key: string) => `${KEYS.bucket}/wiki/${key}`;
    /** What a crash leaves: an object put straight into the bucket, last written two hours ago unless `old` is false. */
    const plantObject = (id: string, bytes: Buffer, old = true) => {
      s3.objects.set(id, bytes);
      s3.modified.set(id, old ? OLD : new Date());
    };

    beforeAll(async () => {
      s3 = await startFakeS3(KEYS);
      t = await startTestApp({
        env: {
          KURATE_ATTACHMENTS_STORE: 's3', KURATE_S3_ENDPOINT: s3.url, KURATE_S3_BUCKET: KEYS.bucket, KURATE_S3_REGION: KEYS.region,
          KURATE_S3_ACCESS_KEY_ID: KEYS.accessKeyId, KURATE_S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey, KURATE_S3_PREFIX: 'wiki/',
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      await s3?.close();
    });

    it('removes old objects no catalogue row references, under its prefix only; keeps fresh, referenced and foreign ones', async () => {
      const author = await t.as('author');
      const referenced = png('in the bucket');
      await author.post('/api/attachments').attach('file', referenced, 'kept.png').expect(201);
      s3.modified.set(object(sha(referenced)), OLD);
      const orphan = randomBytes(3_000);
      plantObject(object(sha(orphan)), orphan);
      const fresh = Buffer.from('an upload whose row is not committed yet');
      plantObject(object(sha(fresh)), fresh, false);
      // Not the store's: another prefix (another wiki in the bucket), a key of another shape under its own prefix.
      const foreign = [`${KEYS.bucket}/other/${sha(orphan)}`, `${KEYS.bucket}/wiki/notes.txt`, `${KEYS.bucket}/wiki/${sha(orphan)}.bak`];
      for (const id of foreign) plantObject(id, Buffer.from('not the wiki’s'));

      const result = await t.app.get(AttachmentStoreSweep).sweep();

      expect(result).toEqual({ temporary: 0, unreferenced: 1, bytes: orphan.length });
      expect(s3.objects.has(object(sha(orphan)))).toBe(false);
      for (const kept of [object(sha(referenced)), object(sha(fresh)), ...foreign]) expect(s3.objects.has(kept), kept).toBe(true);
      await author.get('/files/kept.png').expect(200);
      expect(await t.app.get(AttachmentStoreSweep).sweep()).toEqual({ temporary: 0, unreferenced: 0, bytes: 0 });
    });

    it('reads a bucket listing page by page (continuation tokens)', async () => {
      s3.pageSize = 7;
      try {
        const planted = Array.from({ length: 40 }, (_, i) => Buffer.from(`orphan object ${i}`));
        for (const bytes of planted) plantObject(object(sha(bytes)), bytes);
        const before = s3.requests.length;
        expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBe(40);
        expect(planted.filter((bytes) => s3.objects.has(object(sha(bytes))))).toEqual([]);
        const listings = s3.requests.slice(before).filter((r) => r.method === 'GET' && r.path === `/${KEYS.bucket}`);
        expect(listings.length).toBeGreaterThanOrEqual(Math.ceil(40 / 7));
      } finally {
        s3.pageSize = 1000;
      }
    });

    it('keeps an old orphan that an upload of the same content wrote again meanwhile', async () => {
      const author = await t.as('author');
      const bytes = png('written again');
      plantObject(object(sha(bytes)), bytes);
      // The upload puts the bytes (a new Last-Modified) and commits its row: the object is referenced and new.
      await author.post('/api/attachments').attach('file', bytes, 'again.png').expect(201);
      expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBe(0);
      expect(s3.objects.has(object(sha(bytes)))).toBe(true);
      // Listed as old, then written again (an upload storing the same content) before the sweep looked under the lock.
      const raced = Buffer.from('listed old, then written again');
      plantObject(object(sha(raced)), raced);
      s3.afterList = () => s3.modified.set(object(sha(raced)), new Date());
      try {
        expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBe(0);
      } finally {
        s3.afterList = null;
      }
      expect(s3.objects.has(object(sha(raced)))).toBe(true);
      s3.modified.set(object(sha(raced)), OLD);
      expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBe(1);
    });

    it('a worker sweeps the bucket when it starts (and hourly after)', async () => {
      const bytes = Buffer.from('left in the bucket by a crash before this start');
      plantObject(object(sha(bytes)), bytes);
      const worker = t.app.get(JobWorker);
      await worker.start();
      try {
        await waitFor('the start-up sweep', () => !s3.objects.has(object(sha(bytes))), 20_000);
      } finally {
        await worker.stop();
      }
    });

    it('a bucket that fails mid-sweep fails the sweep with S3’s status, and the next one finishes the job', async () => {
      const bytes = Buffer.from('left while the bucket was down');
      plantObject(object(sha(bytes)), bytes);
      s3.failWith = 503;
      try {
        await expect(t.app.get(AttachmentStoreSweep).sweep()).rejects.toThrow(/S3 LIST of the bucket answered 503/);
      } finally {
        s3.failWith = null;
      }
      expect((await t.app.get(AttachmentStoreSweep).sweep()).unreferenced).toBeGreaterThanOrEqual(1);
      expect(s3.objects.has(object(sha(bytes)))).toBe(false);
    });
  });
});
