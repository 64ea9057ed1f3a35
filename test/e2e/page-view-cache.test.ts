import type { NestExpressApplication } from '@nestjs/platform-express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.setup.js';
import { PageChangeFeed } from '../../src/pages/page-change-feed.js';
import { PageViewCache } from '../../src/pages/page-view-cache.js';
import { realPostgresUrl } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// Page views are cached until any page changes; these tests prove a reader never sees a stale page.
describe('rendered page cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('shows a link as resolved as soon as its target is created, and an edit at once', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Cache Home', body: 'See [[Cache Target]].' }).expect(201);
    const before = await t.http.get('/page/cache-home').expect(200);
    expect(before.text).toContain('wikilink-missing');
    await t.http.get('/page/cache-home').expect(200);
    await author.post('/api/pages').send({ title: 'Cache Target', body: 'here' }).expect(201);
    const after = await t.http.get('/page/cache-home').expect(200);
    expect(after.text).not.toContain('wikilink-missing');
    expect(after.text).toContain('href="/page/cache-target"');
    await author.put('/api/pages/cache-home').send({ body: 'Edited text.', baseVersion: 1 }).expect(200);
    expect((await t.http.get('/page/cache-home').expect(200)).text).toContain('Edited text.');
    const backlinks = await t.http.get('/page/cache-target').expect(200);
    expect(backlinks.text).not.toContain('Cache Home');
  });

  it('answers anonymous readers from memory with an ETag, and logged-in readers with their own header', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Etag Page', body: 'cache me' }).expect(201);
    const first = await t.http.get('/page/etag-page').expect(200);
    const second = await t.http.get('/page/etag-page').expect(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.etag).toBeTruthy();
    expect(second.headers['content-security-policy']).toContain("script-src 'self'");
    await t.http.get('/page/etag-page').set('If-None-Match', second.headers.etag).expect(304);
    const reader = await t.user('reader', { name: 'Rita Reader' });
    const { agent } = await t.login(reader);
    const mine = await agent.get('/page/etag-page').expect(200);
    expect(mine.text).toContain('Rita Reader');
    expect((await t.http.get('/page/etag-page').expect(200)).text).not.toContain('Rita Reader');
  });

  it('renders the page part of a logged-in view once per role, and the layout (name, CSRF token) for each user', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Role Page', body: 'Read by **roles**.' }).expect(201);
    const one = await t.login(await t.user('reader', { name: 'Rhea One' }));
    const two = await t.login(await t.user('reader', { name: 'Ravi Two' }));
    const writer = await t.login(await t.user('author', { name: 'Ada Writer' }));
    const main = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));

    const first = (await one.agent.get('/page/role-page').expect(200)).text;
    const model = t.app.get(PageViewCache).models.get('role-page');
    expect(model, 'the view model is cached').toBeDefined();
    expect(t.app.get(PageViewCache).bodyFor(model!, 'reader'), 'the page part is kept for the role').toContain('Read by <strong>roles</strong>.');
    const second = (await two.agent.get('/page/role-page').expect(200)).text;
    // Each user's own header and token around the same page part.
    expect(first).toContain('Rhea One');
    expect(first).not.toContain('Ravi Two');
    expect(second).toContain('Ravi Two');
    expect(second).not.toContain('Rhea One');
    expect(first).toContain(`name="csrf-token" content="${one.csrfToken}"`);
    expect(second).toContain(`name="csrf-token" content="${two.csrfToken}"`);
    expect(main(second)).toBe(main(first));
    expect(second.match(/<html/g)).toHaveLength(1);
    expect(second).toContain('<title>Role Page · Kurate</title>');
    // The role decides the page's actions: a reader has no Edit link, an author has.
    expect(main(first)).not.toContain('href="/page/role-page/edit"');
    const authored = (await writer.agent.get('/page/role-page').expect(200)).text;
    expect(main(authored)).toContain('href="/page/role-page/edit"');
    expect(authored).toContain('Ada Writer');
    // A notice is the request's own, never kept; an edit shows at once.
    expect((await writer.agent.get('/page/role-page?notice=saved').expect(200)).text).toContain('class="notice"');
    expect((await writer.agent.get('/page/role-page').expect(200)).text).not.toContain('class="notice"');
    await author.put('/api/pages/role-page').send({ body: 'Read again.', baseVersion: 1 }).expect(200);
    expect((await one.agent.get('/page/role-page').expect(200)).text).toContain('Read again.');
  });

  it('after a save that keeps the page\'s names, forgets only that page, the pages embedding it and those whose backlinks change', async () => {
    const author = await t.as('author');
    for (const title of ['Keep One', 'Keep Two', 'Keep Three', 'Keep Other']) {
      await author.post('/api/pages').send({ title, body: `${title} text.` }).expect(201);
    }
    await author.post('/api/pages').send({ title: 'Keep Source', body: 'See [[Keep One]] and [[Keep Two]].' }).expect(201);
    // A page that shows Keep Source's text inside its own (transclusion): its rendering follows Keep Source's.
    await author.post('/api/pages').send({ title: 'Keep Embedder', body: 'Embedded below.\n\n![[Keep Source]]' }).expect(201);
    const slugs = ['keep-source', 'keep-one', 'keep-two', 'keep-three', 'keep-other', 'keep-embedder'];
    for (const slug of slugs) await t.http.get(`/page/${slug}`).expect(200);
    const models = t.app.get(PageViewCache).models;
    expect(slugs.filter((slug) => models.get(slug) === undefined)).toEqual([]);

    const cached = () => slugs.filter((slug) => models.get(slug) !== undefined);
    const viewAll = async () => {
      for (const slug of slugs) await t.http.get(`/page/${slug}`).expect(200);
    };

    // Other words, the same links and cluster: no backlink changes, so the pages it links to stay cached.
    await author.put('/api/pages/keep-source').send({ body: 'See [[Keep One]] and, again, [[Keep Two]].', baseVersion: 1 }).expect(200);
    expect(cached()).toEqual(['keep-one', 'keep-two', 'keep-three', 'keep-other']);
    expect((await t.http.get('/page/keep-embedder').expect(200)).text).toContain('again,');

    // Links now to One and Three: Two loses a backlink and Three gains one; One's stays as it was.
    await viewAll();
    await author.put('/api/pages/keep-source').send({ body: 'See [[Keep One]] and [[Keep Three]].', baseVersion: 2 }).expect(200);
    expect(cached()).toEqual(['keep-one', 'keep-other']);
    expect((await t.http.get('/page/keep-two').expect(200)).text).not.toContain('Keep Source');
    expect((await t.http.get('/page/keep-three').expect(200)).text).toContain('href="/page/keep-source"');

    // The cluster its backlinks show changes: every page it links to is forgotten, with the same links.
    await viewAll();
    await author.put('/api/pages/keep-source').send({ body: '---\ncluster: kept\n---\nSee [[Keep One]] and [[Keep Three]].', baseVersion: 3 }).expect(200);
    expect(cached()).toEqual(['keep-two', 'keep-other']);
    expect((await t.http.get('/page/keep-source').expect(200)).text).toContain('href="/page/keep-three"');
    expect((await t.http.get('/page/keep-two').expect(200)).text).not.toContain('Keep Source');
    const three = (await t.http.get('/page/keep-three').expect(200)).text;
    expect(three).toMatch(/Keep Source<\/a> <span class="muted">kept<\/span>/);
    expect((await t.http.get('/page/keep-one').expect(200)).text).toMatch(/Keep Source<\/a> <span class="muted">kept<\/span>/);
    expect((await t.http.get('/page/keep-embedder').expect(200)).text).toContain('href="/page/keep-three"');

    // A new title changes how links elsewhere read: everything is forgotten.
    for (const slug of slugs) await t.http.get(`/page/${slug}`).expect(200);
    await author.put('/api/pages/keep-other').send({ body: '---\ntitle: Keep Renamed\n---\nOther.', baseVersion: 1 }).expect(200);
    expect(slugs.filter((slug) => models.get(slug) !== undefined)).toEqual([]);
  });

  describe.skipIf(!realPostgresUrl())('two app processes on one PostgreSQL', () => {
    let other: NestExpressApplication;
    beforeAll(async () => {
      other = await createApp(t.config);
      await other.init();
    });
    afterAll(() => other?.close());

    it('a page saved through one process is shown fresh by the other', async () => {
      const author = await t.as('author');
      await author.post('/api/pages').send({ title: 'Shared Page', body: 'first words' }).expect(201);
      const otherHttp = supertest(other.getHttpServer());
      expect((await otherHttp.get('/page/shared-page').expect(200)).text).toContain('first words');
      await author.put('/api/pages/shared-page').send({ body: 'second words', baseVersion: 1 }).expect(200);
      // The other process hears of the commit through LISTEN/NOTIFY, a moment later.
      let text = '';
      for (let i = 0; i < 50 && !text.includes('second words'); i++) {
        text = (await otherHttp.get('/page/shared-page').expect(200)).text;
        if (!text.includes('second words')) await new Promise((r) => setTimeout(r, 20));
      }
      expect(text).toContain('second words');
    });

    it('a save that names the pages it changed makes the other forget exactly those', async () => {
      const author = await t.as('author');
      const feed = other.get(PageChangeFeed);
      const heardBefore = feed.epoch;
      await author.post('/api/pages').send({ title: 'Named Target', body: 'target' }).expect(201);
      await author.post('/api/pages').send({ title: 'Named Source', body: 'plain' }).expect(201);
      await author.post('/api/pages').send({ title: 'Named Bystander', body: 'bystander' }).expect(201);
      // Each creation makes the other process forget everything: views once it has heard of all three.
      for (let i = 0; i < 250 && feed.epoch < heardBefore + 3; i++) await new Promise((r) => setTimeout(r, 20));
      const otherHttp = supertest(other.getHttpServer());
      const models = other.get(PageViewCache).models;
      const slugs = ['named-target', 'named-source', 'named-bystander'];
      for (const slug of slugs) await otherHttp.get(`/page/${slug}`).expect(200);
      expect(slugs.filter((slug) => models.get(slug) === undefined)).toEqual([]);
      await author.put('/api/pages/named-source').send({ body: 'Now links to [[Named Target]].', baseVersion: 1 }).expect(200);
      let backlinks = '';
      for (let i = 0; i < 50 && !backlinks.includes('Named Source'); i++) {
        backlinks = (await otherHttp.get('/page/named-target').expect(200)).text;
        if (!backlinks.includes('Named Source')) await new Promise((r) => setTimeout(r, 20));
      }
      expect(backlinks).toContain('Named Source');
      expect((await otherHttp.get('/page/named-source').expect(200)).text).toContain('Now links to');
      expect(models.get('named-bystander')).toBeDefined();
    });

    it('an edit of an embedded page through one process shows in the embedding page on the other', async () => {
      const author = await t.as('author');
      await author.post('/api/pages').send({ title: 'Embedded Part', body: '## Part\n\nold embedded words' }).expect(201);
      await author.post('/api/pages').send({ title: 'Embedding Page', body: '![[Embedded Part#Part]]' }).expect(201);
      const otherHttp = supertest(other.getHttpServer());
      expect((await otherHttp.get('/page/embedding-page').expect(200)).text).toContain('old embedded words');
      expect((await otherHttp.get('/api/pages/embedding-page?render=true').expect(200)).body.html).toContain('old embedded words');
      await author.put('/api/pages/embedded-part').send({ body: '## Part\n\nnew embedded words', baseVersion: 1 }).expect(200);
      // The render cache's key changed with the embedded page's version; the page view cache hears of it by NOTIFY.
      expect((await otherHttp.get('/api/pages/embedding-page?render=true').expect(200)).body.html).toContain('new embedded words');
      let text = '';
      for (let i = 0; i < 50 && !text.includes('new embedded words'); i++) {
        text = (await otherHttp.get('/page/embedding-page').expect(200)).text;
        if (!text.includes('new embedded words')) await new Promise((r) => setTimeout(r, 20));
      }
      expect(text).toContain('new embedded words');
      expect(text).not.toContain('old embedded words');
    });
  });

  describe('with public reading off', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ env: { KURATE_PUBLIC_READ: 'false' } });
    });
    afterAll(() => closed.close());

    it('never serves a cached page to an anonymous visitor', async () => {
      const author = await closed.as('author');
      await author.post('/api/pages').send({ title: 'Private Page', body: 'secret' }).expect(201);
      await author.get('/page/private-page').expect(200);
      const anonymous = await closed.http.get('/page/private-page').set('Accept', 'text/html');
      expect(anonymous.status).toBe(303);
      expect(anonymous.text).not.toContain('secret');
    });
  });
});

if (!realPostgresUrl()) console.warn('page-view-cache: the two-process test runs only on real PostgreSQL (set DATABASE_URL).');
