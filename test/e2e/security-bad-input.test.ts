// @module-tag slow (drives Chromium, and renders pathological pages): `npm run test:fast` leaves it out; docs/testing.md
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Agent, Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What an attacker sends over HTTP: script in every text a page carries, SQL in every parameter, paths that try to
 * climb out, bodies too large, bytes that are not UTF-8, Markdown built to be slow. Each gets a clear 4xx or a
 * correct answer: never a 500, never a hang, never script running in a browser.
 */

// From the OWASP XSS filter evasion cheat sheet, each trying to call alert() or set window.__xss.
const XSS = [
  '<script>alert(1);window.__xss=1</script>',
  '<img src=x onerror="alert(1);window.__xss=1">',
  '<svg/onload=alert(1)>',
  '"><script>alert(1)</script>',
  "'><img src=x onerror=alert(1)>",
  '<a href="javascript:alert(1)">click</a>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<body onload=alert(1)>',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<IMG SRC=`javascript:alert(1)`>',
  '<<SCRIPT>alert(1);//<</SCRIPT>',
  '<IMG """><SCRIPT>alert(1)</SCRIPT>">',
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<object data="javascript:alert(1)"></object>',
  '<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert(1);">',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<input autofocus onfocus=alert(1)>',
  '</textarea><script>alert(1)</script>',
  '</title><script>alert(1)</script>',
  '{{constructor.constructor("alert(1)")()}}',
];

const SQLI = [
  "' OR '1'='1",
  "'; DROP TABLE pages; --",
  "1); DELETE FROM users; --",
  "'; SELECT pg_sleep(10); --",
  "%' OR 1=1 --",
  '$$; DROP TABLE audit_log; $$',
  "\\'; TRUNCATE page_revisions; --",
  "admin'--",
];

const TRAVERSAL = ['../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '....//....//etc/passwd', '..\\..\\windows\\win.ini', '%252e%252e%252fetc%252fpasswd'];

/**
 * The real tags of an HTML text (escaped text such as `&lt;img onerror=…&gt;` holds no tag) that could run script:
 * an event handler attribute, a javascript: URL, or an element that embeds or redirects.
 */
function dangerousTags(html: string): string[] {
  return [...html.matchAll(/<[a-zA-Z][^<>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => /\son[a-z]+\s*=/i.test(tag) || /\s(href|src|action|formaction|data|xlink:href)\s*=\s*["']?\s*(javascript|vbscript|data:text\/html)/i.test(tag) || /^<(iframe|object|embed|frame|base|meta\s+http-equiv)/i.test(tag));
}

function noServerError(res: Response, what: string): void {
  if (res.status >= 500) throw new Error(`${what} answered ${res.status}: ${res.text.slice(0, 300)}`);
}

describe('bad input over HTTP', () => {
  let t: TestApp;
  let author: Agent;
  let admin: Agent;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    author = await t.as('author', { name: '<img src=x onerror=alert(1)>' });
    admin = await t.as('admin');
  });
  afterAll(() => t.close());

  const counts = async () => {
    const rows: { pages: number; revisions: number; users: number; audit: number }[] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM pages) AS pages, (SELECT count(*)::int FROM page_revisions) AS revisions,
              (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM audit_log) AS audit`,
    );
    return rows[0];
  };

  describe('script in titles, bodies, frontmatter, link labels and search', () => {
    const slugs: string[] = [];

    beforeAll(async () => {
      await author.post('/api/pages').send({ title: 'Target', body: 'The link target.' }).expect(201);
      for (const [i, payload] of XSS.entries()) {
        const frontmatter = `---\ntitle: ${JSON.stringify(`XSS ${i} ${payload}`)}\ntags: [${JSON.stringify(payload)}]\naliases: [${JSON.stringify(`alias ${i} ${payload}`)}]\ncluster: ${JSON.stringify(`c${i}`)}\nnote: ${JSON.stringify(payload)}\n---\n`;
        const body = `${frontmatter}# ${payload}\n\n${payload}\n\n[[Target|${payload}]] and [[${payload}]] and [label](${payload}) and ![img](${payload})\n\n| ${payload} |\n|---|\n| ${payload} |\n`;
        const res = await author.post('/api/pages').send({ title: `ignored ${i}`, body });
        noServerError(res, `creating XSS page ${i}`);
        if (res.status === 201) slugs.push(res.body.slug);
      }
      expect(slugs.length).toBeGreaterThan(XSS.length / 2);
    });

    it('escapes or strips them in the server-rendered HTML', async () => {
      const urls = [
        '/', '/pages', '/recent', '/reports', '/trash', ...slugs.flatMap((s) => [`/page/${encodeURIComponent(s)}`, `/page/${encodeURIComponent(s)}/history`]),
        ...XSS.map((p) => `/search?q=${encodeURIComponent(p)}`), `/pages?tag=${encodeURIComponent(XSS[1])}`, `/page/new?title=${encodeURIComponent(XSS[0])}`,
        '/tags', ...XSS.map((p) => `/tags/${encodeURIComponent(p)}`),
      ];
      for (const url of urls) {
        const res = await author.get(url).set('Accept', 'text/html');
        noServerError(res, url);
        const html = res.text;
        // The only scripts are our own files; no event handler attribute and no javascript: URL survives.
        const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
        expect(scripts.every((s) => /^<script src="\/static\/[^"]+"( defer)?>$/.test(s)), `${url}: ${scripts.join(' ')}`).toBe(true);
        expect(dangerousTags(html), url).toEqual([]);
      }
    });

    it('returns them as data in JSON (escaped by JSON, rendered HTML sanitised)', async () => {
      for (const slug of slugs.slice(0, 5)) {
        const res = await t.http.get(`/api/pages/${encodeURIComponent(slug)}?render=true`).expect(200);
        expect(dangerousTags(res.body.html)).toEqual([]);
        expect(res.body.html).not.toMatch(/<script/i);
      }
      const preview = await t.http.post('/api/preview').send({ body: XSS.join('\n\n') }).expect(200);
      expect(dangerousTags(preview.body.html)).toEqual([]);
      expect(preview.body.html).not.toMatch(/<script/i);
    });

    describe.skipIf(!existsSync('/usr/bin/chromium'))('in a real browser', () => {
      let context: BrowserContext;
      let userDataDir: string;
      const dialogs: string[] = [];

      beforeAll(async () => {
        userDataDir = mkdtempSync(path.join(tmpdir(), 'kurate-xss-'));
        context = await chromium.launchPersistentContext(userDataDir, {
          executablePath: '/usr/bin/chromium',
          headless: true,
          args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        });
      });
      afterAll(async () => {
        await context?.close();
        if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
      });

      async function visit(page: Page, url: string): Promise<void> {
        await page.goto(`${t.baseUrl}${url}`, { waitUntil: 'load' });
        await page.waitForTimeout(50);
        const injected = await page.evaluate(() => ({
          flag: (window as unknown as { __xss?: number }).__xss ?? null,
          scripts: [...document.scripts].map((s) => s.src || 'inline').filter((src) => !src.includes('/static/')),
          handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName} ${a.name}`)),
          frames: document.querySelectorAll('iframe, object, embed').length,
          jsLinks: [...document.querySelectorAll('[href], [src]')].map((el) => el.getAttribute('href') ?? el.getAttribute('src') ?? '').filter((v) => /^\s*javascript:/i.test(v)),
        }));
        expect(injected, url).toEqual({ flag: null, scripts: [], handlers: [], frames: 0, jsLinks: [] });
      }

      it('runs none of them: no dialog opens and no injected element exists', async () => {
        const page = await context.newPage();
        // What is tested is what runs, not how fast: a page load on a CI machine busy with every other test file once
        // took longer than 8 s (2026-12-06), so each load may take up to 30 s of the test's 120.
        page.setDefaultTimeout(30_000);
        page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
        for (const url of ['/', '/pages', '/recent', ...slugs.map((s) => `/page/${encodeURIComponent(s)}`), ...XSS.slice(0, 8).map((p) => `/search?q=${encodeURIComponent(p)}`)]) {
          await visit(page, url);
        }
        expect(dialogs).toEqual([]);
        await page.close();
      }, 120_000);
    });
  });

  describe('SQL injection strings', () => {
    it('answers them normally in every text parameter, quickly, and leaves the data intact', async () => {
      await author.post('/api/pages').send({ title: 'Intact', body: 'Still here.' }).expect(201);
      const before = await counts();
      let created = 0;
      for (const s of SQLI) {
        const started = Date.now();
        const requests: [string, Promise<Response>][] = [
          ['api search', t.http.get('/api/search').query({ q: s })],
          ['web search', t.http.get('/search').query({ q: s })],
          ['list by cluster/tag', t.http.get('/api/pages').query({ cluster: s, tag: s })],
          ['list sort', t.http.get('/api/pages').query({ sort: s })],
          ['list paging', t.http.get('/api/pages').query({ page: s, perPage: s })],
          ['page by slug', t.http.get(`/api/pages/${encodeURIComponent(s)}`)],
          ['web page by slug', t.http.get(`/page/${encodeURIComponent(s)}`)],
          ['diff versions', t.http.get('/api/pages/intact/diff').query({ from: s, to: 1 })],
          ['audit filter', admin.get('/api/admin/audit').query({ actor: s, action: s, from: s })],
          ['audit actor', admin.get('/api/admin/audit').query({ actor: s })],
          ['user by id', admin.get(`/api/admin/users/${encodeURIComponent(s)}`)],
          ['token name', author.post('/api/tokens').send({ name: s })],
          ['new user', admin.post('/api/admin/users').send({ email: `${s}@example.test`, displayName: s, password: `${s} long enough`, role: 'reader' })],
          ['preview', t.http.post('/api/preview').send({ body: s })],
        ];
        for (const [what, request] of requests) noServerError(await request, `${what} with ${JSON.stringify(s)}`);
        const page = await author.post('/api/pages').send({ title: `Q ${s}`, body: s });
        noServerError(page, `title ${JSON.stringify(s)}`);
        if (page.status === 201) {
          created++;
          expect(page.body.body).toBe(s);
        }
        expect(Date.now() - started, `pg_sleep must not run (${s})`).toBeLessThan(8000);
      }
      const after = await counts();
      expect(after.pages).toBe(before.pages + created);
      expect(after.users).toBeGreaterThanOrEqual(before.users);
      expect(after.audit).toBeGreaterThanOrEqual(before.audit);
      expect((await t.http.get('/api/pages/intact').expect(200)).body.body).toBe('Still here.');
      const login = await t.http.get('/login').expect(200);
      noServerError(login, 'login');
    }, 60_000);
  });

  describe('path traversal', () => {
    it('refuses climbing slugs with 400/404, in the API and the web UI', async () => {
      for (const p of TRAVERSAL) {
        for (const url of [`/api/pages/${p}`, `/api/pages/${encodeURIComponent(p)}`, `/page/${p}`, `/page/${encodeURIComponent(p)}`, `/api/pages/${encodeURIComponent(p)}/history`]) {
          const res = await t.http.get(url);
          noServerError(res, url);
          expect([301, 302, 303, 308, 400, 404], url).toContain(res.status);
          expect(res.text, url).not.toMatch(/root:x:0:0|\[fonts\]/);
        }
      }
    });

    it('serves nothing outside public/ under /static', async () => {
      for (const url of ['/static/../package.json', '/static/%2e%2e/package.json', '/static/..%2fpackage.json', '/static/%2e%2e%2f%2e%2e%2fetc/passwd', '/static/css/..%2f..%2f..%2fpackage.json']) {
        const res = await t.http.get(url);
        noServerError(res, url);
        expect(res.status, url).toBeGreaterThanOrEqual(400);
        expect(res.text, url).not.toContain('"name": "kurate"');
      }
    });

    it('treats import paths as labels only: a climbing path reads no file', async () => {
      const res = await author.post('/api/import').send({ pages: TRAVERSAL.map((p, i) => ({ path: p, title: `Traversal ${i}`, body: 'plain' })) });
      noServerError(res, 'import');
      expect(res.status).toBe(200);
      for (const r of res.body.results) expect(['created', 'failed']).toContain(r.status);
      const page = await t.http.get('/api/pages/traversal-0').expect(200);
      expect(page.body.body).toBe('plain');
    });
  });

  describe('oversized, malformed and pathological bodies', () => {
    it('answers oversized bodies with 413, JSON and form alike', async () => {
      const big = 'x'.repeat(t.config.http.maxBodyBytes + 10);
      const json = await author.post('/api/pages').send({ title: 'Big', body: big }).expect(413);
      expect(json.body.message).toMatch(/too large/);
      await t.http.post('/login').type('form').send({ email: big }).expect(413);
    });

    it('answers a list of lists where a list of objects belongs, and numbers past PostgreSQL\'s bigint, with 4xx (or the last page), never a 5xx', async () => {
      for (const [path, body] of [
        ['/admin/kg-policy/bootstrap', { policies: [[]] }],
        ['/admin/knowledge-graph/import', { graph: { nodes: [[]] }, mode: 'pending' }],
        ['/admin/knowledge-graph/import', { graph: { nodes: [], edges: [[]] }, mode: 'pending' }],
        ['/api/import', { pages: [[]] }],
      ] as const) {
        const res = await admin.post(path).send(body);
        expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text.slice(0, 200)}`).toBe(400);
      }
      await admin.get('/admin/knowledge-graph/rejections?offset=99999999999999999999').expect(400);
      const entity = (await admin.post('/admin/knowledge-graph/entities').send({ name: 'Far Pages', type: 'concept' }).expect(201)).body.entity;
      await admin.get(`/admin/knowledge-graph/entities/${entity.id}?passages=99999999999999999999`).expect(200);
      await admin.get(`/admin/knowledge-graph/ui/entities/${entity.id}?passages=99999999999999999999`).expect(200);
    });

    it('takes numbers too close to zero for PostgreSQL\'s real as 0, and refuses cursors and scopes it cannot read, never with a 5xx', async () => {
      const tiny = [1e-46, 5e-324];
      for (const n of tiny) {
        await admin.get(`/admin/knowledge-graph/proposals?minConfidence=${n}&maxConfidence=${n}`).expect(200);
        await admin.get(`/admin/knowledge-graph?maxConfidence=${n}`).expect(200);
        const bulk = await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'reject', minConfidence: n, filter: { cluster: 'no-such-cluster' } });
        expect(bulk.status, bulk.text.slice(0, 200)).toBe(200);
      }
      const imported = await admin.post('/admin/knowledge-graph/import').send({
        mode: 'pending',
        graph: { nodes: [{ id: 'n1', name: 'Tiny Confidence', type: 'concept', confidence: 1e-46 }, { id: 'n2', name: 'Tiny Weight', type: 'concept' }], edges: [{ source: 'n1', target: 'n2', predicate: 'uses', confidence: 1e-46, weight: 1e-46 }] },
      });
      expect(imported.status, imported.text.slice(0, 300)).toBe(200);
      const [{ confidence }] = await t.dataSource.query(`SELECT confidence FROM kg_proposals WHERE name = 'Tiny Confidence'`);
      expect(confidence).toBe(0);
      // Cursors of the right shape that PostgreSQL would still refuse to cast: the 400 every bad cursor gets.
      const cursor = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const [sort, after] of [['confidence', ['1e99', '5']], ['confidence', ['1e-50', '5']], ['age', ['2026-13-45T99:99:99Z', '5']], ['age', ['2026-02-30 10:00:00', '5']], ['age', ['2026-01-01T00:00:00+99:99', '1']], ['age', ['2026-01-01T00:00:00+16', '1']]] as const) {
        const res = await admin.get(`/admin/knowledge-graph/proposals?sort=${sort}&after=${cursor([...after])}`);
        expect(res.status, `${sort} ${after[0]}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.body.message).toContain('cursor is not valid');
      }
      await admin.get(`/admin/knowledge-graph?sort=age&after=${cursor(['2026-13-45T99:99:99Z', '5'])}`).expect(400);
      await admin.get(`/admin/knowledge-graph?sort=age&before=${cursor(['2026-01-01T00:00:00+99:99', '1'])}`).expect(400);
      // An entity list page past bigint is a page past the end; a null scope is no scope.
      await admin.get('/admin/knowledge-graph/ui/entities?page=99999999999999999999').expect(200);
      const nullScope = await admin.post('/api/admin/kg/extract').send({ cluster: null, dryRun: true });
      expect(nullScope.status, nullScope.text.slice(0, 200)).toBe(400);
      expect(nullScope.body.message).toContain('exactly one of');
    });

    it('answers malformed JSON, a wrong content type and invalid percent-encoding with 4xx', async () => {
      await author.post('/api/pages').set('Content-Type', 'application/json').send('{"title": "x", "body": ').expect(400);
      const res = await author.post('/api/pages').set('Content-Type', 'application/xml').send('<page/>');
      noServerError(res, 'xml');
      expect(res.status).toBeGreaterThanOrEqual(400);
      for (const url of ['/page/%E0%A4%A', '/api/pages/%FF', '/search?q=%E0%A4%A', '/api/search?q=%C0%AF']) {
        const r = await t.http.get(url);
        noServerError(r, url);
      }
    });

    it('refuses a JSON body that is not valid UTF-8 with a 400 (nothing stored, no byte silently replaced), and never answers 500', async () => {
      const raw = Buffer.concat([Buffer.from('{"title":"Bytes ', 'utf8'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('","body":"a\\u0000b ', 'utf8'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}', 'utf8')]);
      // As bytes (superagent would otherwise send a Buffer as JSON of its own).
      const res = await author.post('/api/pages').set('Content-Type', 'application/json').serialize((body: unknown) => body as string).send(raw);
      noServerError(res, 'invalid UTF-8');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not valid UTF-8/);
      await author.get('/api/pages/bytes').expect(404);
      const form = await t.http.post('/login').set('Content-Type', 'application/x-www-form-urlencoded').send(Buffer.from('email=%FF%FE&password=%C3%28'));
      noServerError(form, 'form with invalid UTF-8');
      // A form whose escapes do not decode is refused, not stored as written (a page titled "F9%ff").
      for (const body of ['title=F9%ff&body=%ff%fe', 'title=Half%2&body=x', 'title=Bad%zz&body=x']) {
        const res = await author.post('/page').type('form').send(body);
        noServerError(res, body);
        expect(res.status, `${body}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.text).toContain('percent escape');
      }
      await author.get('/api/pages/f9-ff').expect(404);
      await author.post('/page').type('form').send('title=Percent%20Fine%20%E2%9C%93&body=100%25').expect((r) => expect(r.status).toBeLessThan(400));
    });

    it('renders deeply nested Markdown in bounded time', async () => {
      const bodies = {
        quotes: `${'>'.repeat(5000)} deep`,
        lists: Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n'),
        brackets: `${'['.repeat(20000)}x${']'.repeat(20000)}`,
        emphasis: `${'*a '.repeat(20000)}`,
        links: `${'[a]('.repeat(5000)}x${')'.repeat(5000)}`,
      };
      for (const [name, body] of Object.entries(bodies)) {
        const started = Date.now();
        const res = await author.post('/api/pages').send({ title: `Nested ${name}`, body });
        noServerError(res, name);
        if (res.status === 201) {
          const view = await t.http.get(`/page/${res.body.slug}`);
          noServerError(view, `${name} view`);
        }
        expect(Date.now() - started, name).toBeLessThan(10_000);
      }
    }, 60_000);

    it('saves and renders a page with 10,000 links in bounded time', async () => {
      const body = Array.from({ length: 10_000 }, (_, i) => `[[Link Target ${i}]]`).join(' ');
      const started = Date.now();
      const res = await author.post('/api/pages').send({ title: 'Ten Thousand Links', body });
      noServerError(res, '10k links');
      expect(res.status).toBe(201);
      const rows: { n: number }[] = await t.dataSource.query(`SELECT count(*)::int AS n FROM page_links WHERE from_page_id = $1`, [res.body.id ?? (await t.dataSource.query(`SELECT id FROM pages WHERE slug = 'ten-thousand-links'`))[0].id]);
      expect(rows[0].n).toBe(10_000);
      const view = await t.http.get('/page/ten-thousand-links').expect(200);
      expect(view.text.match(/class="wikilink[^"]*"/g)?.length ?? 0).toBeGreaterThanOrEqual(10_000);
      await t.http.get('/api/reports/wanted').expect(200);
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 60_000);
  });
});
