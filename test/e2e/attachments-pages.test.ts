import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Agent } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const fixture = (name: string) => readFileSync(path.join(ATTACHMENT_FIXTURES, name));
const PNG = fixture('pixel.png');
const PDF = fixture('doc.pdf');
const WAV = fixture('tone.wav');
// The first box of an MP4 file (`ftyp`, brand isom) is what identifies it.
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2'), Buffer.alloc(64)]);
// A ZIP archive's local file header.
const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0]), Buffer.alloc(40)]);

describe('attachments in pages: rendering, link resolution, wanted pages, access, history, the editor', () => {
  let t: TestApp;
  let author: Agent;
  let admin: Agent;
  let reader: Agent;

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_ATTACHMENTS_MAX_BYTES: String(32 * 1024) } });
    author = await t.as('author', { name: 'writer' });
    admin = await t.as('admin');
    reader = await t.as('reader');
  });
  afterAll(() => t?.close());

  const upload = (bytes: Buffer, filePath: string, onConflict = 'rename') =>
    author.post('/api/attachments').attach('file', bytes, path.basename(filePath)).field('path', filePath).field('onConflict', onConflict);
  const htmlOf = async (slug: string) => (await t.http.get(`/api/pages/${slug}?render=true`).expect(200)).body.html as string;
  const wanted = async () => ((await t.http.get('/api/reports/wanted?perPage=500').expect(200)).body.items as { target: string }[]).map((w) => w.target);

  it('renders images, sizes, PDFs, audio, video, file cards and links the way Obsidian shows them', async () => {
    for (const [bytes, p] of [[PNG, 'media/pixel.png'], [PDF, 'media/doc.pdf'], [WAV, 'media/tone.wav'], [MP4, 'media/clip.mp4'], [ZIP, 'media/bundle.zip']] as const) {
      await upload(bytes, p).expect(201);
    }
    const body = [
      '![[pixel.png]]',
      '',
      'Small: ![[pixel.png|300]] and sized ![[pixel.png|a red dot|40x20]].',
      '',
      '![Alt text](media/pixel.png) and ![](./media/pixel.png "title")',
      '',
      '![[doc.pdf#page=2]]',
      '',
      '![[tone.wav]]',
      '',
      '![[clip.mp4]]',
      '',
      '![[bundle.zip]]',
      '',
      'Links: [[doc.pdf]], [[doc.pdf|the PDF]], [the sound](media/tone.wav) and [[Plain Page]].',
      '',
      '![[nowhere.png]]',
    ].join('\n');
    await author.post('/api/pages').send({ title: 'Gallery', body }).expect(201);
    const html = await htmlOf('gallery');
    expect(html).toContain('<img class="file-embed file-embed-image" src="/files/media/pixel.png" alt="pixel.png" />');
    expect(html).toContain('<img class="file-embed file-embed-image" src="/files/media/pixel.png" alt="pixel.png" width="300" />');
    expect(html).toContain('<img class="file-embed file-embed-image" src="/files/media/pixel.png" alt="a red dot" width="40" height="20" />');
    expect(html).toContain('<img class="file-embed file-embed-image" src="/files/media/pixel.png" alt="Alt text" />');
    expect(html).toContain('<iframe class="file-embed file-embed-pdf" src="/files/media/doc.pdf#page=2" title="doc.pdf"></iframe>');
    expect(html).toContain('<audio class="file-embed file-embed-audio" src="/files/media/tone.wav" controls preload="metadata"></audio>');
    expect(html).toContain('<video class="file-embed file-embed-video" src="/files/media/clip.mp4" controls preload="metadata"></video>');
    expect(html).toMatch(/<a class="file-card" href="\/files\/media\/bundle.zip">📎 bundle.zip <span class="file-size">50 B<\/span><\/a>/);
    expect(html).toContain('<a class="wikilink file-link" href="/files/media/doc.pdf">doc.pdf</a>');
    expect(html).toContain('<a class="wikilink file-link" href="/files/media/doc.pdf">the PDF</a>');
    expect(html).toContain('<a href="/files/media/tone.wav" class="file-link">the sound</a>');
    expect(html).toContain('class="wikilink wikilink-missing"');
    expect(html).toContain('<span class="file-missing">📎 nowhere.png</span>');
    // The page's own view lists its files, with the version that added each.
    const view = (await t.http.get('/page/gallery').expect(200)).text;
    expect(view).toContain('<h2 id="files-heading">Files</h2>');
    expect(view).toMatch(/<a href="\/files\/media\/bundle.zip">media\/bundle.zip<\/a> <span class="muted">application\/zip, 50 B, added in <a href="\/page\/gallery\/revisions\/1">version 1<\/a>/);
  });

  it('does not list files that exist among wanted pages; an upload resolves the links that wanted it at once', async () => {
    await author.post('/api/pages').send({ title: 'Waiting', body: 'Soon: ![[later.png]] and [[Missing Note]].' }).expect(201);
    expect(await wanted()).toEqual(expect.arrayContaining(['later.png', 'Missing Note']));
    expect(await htmlOf('waiting')).toContain('file-missing');
    await upload(PNG, 'img/later.png').expect(201);
    const after = await wanted();
    expect(after).toContain('Missing Note');
    expect(after).not.toContain('later.png');
    expect(await htmlOf('waiting')).toContain('src="/files/img/later.png"');
    const summary = (await t.http.get('/api/reports/summary').expect(200)).body;
    expect(summary.wantedPages).toBe(after.length);
    // Deleting the file makes the link wanted again.
    await admin.delete('/api/attachments/img/later.png').expect(204);
    expect(await wanted()).toContain('later.png');
  });

  it('resolves a reference by the shortest unique path: the whole path first, then the shallowest match', async () => {
    await upload(PNG, 'deep/img/logo.png').expect(201);
    await upload(WAV, 'other/logo.png').expect(201);
    await author.post('/api/pages').send({ title: 'Logos', body: '![[logo.png]]\n\n![[img/logo.png]]\n\n![](deep/img/logo.png)\n\n![[LOGO.PNG]]' }).expect(201);
    let html = await htmlOf('logos');
    // `logo.png` names two files; the shallower (other/logo.png, a WAV) wins, in any letter case.
    expect(html.match(/\/files\/other\/logo.png/g)).toHaveLength(2);
    expect(html.match(/\/files\/deep\/img\/logo.png/g)).toHaveLength(2);
    // A file whose whole path is the reference beats any longer path, and an upload re-resolves at once.
    await upload(PNG, 'logo.png').expect(201);
    html = await htmlOf('logos');
    expect(html.match(/src="\/files\/logo.png"/g)).toHaveLength(2);
    expect(html).not.toContain('/files/other/logo.png');
  });

  it('serves a file to whoever may read a live page that references it; a file only trashed pages use is for admins only', async () => {
    await author.post('/api/pages').send({ title: 'Holder', body: '![[held.pdf]]' }).expect(201);
    await upload(PDF, 'held.pdf').expect(201);
    await t.http.get('/files/held.pdf').expect(200);
    await reader.get('/files/held.pdf').expect(200);
    await author.delete('/api/pages/holder').expect(204);
    // Like the page itself: gone for readers (and authors), kept for admins, back when the page comes back.
    await t.http.get('/files/held.pdf').expect(404);
    await reader.get('/files/held.pdf').expect(404);
    await author.get('/files/held.pdf').expect(404);
    await admin.get('/files/held.pdf').expect(200);
    const forAdmin = (await admin.get('/api/attachments?perPage=500').expect(200)).body.items.find((i: { path: string }) => i.path === 'held.pdf');
    expect(forAdmin.pages).toEqual([{ slug: 'holder', title: 'Holder', inTrash: true }]);
    expect((await reader.get('/api/attachments?perPage=500').expect(200)).body.items.map((i: { path: string }) => i.path)).not.toContain('held.pdf');
    // The live preview does not reveal it either (only to whoever may read it).
    expect((await reader.post('/api/preview').send({ body: '![[held.pdf]]' }).expect(200)).body.html).toContain('file-missing');
    expect((await admin.post('/api/preview').send({ body: '![[held.pdf]]' }).expect(200)).body.html).toContain('src="/files/held.pdf"');
    await author.post('/api/pages/holder/restore').expect(201);
    await reader.get('/files/held.pdf').expect(200);
    // A second, live page keeps a file readable when the first goes to the trash.
    await author.post('/api/pages').send({ title: 'Second Holder', body: '[[held.pdf]]' }).expect(201);
    await author.delete('/api/pages/holder').expect(204);
    await reader.get('/files/held.pdf').expect(200);
  });

  it('treats a file only soft-excluded pages use as those pages are treated: readable as wiki content, kept out of the knowledge graph', async () => {
    const created = await author.post('/api/pages').send({ title: 'Secret Plan', body: '---\ncluster: secret\n---\n![[plan.png]]' }).expect(201);
    await admin.put('/admin/kg-policy/clusters/secret').send({ action: 'exclude', reason: 'private notes' }).expect(200);
    await upload(PNG, 'plan.png').expect(201);
    const excluded = await t.dataSource.query('SELECT reason FROM kg_excluded_pages WHERE page_id = $1', [created.body.id]);
    expect(excluded).toHaveLength(1);
    await reader.get('/page/secret-plan').expect(200);
    await reader.get('/files/plan.png').expect(200);
  });

  it('shows in the history which version added each file', async () => {
    await author.post('/api/pages').send({ title: 'Growing', body: 'Text only.' }).expect(201);
    await upload(PNG, 'growth/one.png').expect(201);
    await author.put('/api/pages/growing').send({ body: 'Text and ![[one.png]].', baseVersion: 1 }).expect(200);
    await author.put('/api/pages/growing').send({ body: 'Text and ![[one.png]], ![[two.pdf]].', baseVersion: 2 }).expect(200);
    await upload(PDF, 'growth/two.pdf').expect(201);
    const files = (await t.http.get('/api/pages/growing/attachments').expect(200)).body.items;
    expect(files.map((f: { path: string; addedInVersion: number }) => [f.path, f.addedInVersion])).toEqual([['growth/one.png', 2], ['growth/two.pdf', 3]]);
    const history = (await t.http.get('/page/growing/history').expect(200)).text;
    const rowOf = (version: number) => history.slice(history.indexOf(`>v${version}</a>`), history.indexOf('</tr>', history.indexOf(`>v${version}</a>`)));
    expect(rowOf(2)).toContain('added <a href="/files/growth/one.png">one.png</a>');
    expect(rowOf(3)).toContain('added <a href="/files/growth/two.pdf">two.pdf</a>');
    expect(rowOf(1)).not.toContain('added');
    await t.http.get('/api/pages/no-such-page/attachments').expect(404);
  });

  it('uploads from the editor without JavaScript: the form comes back with the text kept and the embed added, unsaved', async () => {
    await author.post('/api/pages').send({ title: 'Form Page', body: 'Stored text.' }).expect(201);
    const user = await t.user('author', { name: 'writer' });
    const { agent, csrfToken } = await t.login(user);
    const edit = (await agent.get('/page/form-page/edit').expect(200)).text;
    expect(edit).toMatch(/formaction="\/attachments\/upload\?page(=|&#x3D;)form-page"/);
    expect(edit).toContain('formenctype="multipart/form-data"');
    const typed = 'My unsaved edit, with ünïcode.';
    const res = await agent.post('/attachments/upload?page=form-page')
      .field('_csrf', csrfToken).field('baseVersion', '1').field('body', typed).field('message', 'a summary')
      .attach('file', PNG, 'form picture.png')
      .expect(200);
    expect(res.text).toContain(`${typed}\n\n![[form picture.png]]\n</textarea>`);
    expect(res.text).toContain('value="a summary"');
    expect(res.text).toContain('![[form picture.png]] was added to the end of the text. Save the page to keep it.');
    expect(res.text).toContain('src="/files/form%20picture.png"');
    // Nothing was saved yet.
    expect((await t.http.get('/api/pages/form-page').expect(200)).body.body).toBe('Stored text.');

    const tooBig = await agent.post('/attachments/upload?page=form-page')
      .field('_csrf', csrfToken).field('baseVersion', '1').field('body', typed).field('message', '')
      .attach('file', Buffer.alloc(33 * 1024, 1), 'huge.bin')
      .expect(413);
    expect(tooBig.text).toContain(`${typed}</textarea>`);
    expect(tooBig.text).toContain('KURATE_ATTACHMENTS_MAX_BYTES');
    const none = await agent.post('/attachments/upload?page=form-page').field('_csrf', csrfToken).field('baseVersion', '1').field('body', typed).expect(400);
    expect(none.text).toContain('Choose a file to upload first.');
    // Without the form's CSRF token the upload is refused, and the text still comes back.
    const forged = await agent.post('/attachments/upload?page=form-page').set('Accept', 'text/html').field('body', typed).attach('file', PNG, 'forged.png').expect(403);
    expect(forged.text).toContain(typed);
    // The new-page form works the same way.
    const fresh = await agent.post('/attachments/upload?new=1')
      .field('_csrf', csrfToken).field('title', 'Brand New').field('body', '').field('message', '')
      .attach('file', PDF, 'brand.pdf')
      .expect(200);
    expect(fresh.text).toContain('value="Brand New"');
    expect(fresh.text).toContain('![[brand.pdf]]\n</textarea>');
    // Drag and drop in the editor posts to the API with the session cookie and the CSRF header.
    const dropped = await agent.post('/api/attachments').set('x-csrf-token', csrfToken).attach('file', WAV, 'dropped.wav').expect(201);
    expect(dropped.body.embed).toBe('![[dropped.wav]]');
    await agent.post('/api/attachments').attach('file', WAV, 'dropped.wav').expect(403);
  });

  it('keeps files from anonymous readers when KURATE_PUBLIC_READ=false', async () => {
    const closed = await startTestApp({ env: { KURATE_PUBLIC_READ: 'false' } });
    try {
      const writer = await closed.as('author');
      await writer.post('/api/pages').send({ title: 'Closed', body: '![[c.png]]' }).expect(201);
      await writer.post('/api/attachments').attach('file', PNG, 'c.png').expect(201);
      await closed.http.get('/files/c.png').expect(401);
      await closed.http.get('/api/attachments').expect(401);
      await (await closed.as('reader')).get('/files/c.png').expect(200);
    } finally {
      await closed.close();
    }
  });
});
