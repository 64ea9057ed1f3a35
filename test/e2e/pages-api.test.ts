import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Agent } from 'supertest';
import { SearchRepository } from '../../src/search/search.repository.js';
import { BUCKETS, MAX_FINE_KEYS } from '../../src/db/advisory-locks.js';
import { ON_POSTGRES } from '../support/lock-gate.js';
import { PageLinksRepository } from '../../src/pages/page-links.repository.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('pages REST API', () => {
  let t: TestApp;
  let author: Agent;
  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_MAX_BODY_BYTES: '65536' } });
    author = await t.as('author', { name: 'ada' });
  });
  afterAll(() => t.close());

  const create = (body: string, title?: string, message?: string) => author.post('/api/pages').send({ title, body, message });

  describe('create and read', () => {
    it('creates a page from a title and Markdown, slugged and attributed', async () => {
      const res = await create('Hello **world**', 'Getting Started', 'first draft').expect(201);
      expect(res.body).toMatchObject({ slug: 'getting-started', title: 'Getting Started', version: 1, createdBy: 'ada', url: '/page/getting-started' });
      const got = await t.http.get('/api/pages/getting-started').expect(200);
      expect(got.body.body).toBe('Hello **world**');
    });

    it('takes title, cluster, tags, aliases, type and extra keys from the frontmatter', async () => {
      const body = '---\ntitle: Über Café\ncluster: places/europe\ntags: [coffee, travel]\naliases: [Cafe Uber]\ntype: place\nrating: 5\n---\n# Hi\n';
      const res = await create(body, 'ignored').expect(201);
      expect(res.body).toMatchObject({
        slug: 'über-café', title: 'Über Café', cluster: 'places/europe', clusters: ['places/europe'],
        tags: ['coffee', 'travel'], aliases: ['Cafe Uber'], type: 'place', isSystem: false,
      });
      expect(res.body.frontmatter.rating).toBe(5);
      await t.http.get(`/api/pages/${encodeURIComponent('über-café')}`).expect(200);
    });

    it('rejects invalid YAML with a 400 that names the line, and saves nothing', async () => {
      const res = await create('---\ntitle: Broken\ntags: [a, b\n---\ntext').expect(400);
      expect(res.body.code).toBe('invalid_frontmatter');
      expect(res.body.message).toMatch(/line \d+/);
      expect(typeof res.body.line).toBe('number');
      await t.http.get('/api/pages/broken').expect(404);
    });

    it('refuses a duplicate title with 409, a title without letters with 400, unknown fields with 400', async () => {
      const dup = await create('again', 'Getting Started').expect(409);
      expect(dup.body).toMatchObject({ code: 'slug_taken' });
      await create('x', '!!!').expect(400);
      const extra = await author.post('/api/pages').send({ title: 'X', body: 'y', admin: true }).expect(400);
      expect(extra.body.message).toMatch(/property admin should not exist/);
      await author.post('/api/pages').send({ title: 'No body' }).expect(400);
    });

    it('refuses a NUL in the title with 400 naming it, keeps one in the source as U+FFFD, and gives a page titled "New" a slug that is not the new-page form', async () => {
      const nul = await create('hello', 'Nul\u0000Page').expect(400);
      expect(nul.body).toMatchObject({ field: 'title' });
      expect(nul.body.message).toMatch(/NUL/);
      const kept = await create('a\u0000b', 'Nul Page').expect(201);
      expect(kept.body.body).toBe('a\uFFFDb');
      const page = await create('hello', 'New').expect(201);
      expect(page.body.slug).toBe('new-page');
    });

    it('takes direction controls and invisible separators out of titles (written, in the frontmatter, or renamed): a title is what it looks like', async () => {
      // U+202E (right-to-left override) would show `Invoice\u202Egnp.exe` as `Invoiceexe.png`.
      const spoof = await create('x', 'Invoice\u202Egnp.exe').expect(201);
      expect(spoof.body).toMatchObject({ title: 'Invoicegnp.exe', slug: 'invoicegnp-exe' });
      // A zero-width space inside a taken title is the same title.
      const twin = await create('x', 'Invoice\u200Bgnp.exe').expect(409);
      expect(twin.body).toMatchObject({ code: 'slug_taken' });
      const fm = await create('---\ntitle: "Quarterly\u2066 Report\u2069\u200F"\n---\nText.', undefined).expect(201);
      expect(fm.body.title).toBe('Quarterly Report');
      // Joiners stay: scripts and emoji need them (U+200C in Persian, U+200D in emoji sequences).
      const joined = await create('x', 'می\u200Cخواهم 👩\u200D💻').expect(201);
      expect(joined.body.title).toBe('می\u200Cخواهم 👩\u200D💻');
      const renamed = await author.post(`/api/pages/${fm.body.slug}/rename`).send({ title: '\uFEFFAnnual\u202D Report' }).expect(201);
      expect(renamed.body).toMatchObject({ title: 'Annual Report', slug: 'annual-report' });
      expect((await t.http.get('/api/pages/annual-report').expect(200)).body.body).toContain('title: "Annual Report"');
    });

    it('answers malformed JSON and oversized bodies with clear 4xx, not 500', async () => {
      const bad = await author.post('/api/pages').set('content-type', 'application/json').send('{"title": ').expect(400);
      expect(bad.body.message).toBeTruthy();
      const big = await create('x'.repeat(70_000), 'Too Big').expect(413);
      expect(big.body.message).toMatch(/too large/);
    });

    it('rejects path traversal and non-canonical slugs, and 404s unknown pages', async () => {
      await t.http.get('/api/pages/..%2F..%2Fetc%2Fpasswd').expect(400);
      await t.http.get('/api/pages/Getting%20Started').expect(400);
      const missing = await t.http.get('/api/pages/no-such-page').expect(404);
      expect(missing.body.message).toMatch(/no page/);
    });
  });

  describe('editing with optimistic concurrency', () => {
    it('saves from the current version and keeps every revision', async () => {
      await create('one', 'Versioned').expect(201);
      const v2 = await author.put('/api/pages/versioned').send({ body: 'two', baseVersion: 1, message: 'second' }).expect(200);
      expect(v2.body).toMatchObject({ version: 2, changed: true });
      const history = await t.http.get('/api/pages/versioned/history').expect(200);
      expect(history.body.items.map((r: { version: number; message: string; author: string }) => [r.version, r.message, r.author])).toEqual([
        [2, 'second', 'ada'],
        [1, 'Created', 'ada'],
      ]);
    });

    it('answers a stale save with 409, the other text and yours, and loses nothing', async () => {
      // A base version is a number (or a form's digits): true is not version 1, nor [1] (they once were).
      for (const baseVersion of [true, [1], '1.0x', '', { v: 1 }]) {
        const refused = await author.put('/api/pages/versioned').send({ body: 'typed wrong', baseVersion }).expect(400);
        expect(refused.body.message, JSON.stringify(baseVersion)).toMatch(/baseVersion must be an integer/);
      }
      await t.http.get('/api/search').query({ q: 'x', page: ['2', '3'] }).expect(400);
      const stale = await author.put('/api/pages/versioned').send({ body: 'my edit', baseVersion: 1 }).expect(409);
      expect(stale.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, currentBody: 'two', yourBody: 'my edit', baseVersion: 1 });
      expect((await t.http.get('/api/pages/versioned')).body.body).toBe('two');
    });

    it('lets exactly one of two concurrent saves from the same version win', async () => {
      const results = await Promise.all([
        author.put('/api/pages/versioned').send({ body: 'alice', baseVersion: 2 }),
        author.put('/api/pages/versioned').send({ body: 'bob', baseVersion: 2 }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const history = await t.http.get('/api/pages/versioned/history');
      expect(history.body.items).toHaveLength(3);
    });

    it('writes no revision when nothing changed', async () => {
      const page = (await t.http.get('/api/pages/versioned')).body;
      const res = await author.put('/api/pages/versioned').send({ body: page.body, baseVersion: page.version }).expect(200);
      expect(res.body).toMatchObject({ changed: false, version: page.version });
    });

    it('shows a revision, diffs two, and restores an old one as a new revision', async () => {
      const rev = await t.http.get('/api/pages/versioned/revisions/1').expect(200);
      expect(rev.body).toMatchObject({ version: 1, body: 'one' });
      const diff = await t.http.get('/api/pages/versioned/diff?from=1&to=2').expect(200);
      expect(diff.body).toMatchObject({ added: 1, removed: 1 });
      expect(diff.body.hunks[0].lines).toEqual([
        { kind: 'removed', oldNumber: 1, newNumber: null, text: 'one' },
        { kind: 'added', oldNumber: null, newNumber: 1, text: 'two' },
      ]);
      const restored = await author.post('/api/pages/versioned/revisions/1/restore').expect(201);
      expect(restored.body).toMatchObject({ body: 'one', version: 4, changed: true });
      await t.http.get('/api/pages/versioned/revisions/99').expect(404);
      await t.http.get('/api/pages/versioned/revisions/99999999999').expect(400);
      await t.http.get('/api/pages/versioned/diff?from=1&to=99999999999').expect(400);
      await t.http.get('/api/pages/versioned/diff?from=1').expect(400);
    });
  });

  describe('the Page Graph', () => {
    it('resolves links by slug, title or alias, case-insensitively, and reports the broken ones', async () => {
      await create('---\naliases: [PG]\n---\nThe graph of pages.', 'Page Graph').expect(201);
      await create('See [[page graph]], [[PG|the graph]], [[Page Graph#Backlinks]], [relative](page-graph.md) and [[Wanted Thing]].\n\n![[Page Graph]]\n', 'Linker').expect(201);
      const links = await t.http.get('/api/pages/linker/links').expect(200);
      expect(links.body.items.map((l: { targetKey: string; page: { slug: string } | null }) => [l.targetKey, l.page?.slug ?? null])).toEqual([
        ['page-graph', 'page-graph'],
        ['pg', 'page-graph'],
        ['wanted-thing', null],
      ]);
      const backlinks = await t.http.get('/api/pages/page-graph/backlinks').expect(200);
      expect(backlinks.body.items).toEqual([{ slug: 'linker', title: 'Linker', cluster: null }]);
      const wanted = await t.http.get('/api/reports/wanted').expect(200);
      expect(wanted.body.items).toContainEqual({ targetKey: 'wanted-thing', target: 'Wanted Thing', wantedBy: 1, fromPages: [{ slug: 'linker', title: 'Linker', cluster: null }] });
    });

    it('turns broken links into resolved ones the moment the page is created', async () => {
      await create('Me too: [[Wanted Thing]]', 'Second Linker').expect(201);
      expect((await t.http.get('/api/reports/wanted')).body.items.find((w: { targetKey: string }) => w.targetKey === 'wanted-thing').wantedBy).toBe(2);
      await create('Finally here.', 'Wanted Thing').expect(201);
      const wanted = await t.http.get('/api/reports/wanted').expect(200);
      expect(wanted.body.items.map((w: { targetKey: string }) => w.targetKey)).not.toContain('wanted-thing');
      const backlinks = await t.http.get('/api/pages/wanted-thing/backlinks').expect(200);
      expect(backlinks.body.items.map((p: { slug: string }) => p.slug)).toEqual(['linker', 'second-linker']);
    });

    it('locks 20,000 link keys in one write by their buckets (never the whole lock table), and a few keys one by one', async () => {
      const held = (keys: string[]) =>
        t.dataSource.transaction(async (tx) => {
          await t.app.get(PageLinksRepository).lockKeys({ changes: keys, reads: [] }, tx);
          return Number((await tx.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`))[0].n);
        });
      // Besides the keys' locks, the write holds one more: the page decision gate (src/db/page-decision-gate.ts).
      expect(await held(Array.from({ length: 20_000 }, (_, i) => `far-target-${i}`))).toBeLessThanOrEqual(BUCKETS + 1);
      expect(await held(Array.from({ length: MAX_FINE_KEYS }, (_, i) => `near-target-${i}`))).toBeLessThanOrEqual(2 * MAX_FINE_KEYS + 1);
    });

    it.runIf(ON_POSTGRES)('lets two writes of different link keys go on at once, and makes a write of the same key, or of thousands, wait', async () => {
      const runner = t.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        // A hundred keys each: their buckets overlap for certain, the keys do not.
        const some = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}-${i}`);
        await t.app.get(PageLinksRepository).lockKeys({ changes: some('held'), reads: some('linked') }, runner.manager);
        const waits = (changes: string[], reads: string[] = []) =>
          t.dataSource.transaction(async (tx) => {
            await tx.query(`SET LOCAL lock_timeout = '300ms'`);
            return t.app.get(PageLinksRepository).lockKeys({ changes, reads }, tx).then(() => false, () => true);
          });
        expect(await waits(some('free'))).toBe(false);
        expect(await waits(['free-key', 'held-7'])).toBe(true);
        expect(await waits(Array.from({ length: 5_000 }, (_, i) => `many-${i}`))).toBe(true);
        // A key held to be read (a page links to it): other writes that read it go on; one that changes it waits.
        expect(await waits([], ['linked-3', 'linked-9', 'free-key'])).toBe(false);
        expect(await waits(['other-free'], ['linked-3'])).toBe(false);
        expect(await waits(['linked-3'])).toBe(true);
        // A key held to be changed: a write that only reads it waits too.
        expect(await waits([], ['held-7'])).toBe(true);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it('lists orphans and hubs', async () => {
      const hubs = await t.http.get('/api/reports/hubs').expect(200);
      expect(hubs.body.items.slice(0, 2)).toEqual([
        { slug: 'wanted-thing', title: 'Wanted Thing', cluster: null, inbound: 2 },
        { slug: 'page-graph', title: 'Page Graph', cluster: null, inbound: 1 },
      ]);
      const orphans = await t.http.get('/api/reports/orphans?perPage=500').expect(200);
      const slugs = orphans.body.items.map((p: { slug: string }) => p.slug);
      expect(slugs).toContain('linker');
      expect(slugs).not.toContain('wanted-thing');
      expect(orphans.body.total).toBe(slugs.length);
    });

    it('gives a page neighbourhood for the graph view, one or two hops', async () => {
      const one = await t.http.get('/api/pages/wanted-thing/graph').expect(200);
      expect(one.body.nodes.map((n: { slug: string }) => n.slug).sort()).toEqual(['linker', 'second-linker', 'wanted-thing']);
      expect(one.body.edges).toContainEqual({ from: 'linker', to: 'wanted-thing' });
      const two = await t.http.get('/api/pages/wanted-thing/graph?hops=2').expect(200);
      expect(two.body.nodes.map((n: { slug: string }) => n.slug)).toContain('page-graph');
      await t.http.get('/api/pages/wanted-thing/graph?hops=5').expect(400);
    });

    it('renders links: resolved ones to the page, missing ones to "create this page"', async () => {
      const res = await t.http.get('/api/pages/linker?render=true').expect(200);
      expect(res.body.html).toContain('href="/page/page-graph"');
      expect(res.body.html).toContain('href="/page/page-graph#backlinks"');
      // The embed shows the embedded page's text, with a link to it (transclusion).
      expect(res.body.html).toContain('<div class="transclusion"><div class="transclusion-source"><a class="wikilink transclusion-link" href="/page/page-graph">Page Graph</a>');
      expect(res.body.html).toContain('<p>The graph of pages.</p>');
      const preview = await t.http.post('/api/preview').send({ body: '[[Page Graph]] and [[Nowhere Yet]]' }).expect(200);
      expect(preview.body.html).toContain('href="/page/page-graph"');
      const badPreview = await t.http.post('/api/preview').send({ body: '---\ntags: [a\n---\ntext' }).expect(400);
      expect(badPreview.body.message).toMatch(/line \d/);
      expect(preview.body.html).toMatch(/wikilink-missing[^>]*href="\/page\/new\?title=Nowhere%20Yet"|href="\/page\/new\?title=Nowhere%20Yet"[^>]*wikilink-missing/);
    });
  });

  describe('rename, trash and restore', () => {
    it('renames: the old slug redirects and incoming links can be rewritten', async () => {
      await create('Target text', 'Old Name').expect(201);
      await create('Go to [[Old Name]] or [[old name|there]].', 'Pointer').expect(201);
      // A yes-or-no field that is neither is refused, not read as "no" (it renamed without rewriting, silently).
      for (const rewriteLinks of ['yes', 2, 'nope']) {
        const refused = await author.post('/api/pages/old-name/rename').send({ title: 'New Name', rewriteLinks }).expect(400);
        expect(refused.body.message).toMatch(/rewriteLinks/);
      }
      await t.http.get('/api/pages/old-name').expect(200);
      const renamed = await author.post('/api/pages/old-name/rename').send({ title: 'New Name', rewriteLinks: true }).expect(201);
      expect(renamed.body).toMatchObject({ slug: 'new-name', title: 'New Name', rewrittenPages: ['pointer'] });
      const pointer = await t.http.get('/api/pages/pointer').expect(200);
      expect(pointer.body.body).toBe('Go to [[New Name]] or [[New Name|there]].');
      expect((await t.http.get('/api/pages/new-name/backlinks')).body.items.map((p: { slug: string }) => p.slug)).toEqual(['pointer']);
      await t.http.get('/page/old-name').expect(301).expect('location', '/page/new-name');
    });

    it('moves a deleted page to the trash, breaks links to it, and restores it', async () => {
      await author.delete('/api/pages/wanted-thing').expect(204);
      await t.http.get('/api/pages/wanted-thing').expect(404);
      expect((await author.get('/api/trash').expect(200)).body.items.map((p: { slug: string }) => p.slug)).toContain('wanted-thing');
      // What authors took back is not for every reader: its text is gone from every other route too.
      await t.http.get('/api/trash').expect(401);
      await (await t.as('reader')).get('/api/trash').expect(403);
      await t.http.get('/trash').set('Accept', 'text/html').expect((res) => expect([302, 303, 401]).toContain(res.status));
      await (await t.as('reader')).get('/trash').set('Accept', 'text/html').expect(403);
      expect((await t.http.get('/api/reports/wanted')).body.items.map((w: { targetKey: string }) => w.targetKey)).toContain('wanted-thing');
      const conflict = await create('new', 'Wanted Thing').expect(409);
      expect(conflict.body.code).toBe('page_in_trash');
      await author.post('/api/pages/wanted-thing/restore').expect(201);
      expect((await t.http.get('/api/pages/wanted-thing/backlinks')).body.items).toHaveLength(2);
      await author.post('/api/pages/wanted-thing/restore').expect(409);
    });
  });

  describe('lists, search and health', () => {
    it('lists pages with pagination and cluster/tag filters', async () => {
      const all = await t.http.get('/api/pages?perPage=2&page=1').expect(200);
      expect(all.body.items).toHaveLength(2);
      expect(all.body.total).toBeGreaterThan(5);
      const byCluster = await t.http.get('/api/pages?cluster=places/europe').expect(200);
      expect(byCluster.body.items.map((p: { slug: string }) => p.slug)).toEqual(['über-café']);
      const byTag = await t.http.get('/api/pages?tag=coffee').expect(200);
      expect(byTag.body.total).toBe(1);
      await t.http.get('/api/pages?perPage=100000').expect(400);
      const facets = await t.http.get('/api/facets').expect(200);
      expect(facets.body.clusters).toContainEqual({ name: 'places/europe', count: 1 });
    });

    it('searches titles and bodies with highlighted, escaped snippets', async () => {
      await create('The <script>alert(1)</script> quick brown fox jumps over the lazy dog.', 'Fox Facts').expect(201);
      const res = await t.http.get('/api/search?q=fox').expect(200);
      expect(res.body.hits[0]).toMatchObject({ slug: 'fox-facts', title: 'Fox Facts' });
      expect(res.body.hits[0].snippetHtml).toContain('<mark>fox</mark>');
      expect(res.body.hits[0].snippetHtml).not.toContain('<script>');
      await create('---\ncluster: zoo\ntags: [fox]\n---\nAnother fox story.', 'Fox Two').expect(201);
      const withFrontmatter = await t.http.get('/api/search?q=story').expect(200);
      expect(withFrontmatter.body.hits[0].snippetHtml).toMatch(/^Another fox <mark>story<\/mark>/);
      const question = await t.http.get('/api/search?q=' + encodeURIComponent('which animal is quick and brown?')).expect(200);
      expect(question.body.hits.map((h: { slug: string }) => h.slug)).toContain('fox-facts');
      const injection = await t.http.get('/api/search?q=' + encodeURIComponent("'; DROP TABLE pages; --")).expect(200);
      expect(Array.isArray(injection.body.hits)).toBe(true);
      await t.http.get('/api/pages/fox-facts').expect(200);
    });

    it('lists recent changes and checks the database on /health', async () => {
      const recent = await t.http.get('/api/recent-changes?perPage=3').expect(200);
      expect(recent.body.items).toHaveLength(3);
      expect(recent.body.items[0].slug).toBe('fox-two');
      await t.http.get('/health').expect(200, { status: 'ok', database: 'ok' });
    });

    it('shows a repeated search the same snippets without asking the database again, and an edited page its new text', async () => {
      await create('Otters hold hands while they sleep. They float on their backs in kelp.', 'Otter Habits').expect(201);
      const repository = t.app.get(SearchRepository);
      const marked = vi.spyOn(repository, 'markSentences');
      try {
        const first = await t.http.get('/api/search?q=otters+sleep').expect(200);
        expect(first.body.hits[0].snippetHtml).toContain('<mark>Otters</mark> hold hands while they <mark>sleep</mark>');
        expect(marked).toHaveBeenCalledTimes(1);
        const again = await t.http.get('/api/search?q=otters+sleep').expect(200);
        expect(again.body.hits[0].snippetHtml).toBe(first.body.hits[0].snippetHtml);
        expect(marked).toHaveBeenCalledTimes(1);
        // Other words over the same text are a snippet of their own.
        const other = await t.http.get('/api/search?q=kelp').expect(200);
        expect(other.body.hits[0].snippetHtml).toContain('<mark>kelp</mark>');
        expect(marked).toHaveBeenCalledTimes(2);
        await author.put('/api/pages/otter-habits').send({ body: 'Otters sleep in rafts, wrapped in seaweed.', baseVersion: 1 }).expect(200);
        const edited = await t.http.get('/api/search?q=otters+sleep').expect(200);
        expect(edited.body.hits[0].snippetHtml).toContain('<mark>Otters</mark> <mark>sleep</mark> in rafts');
        expect(marked).toHaveBeenCalledTimes(3);
      } finally {
        marked.mockRestore();
      }
    });

    it('documents the API with OpenAPI', async () => {
      const doc = await t.http.get('/api/docs/openapi.json').expect(200);
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/pages', '/api/pages/{slug}', '/api/pages/{slug}/diff', '/api/search', '/health']));
    });
  });
});
