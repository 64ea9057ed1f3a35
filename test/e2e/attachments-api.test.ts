import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Agent } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameKeyOf } from '../../src/attachments/attachment-paths.js';
import { FILE_NAME_LOCKS } from '../../src/attachments/page-file-refs.service.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { lockKeySql } from '../../src/db/advisory-locks.js';
import { holdLock, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const fixture = (name: string) => readFileSync(path.join(ATTACHMENT_FIXTURES, name));
const PNG = fixture('pixel.png');
const PDF = fixture('doc.pdf');
const SVG = fixture('script.svg');
const HTML = fixture('page.html');
const WAV = fixture('tone.wav');

/** Collects a binary response body as a Buffer (supertest leaves unknown types unparsed otherwise). */
function binary(res: NodeJS.ReadableStream & { setEncoding(e: string): void }, done: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('attachments over REST', () => {
  let t: TestApp;
  let author: Agent;
  let admin: Agent;
  let reader: Agent;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_ATTACHMENTS_MAX_BYTES: String(64 * 1024) } });
    author = await t.as('author', { name: 'uploader' });
    admin = await t.as('admin');
    reader = await t.as('reader');
  });
  afterAll(() => t?.close());

  const upload = (bytes: Buffer, name: string, fields: Record<string, string> = {}, who: Agent = author) => {
    let request = who.post('/api/attachments').attach('file', bytes, { filename: name, contentType: 'application/octet-stream' });
    for (const [key, value] of Object.entries(fields)) request = request.field(key, value);
    return request;
  };
  const get = (url: string, who: Agent | TestApp['http'] = t.http) => who.get(url).buffer(true).parse(binary);

  it('stores an upload, sniffs its type from the bytes (not the name or the claimed type) and serves it back byte for byte', async () => {
    const created = await upload(PNG, 'photo.gif', { path: 'assets/photo.gif' }).expect(201);
    expect(created.body).toMatchObject({ path: 'assets/photo.gif', name: 'photo.gif', url: '/files/assets/photo.gif', mediaType: 'image/png', sizeBytes: PNG.length, status: 'created', embed: '![[assets/photo.gif]]', createdBy: 'uploader' });
    // An author may read a file no page references yet (to preview it); a reader may not.
    const served = await get('/files/assets/photo.gif', author).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
    await get('/files/assets/photo.gif', reader).expect(404);
    // The same bytes again: unchanged, no new row.
    const again = await upload(PNG, 'photo.gif', { path: 'assets/photo.gif' }).expect(200);
    expect(again.body.status).toBe('unchanged');
  });

  it('sniffs PDF, SVG, HTML, WAV and plain text, and calls unknown bytes octet-stream', async () => {
    const cases: [Buffer, string, string][] = [
      [PDF, 'doc.pdf', 'application/pdf'],
      [SVG, 'icon.png', 'image/svg+xml'],
      [HTML, 'innocent.txt', 'text/html'],
      [WAV, 'tone.wav', 'audio/wav'],
      [Buffer.from('just words\n'), 'words.html', 'text/plain'],
      [Buffer.from([0x00, 0x01, 0x02, 0xff, 0x10]), 'blob.png', 'application/octet-stream'],
    ];
    for (const [bytes, name, expected] of cases) {
      const res = await upload(bytes, name, { path: `sniff/${name}` }).expect(201);
      expect([name, res.body.mediaType]).toEqual([name, expected]);
    }
  });

  it('refuses a file over KURATE_ATTACHMENTS_MAX_BYTES with a 413 that says the limit, and stores nothing', async () => {
    const res = await upload(Buffer.alloc(64 * 1024 + 1, 7), 'big.bin', { path: 'big/big.bin' }).expect(413);
    expect(res.body).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
    expect(res.body.message).toContain('64 KB');
    expect(res.body.message).toContain('KURATE_ATTACHMENTS_MAX_BYTES');
    const rows = await t.dataSource.query(`SELECT 1 FROM attachments WHERE path = 'big/big.bin'`);
    expect(rows).toEqual([]);
  });

  it('answers bad uploads with a clear 4xx: no file, bad paths, Markdown files, readers', async () => {
    expect((await author.post('/api/attachments').send({ path: 'x.png' }).expect(400)).body.message).toContain('multipart/form-data');
    for (const bad of ['../etc/passwd', '/abs.png', 'a//b.png', '.obsidian/x.png', 'notes/page.md', 'back\\slash.png']) {
      const res = await upload(PNG, 'x.png', { path: bad }).expect(400);
      expect(res.body.message).toContain('cannot be used');
    }
    await upload(PNG, 'x.png', {}, reader).expect(403);
    await t.http.post('/api/attachments').attach('file', PNG, 'x.png').expect(401);
    await upload(PNG, 'x.png', { onConflict: 'sometimes' }).expect(400);
    // A file part without a file name is a text field to multipart readers: the answer says what is missing.
    const boundary = 'kurate-test-boundary';
    const unnamed = await author
      .post('/api/attachments')
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: image/png\r\n\r\nbytes\r\n--${boundary}--\r\n`)
      .expect(400);
    expect(unnamed.body.message).toContain('came without a file name');
  });

  it('on a taken path: renames (default), replaces, or refuses (409)', async () => {
    await upload(PNG, 'same.png', { path: 'conflict/same.png' }).expect(201);
    const renamed = await upload(WAV, 'same.png', { path: 'conflict/same.png' }).expect(201);
    expect(renamed.body).toMatchObject({ path: 'conflict/same 1.png', mediaType: 'audio/wav' });
    const refused = await upload(PDF, 'same.png', { path: 'conflict/same.png', onConflict: 'fail' }).expect(409);
    expect(refused.body).toMatchObject({ code: 'path_taken', path: 'conflict/same.png' });
    // The refused upload's bytes were not kept (no other file has them).
    const unique = Buffer.concat([PDF, Buffer.from('only here')]);
    await upload(unique, 'same.png', { path: 'conflict/same.png', onConflict: 'fail' }).expect(409);
    const sha = (await import('node:crypto')).createHash('sha256').update(unique).digest('hex');
    expect(await t.dataSource.query('SELECT 1 FROM attachment_blobs WHERE sha256 = $1', [sha])).toEqual([]);
    const replaced = await upload(PDF, 'same.png', { path: 'conflict/same.png', onConflict: 'replace' }).expect(200);
    expect(replaced.body).toMatchObject({ path: 'conflict/same.png', status: 'updated', mediaType: 'application/pdf' });
    // Paths are one whatever their letter case (an export to macOS or Windows would make them one file).
    const cased = await upload(PNG, 'SAME.PNG', { path: 'Conflict/SAME.png', onConflict: 'fail' }).expect(409);
    expect(cased.body.path).toBe('conflict/same.png');
  });

  it('serves every file with nosniff and a CSP that runs nothing; SVG and HTML only as downloads', async () => {
    await author.post('/api/pages').send({ title: 'Header Page', body: '![[hdr/icon.svg]] ![[hdr/page.html]] ![[hdr/pixel.png]] ![[hdr/doc.pdf]]' }).expect(201);
    await upload(SVG, 'icon.svg', { path: 'hdr/icon.svg' }).expect(201);
    await upload(HTML, 'page.html', { path: 'hdr/page.html' }).expect(201);
    await upload(PNG, 'pixel.png', { path: 'hdr/pixel.png' }).expect(201);
    await upload(PDF, 'doc.pdf', { path: 'hdr/doc.pdf' }).expect(201);
    const svg = await get('/files/hdr/icon.svg').expect(200);
    expect(svg.headers).toMatchObject({
      'content-type': 'image/svg+xml',
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment; filename=icon.svg',
      'x-frame-options': 'SAMEORIGIN',
      'cache-control': 'private, no-cache',
    });
    expect(svg.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'self'");
    const html = await get('/files/hdr/page.html').expect(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.headers['content-disposition']).toBe('attachment; filename=page.html');
    expect(html.headers['content-security-policy']).toContain('sandbox');
    const png = await get('/files/hdr/pixel.png').expect(200);
    expect(png.headers['content-disposition']).toBe('inline; filename=pixel.png');
    expect(png.headers['content-security-policy']).toContain("default-src 'none'");
    expect(png.headers['content-security-policy']).toContain('sandbox');
    // A PDF viewer is a plugin, which `sandbox` forbids: still nothing of the wiki's origin may run or connect.
    const pdf = await get('/files/hdr/doc.pdf').expect(200);
    expect(pdf.headers['content-disposition']).toBe('inline; filename=doc.pdf');
    expect(pdf.headers['content-security-policy']).toBe("default-src 'none'; object-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'");
    expect(pdf.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers Range requests (players seek) and If-None-Match', async () => {
    await author.post('/api/pages').send({ title: 'Range Page', body: '![[range/tone.wav]]' }).expect(201);
    await upload(WAV, 'tone.wav', { path: 'range/tone.wav' }).expect(201);
    const part = await get('/files/range/tone.wav').set('Range', 'bytes=0-11').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 0-11/${WAV.length}`);
    expect(Buffer.compare(part.body as Buffer, WAV.subarray(0, 12))).toBe(0);
    await get('/files/range/tone.wav').set('Range', `bytes=${WAV.length + 10}-`).expect(416);
    const full = await get('/files/range/tone.wav').expect(200);
    await get('/files/range/tone.wav').set('If-None-Match', full.headers.etag).expect(304);
  });

  it('lists the files each may read, with the pages that reference them', async () => {
    await author.post('/api/pages').send({ title: 'Lister', body: 'See ![[list/a.png]].' }).expect(201);
    await upload(PNG, 'a.png', { path: 'list/a.png' }).expect(201);
    await upload(PDF, 'b.pdf', { path: 'list/b.pdf' }).expect(201);
    const forReader = await reader.get('/api/attachments?perPage=500').expect(200);
    const readerPaths = forReader.body.items.map((i: { path: string }) => i.path);
    expect(readerPaths).toContain('list/a.png');
    expect(readerPaths).not.toContain('list/b.pdf');
    expect(forReader.body.items.find((i: { path: string }) => i.path === 'list/a.png').pages).toEqual([{ slug: 'lister', title: 'Lister', inTrash: false }]);
    const forAuthor = await author.get('/api/attachments?perPage=500').expect(200);
    expect(forAuthor.body.items.map((i: { path: string }) => i.path)).toContain('list/b.pdf');
    await reader.get('/api/attachments?perPage=501').expect(400);
  });

  it('lets admins delete a file for good (audited); pages that embed it show it missing', async () => {
    await author.post('/api/pages').send({ title: 'Deleter', body: '![[gone/x.png]]' }).expect(201);
    await upload(PNG, 'x.png', { path: 'gone/x.png' }).expect(201);
    expect((await t.http.get('/api/pages/deleter?render=true').expect(200)).body.html).toContain('src="/files/gone/x.png"');
    await author.delete('/api/attachments/gone/x.png').expect(403);
    await admin.delete('/api/attachments/gone/x.png').expect(204);
    await admin.delete('/api/attachments/gone/x.png').expect(404);
    await get('/files/gone/x.png', admin).expect(404);
    const html = (await t.http.get('/api/pages/deleter?render=true').expect(200)).body.html;
    expect(html).toContain('class="file-missing"');
    const audit = await t.dataSource.query(`SELECT details FROM audit_log WHERE action = 'attachment.delete'`);
    expect(audit).toHaveLength(1);
    expect(audit[0].details.path).toBe('gone/x.png');
  });

  it('one file deleted twice at once: one 204, one 404, and one audit entry', async () => {
    await upload(PNG, 'y.png', { path: 'twice/y.png' }).expect(201);
    // Both deletes find the file, then queue on its name's lock.
    const gate = await holdLock(t.dataSource, `SELECT ${lockKeySql(FILE_NAME_LOCKS, '$1')}`, [nameKeyOf('twice/y.png')]);
    const deletes = [0, 1].map(() => admin.delete('/api/attachments/twice/y.png').then((r) => r));
    await waitFor('both deletes to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    expect((await Promise.all(deletes)).map((r) => r.status).sort()).toEqual([204, 404]);
    const audit = await t.dataSource.query(`SELECT 1 FROM audit_log WHERE action = 'attachment.delete' AND details->>'path' = 'twice/y.png'`);
    expect(audit).toHaveLength(1);
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/attachments', '/api/attachments/{path}', '/files/{path}', '/api/pages/{slug}/attachments']));
    expect(Object.keys(doc.paths['/api/attachments'].post.requestBody.content)).toEqual(['multipart/form-data']);
  });
});
