import type { Agent } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

// The server-rendered wiki, over real HTTP on a fresh database: every web route, its status codes and what it shows.
// An author works through the real login session and sends the session's CSRF token with every form, as a browser does.

let t: TestApp;
let ada: TestUser;
/** Ada's browser: the session cookie from /login. */
let web: Agent;
let csrfToken: string;

beforeAll(async () => {
  t = await startTestApp();
  ada = await t.user('author', { name: 'ada' });
  ({ agent: web, csrfToken } = await t.login(ada));
});

afterAll(async () => {
  await t?.close();
});

const HTML = { Accept: 'text/html' };

/** The response text with Handlebars' harmless `&#x3D;` turned back into `=`, so assertions read like the HTML. */
function html(res: { text: string }): string {
  return res.text.replaceAll('&#x3D;', '=');
}

/** Submits a form as Ada's browser does: urlencoded, with the session's CSRF token. */
function submit(url: string, fields: Record<string, string> = {}) {
  return web.post(url).type('form').send({ _csrf: csrfToken, ...fields });
}

async function createPage(title: string, body: string, message?: string): Promise<string> {
  const res = await submit('/page', { title, body, ...(message ? { message } : {}) });
  expect(res.status, html(res)).toBe(303);
  return new URL(res.headers.location, 'http://x').pathname.replace('/page/', '');
}

async function getPage(slug: string) {
  const res = await t.http.get(`/api/pages/${slug}`);
  expect(res.status).toBe(200);
  return res.body as { slug: string; title: string; body: string; version: number };
}

/** The strict CSP coming later forbids inline scripts, inline styles and event-handler attributes. */
function expectCspClean(html: string) {
  const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
  expect(tags.filter((tag) => /^<script\b/i.test(tag) && !/\bsrc=/.test(tag))).toEqual([]);
  expect(tags.filter((tag) => /\sstyle=/i.test(tag))).toEqual([]);
  expect(tags.filter((tag) => /\son[a-z]+=/i.test(tag))).toEqual([]);
}

/** The text of the first <textarea name="…">, unescaped the way a browser would. */
function textareaValue(html: string, name: string): string | null {
  const match = new RegExp(`<textarea[^>]*name="${name}"[^>]*>([\\s\\S]*?)</textarea>`).exec(html);
  if (!match) return null;
  return match[1]
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&#x60;', '`')
    .replaceAll('&#x3D;', '=')
    .replaceAll('&amp;', '&');
}

function hiddenValue(html: string, name: string): string | null {
  return new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? null;
}

describe('home', () => {
  it('welcomes an empty wiki with a new-page button', async () => {
    const res = await web.get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(html(res)).toContain('Welcome to Kurate');
    expect(html(res)).toContain('href="/page/new"');
    expect(html(res)).toContain('no pages yet');
    expectCspClean(res.text);
  });
});

describe('creating a page', () => {
  it('shows the new-page form, prefilled with a title from the query', async () => {
    const res = await web.get('/page/new?title=Graph%20View');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('<form method="post" action="/page"');
    expect(html(res)).toContain('name="title" type="text" value="Graph View"');
    expect(html(res)).toContain('name="body"');
    expect(html(res)).toContain('name="message"');
    expect(html(res)).toContain('data-preview-source');
    expectCspClean(res.text);
  });

  it('creates a page and redirects to it with 303', async () => {
    const res = await submit('/page', { title: 'Getting Started', body: 'Welcome aboard.', message: 'First page' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/page/getting-started?notice=created');
    const view = await web.get(res.headers.location);
    expect(view.status).toBe(200);
    expect(html(view)).toContain('<h1 class="page-title">Getting Started</h1>');
    expect(html(view)).toContain('Welcome aboard.');
    expect(html(view)).toContain('Page created.');
  });

  it('keeps the text and names the line when the frontmatter is invalid (400)', async () => {
    const body = '---\ncluster: engineering\ntags: 5\n---\nMy precious paragraph that must not be lost.';
    const res = await submit('/page', { title: 'Broken Frontmatter', body, message: 'keep me' });
    expect(res.status).toBe(400);
    expect(html(res)).toMatch(/line 3/i);
    expect(html(res)).toContain('Line 3 of your text');
    expect(textareaValue(html(res), 'body')).toBe(body);
    expect(html(res)).toContain('value="Broken Frontmatter"');
    expect(html(res)).toContain('value="keep me"');
    expect((await t.http.get('/api/pages/broken-frontmatter')).status).toBe(404);
  });

  it('keeps the text and says why when the frontmatter is too large to parse quickly (422)', async () => {
    const body = `---\nnotes: "${'n'.repeat(40 * 1024)}"\n---\nMy precious paragraph under an oversized frontmatter.`;
    const res = await submit('/page', { title: 'Oversized Frontmatter', body });
    expect(res.status).toBe(422);
    expect(html(res)).toContain('may hold at most 32 KB');
    expect(textareaValue(html(res), 'body')).toBe(body);
    expect((await t.http.get('/api/pages/oversized-frontmatter')).status).toBe(404);
  });

  it('keeps the text when the title is already taken (409)', async () => {
    await createPage('Taken Title', 'The original.');
    const res = await submit('/page', { title: 'Taken Title', body: 'A second attempt with <b>markup</b> & ampersands.' });
    expect(res.status).toBe(409);
    expect(html(res)).toContain('already exists');
    expect(html(res)).toContain('href="/page/taken-title"');
    expect(textareaValue(html(res), 'body')).toBe('A second attempt with <b>markup</b> & ampersands.');
    expect(html(res)).not.toContain('<b>markup</b>');
  });

  it('asks for a title when there is none (400), keeping the text', async () => {
    const res = await submit('/page', { title: '   ', body: 'Untitled thoughts.' });
    expect(res.status).toBe(400);
    expect(html(res)).toContain('needs a title');
    expect(textareaValue(html(res), 'body')).toBe('Untitled thoughts.');
  });

  it('re-renders the form on a malformed form (400) instead of an error page', async () => {
    const res = await submit('/page', { title: 'x'.repeat(301), body: 'Too long a title.' });
    expect(res.status).toBe(400);
    expect(html(res)).toContain('Not saved.');
    expect(textareaValue(html(res), 'body')).toBe('Too long a title.');
  });

  it('takes the title from the frontmatter', async () => {
    const slug = await createPage('', '---\ntitle: From Frontmatter\n---\nBody.');
    expect(slug).toBe('from-frontmatter');
  });
});

describe('viewing a page', () => {
  beforeAll(async () => {
    await createPage('Rich Page', [
      '---', 'cluster: engineering', 'tags: [howto, graphs]', 'aliases: [Fancy Page]', '---',
      'Intro linking to [[Getting Started]] and [[Nowhere Yet]].', '', '## First Part', 'One.', '', '### Detail', 'Two.', '', '## Second Part', 'Three.',
    ].join('\n'), 'Rich content');
    await createPage('Links Here', 'See [[Rich Page]] for more.');
  });

  it('shows title, rendered body, table of contents, cluster, tags, aliases and who edited it', async () => {
    const res = await web.get('/page/rich-page');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('<h1 class="page-title">Rich Page</h1>');
    expect(html(res)).toContain('<h2 id="first-part">First Part</h2>');
    expect(html(res)).toContain('aria-labelledby="toc-heading"');
    expect(html(res)).toContain('<a href="#first-part">First Part</a>');
    expect(html(res)).toContain('<a href="#second-part">Second Part</a>');
    expect(html(res)).toContain('href="/pages?cluster=engineering"');
    expect(html(res)).toContain('href="/tags/howto"');
    expect(html(res)).toContain('#graphs');
    expect(html(res)).toContain('Fancy Page');
    expect(html(res)).toMatch(/Last edited by <strong>ada<\/strong> on <time datetime="[^"]+">[^<]+<\/time>, version 1/);
    for (const action of ['edit', 'history', 'graph', 'rename', 'delete']) expect(html(res)).toContain(`href="/page/rich-page/${action}"`);
    expectCspClean(res.text);
  });

  it('marks resolved and missing links differently', async () => {
    const res = await web.get('/page/rich-page');
    expect(html(res)).toContain('<a class="wikilink" href="/page/getting-started">Getting Started</a>');
    expect(html(res)).toContain('class="wikilink wikilink-missing" href="/page/new?title=Nowhere%20Yet"');
  });

  it('lists backlinks', async () => {
    const res = await web.get('/page/rich-page');
    expect(html(res)).toMatch(/Linked from<\/h2>\s*<ul class="plain-list backlink-list">\s*<li><a href="\/page\/links-here">Links Here<\/a>/);
    const lonely = await web.get('/page/links-here');
    expect(html(lonely)).toContain('No page links here yet.');
  });

  it('shows no table of contents for fewer than two headings', async () => {
    const res = await web.get('/page/links-here');
    expect(html(res)).not.toContain('toc-heading');
  });

  it('redirects a non-canonical slug to its canonical form (301)', async () => {
    const res = await web.get('/page/Rich%20Page');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/page/rich-page');
  });

  it('answers a missing page with 404 and offers to create it', async () => {
    const res = await web.get('/page/Graph%20View');
    expect(res.status).toBe(404);
    expect(html(res)).toContain('Create this page');
    expect(html(res)).toContain('href="/page/new?title=Graph+View"');
    const bySlug = await web.get('/page/graph-view');
    expect(bySlug.status).toBe(404);
    expect(html(bySlug)).toContain('href="/page/new?title=Graph+view"');
    expectCspClean(res.text);
  });

  it('refuses a name without letters or digits with 400', async () => {
    const res = await web.get('/page/%20--%20').set(HTML);
    expect(res.status).toBe(400);
    expect(html(res)).toContain('at least one letter or digit');
  });

  it('shows only known notices, never the query text', async () => {
    const res = await web.get('/page/rich-page?notice=%3Cscript%3Ealert(1)%3C/script%3E');
    expect(res.status).toBe(200);
    expect(html(res)).not.toContain('alert(1)');
    // Names every object has are no notice either (they once showed "[object Object]").
    for (const code of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      for (const path of [`/page/rich-page?notice=${code}`, `/trash?notice=${code}`]) {
        const page = await web.get(path);
        expect(page.status, path).toBe(200);
        expect(html(page), path).not.toMatch(/class="notice"|\[object Object\]|function /);
      }
    }
  });
});

describe('escaping', () => {
  const evil = '<img src=x onerror=alert(1)>';
  let slug: string;

  beforeAll(async () => {
    slug = await createPage(evil, `Body mentions ${evil} and <script>alert(2)</script> too.`, `msg ${evil}`);
  });

  it('escapes a hostile title wherever it appears', async () => {
    for (const url of [`/page/${slug}`, '/', '/pages', '/recent', `/page/${slug}/history`, `/page/${slug}/edit`, `/page/${slug}/rename`, `/page/${slug}/delete`, `/page/${slug}/graph`, `/page/${slug}/revisions/1`]) {
      const res = await web.get(url);
      expect(res.status, url).toBe(200);
      expect(html(res), url).not.toContain('<img src=x');
      expect(html(res), url).not.toContain('<script>alert(2)');
      expect(html(res), url).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('escapes the search query and the title in the no-results offer', async () => {
    const res = await web.get(`/search?q=${encodeURIComponent('"><svg onload=alert(3)> zzqx')}`);
    expect(res.status).toBe(200);
    expect(html(res)).not.toContain('<svg');
    expect(html(res)).toContain('&lt;svg onload=alert(3)&gt;');
    expectCspClean(res.text);
  });
});

describe('editing', () => {
  beforeAll(async () => {
    await createPage('Editable', 'Version one text.');
  });

  it('shows the edit form with the source, a hidden baseVersion and a preview', async () => {
    const res = await web.get('/page/editable/edit');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('action="/page/editable"');
    expect(hiddenValue(html(res), 'baseVersion')).toBe('1');
    expect(textareaValue(html(res), 'body')).toBe('Version one text.');
    expect(html(res)).toContain('data-preview-output');
    expect(html(res)).toContain('<p>Version one text.</p>');
    expectCspClean(res.text);
  });

  it('saves and redirects with 303; a save without changes says so', async () => {
    const res = await submit('/page/editable', { body: 'Version two text.', baseVersion: '1', message: 'second' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/page/editable?notice=saved');
    expect((await getPage('editable')).version).toBe(2);
    const same = await submit('/page/editable', { body: 'Version two text.', baseVersion: '2' });
    expect(same.status).toBe(303);
    expect(same.headers.location).toBe('/page/editable?notice=unchanged');
    const view = await web.get(same.headers.location);
    expect(html(view)).toContain('Nothing changed');
  });

  it('answers a stale save with a 409 page that keeps the text and offers a merge with the new baseVersion', async () => {
    const before = await getPage('editable');
    const base = String(before.version);
    const theirs = await submit('/page/editable', { body: 'Their edit <wins> first.', baseVersion: base });
    expect(theirs.status).toBe(303);
    const mine = 'My careful edit & <notes>\nline two.';
    const res = await submit('/page/editable', { body: mine, baseVersion: base, message: 'my message' });
    expect(res.status).toBe(409);
    expect(html(res)).toContain('Edit conflict');
    expect(textareaValue(html(res), 'body')).toBe(mine);
    expect(html(res)).toContain('Their edit &lt;wins&gt; first.');
    expect(html(res)).toContain('value="my message"');
    const newBase = hiddenValue(html(res), 'baseVersion');
    expect(newBase).toBe(String(before.version + 1));
    expect(html(res)).toContain('class="diff-added"');
    expectCspClean(res.text);

    const merged = await submit('/page/editable', { body: `${mine}\nTheir edit <wins> first.`, baseVersion: newBase });
    expect(merged.status).toBe(303);
    expect((await getPage('editable')).body).toBe(`${mine}\nTheir edit <wins> first.`);
  });

  it('keeps the text and names the line on invalid frontmatter (400)', async () => {
    const { version } = await getPage('editable');
    const body = '---\ntitle: ok\ntitle: twice\n---\nEdited text that must survive.';
    const res = await submit('/page/editable', { body, baseVersion: String(version) });
    expect(res.status).toBe(400);
    expect(html(res)).toMatch(/line 3/i);
    expect(textareaValue(html(res), 'body')).toBe(body);
    expect(hiddenValue(html(res), 'baseVersion')).toBe(String(version));
  });

  it('keeps the text when the form itself is malformed (400)', async () => {
    const res = await submit('/page/editable', { body: 'No base version given.' });
    expect(res.status).toBe(400);
    expect(html(res)).toContain('baseVersion');
    expect(textareaValue(html(res), 'body')).toBe('No base version given.');
  });

  it('shows the unsaved text when the session or its CSRF token is no longer valid (403)', async () => {
    const slug = await createPage('Expiring Session', 'start');
    const res = await web.post(`/page/${slug}`).set(HTML).type('form').send({ _csrf: 'stale-token', body: 'my long paragraph', baseVersion: '1' });
    expect(res.status).toBe(403);
    expect(html(res)).toContain('Your text was not saved');
    expect(html(res)).toContain('my long paragraph');
  });

  it('keeps the text even if the page went missing meanwhile (404)', async () => {
    const res = await submit('/page/never-existed', { body: 'Orphaned words.', baseVersion: '1' });
    expect(res.status).toBe(404);
    expect(textareaValue(html(res), 'body')).toBe('Orphaned words.');
  });

  it('rejects a POST to a non-slug with 400', async () => {
    const res = await submit('/page/Not%20A%20Slug', { body: 'x', baseVersion: '1' });
    expect(res.status).toBe(400);
  });
});

describe('history, diff and revisions', () => {
  beforeAll(async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    await createPage('Chronicle', lines.join('\n'), 'start');
    const changed = [...lines];
    changed[1] = 'line 2 changed';
    changed[25] = 'line 26 changed';
    const res = await submit('/page/chronicle', { body: changed.join('\n'), baseVersion: '1', message: 'tweak <two> lines' });
    expect(res.status).toBe(303);
  });

  it('lists revisions with a compare form', async () => {
    const res = await web.get('/page/chronicle/history');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('action="/page/chronicle/diff"');
    expect(html(res)).toContain('name="from" value="1"');
    expect(html(res)).toMatch(/name="to" value="2"[^>]*checked/);
    expect(html(res)).toMatch(/name="from" value="1"[^>]*checked/);
    expect(html(res)).toContain('tweak &lt;two&gt; lines');
    expect(html(res)).toContain('href="/page/chronicle/revisions/1"');
    expectCspClean(res.text);
  });

  it('shows a line diff with numbers, colours and folded unchanged runs', async () => {
    const res = await web.get('/page/chronicle/diff?from=1&to=2');
    expect(res.status).toBe(200);
    expect(html(res)).toMatch(/<tr class="diff-removed"><td class="ln">2<\/td><td class="ln"><\/td>/);
    expect(html(res)).toMatch(/<tr class="diff-added"><td class="ln"><\/td><td class="ln">2<\/td><td class="sign">\+/);
    expect(html(res)).toContain('line 26 changed');
    expect(html(res)).toContain('diff-fold');
    expect(html(res)).toContain('unchanged lines');
    expect(html(res)).toContain('+2');
    expectCspClean(res.text);
  });

  it('says so when two versions are identical', async () => {
    const res = await web.get('/page/chronicle/diff?from=2&to=2');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('No differences');
  });

  it('answers bad diff parameters with 400 and an unknown version with 404', async () => {
    expect((await web.get('/page/chronicle/diff?from=abc&to=2').set(HTML)).status).toBe(400);
    expect((await web.get('/page/chronicle/diff?to=2').set(HTML)).status).toBe(400);
    expect((await web.get('/page/chronicle/diff?from=1&to=99999999999').set(HTML)).status).toBe(400);
    const missing = await web.get('/page/chronicle/diff?from=1&to=9').set(HTML);
    expect(missing.status).toBe(404);
    expect(html(missing)).toContain('no version 9');
  });

  it('shows a revision source in a <pre> with a restore button', async () => {
    const res = await web.get('/page/chronicle/revisions/1');
    expect(res.status).toBe(200);
    expect(html(res)).toMatch(/<pre class="source">line 1\nline 2\n/);
    expect(html(res)).toContain('action="/page/chronicle/revisions/1/restore"');
    const current = await web.get('/page/chronicle/revisions/2');
    expect(html(current)).toContain('This is the current version.');
    expect(html(current)).not.toContain('/revisions/2/restore');
  });

  it('answers bad or unknown revision numbers with 400 / 404', async () => {
    expect((await web.get('/page/chronicle/revisions/abc').set(HTML)).status).toBe(400);
    expect((await web.get('/page/chronicle/revisions/0').set(HTML)).status).toBe(400);
    expect((await web.get('/page/chronicle/revisions/99999999999').set(HTML)).status).toBe(400);
    expect((await web.get('/page/chronicle/revisions/7').set(HTML)).status).toBe(404);
  });

  it('restores an old revision as a new version (303)', async () => {
    const res = await submit('/page/chronicle/revisions/1/restore');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/page/chronicle?notice=reverted');
    const page = await getPage('chronicle');
    expect(page.version).toBe(3);
    expect(page.body.split('\n')[1]).toBe('line 2');
    const again = await submit('/page/chronicle/revisions/1/restore');
    expect(again.headers.location).toBe('/page/chronicle?notice=unchanged');
  });
});

describe('renaming', () => {
  beforeAll(async () => {
    await createPage('Old Name', 'I will be renamed.');
    await createPage('Pointer', 'Go to [[Old Name]] now.');
    await createPage('Occupied', 'Already here.');
  });

  it('shows the rename form with the rewrite-links checkbox', async () => {
    const res = await web.get('/page/old-name/rename');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('action="/page/old-name/rename"');
    expect(html(res)).toContain('value="Old Name"');
    expect(html(res)).toMatch(/name="rewriteLinks" type="checkbox" value="on" checked/);
    expect(html(res)).toContain('Also rewrite links in other pages');
  });

  it('keeps the typed title on a taken name (409) and on an empty one (400)', async () => {
    const taken = await submit('/page/old-name/rename', { title: 'Occupied', rewriteLinks: 'on' });
    expect(taken.status).toBe(409);
    expect(html(taken)).toContain('already exists');
    expect(html(taken)).toContain('value="Occupied"');
    const empty = await submit('/page/old-name/rename', { title: '' });
    expect(empty.status).toBe(400);
    expect(html(empty)).toContain('Not saved.');
  });

  it('renames, rewrites links, and 301-redirects the old slug (also for sub-pages)', async () => {
    const res = await submit('/page/old-name/rename', { title: 'New Name', rewriteLinks: 'on' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/page/new-name?notice=renamed&rewritten=1');
    const view = await web.get(res.headers.location);
    expect(html(view)).toContain('Links were rewritten in 1 page.');
    expect((await getPage('pointer')).body).toBe('Go to [[New Name]] now.');
    const old = await web.get('/page/old-name');
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe('/page/new-name');
    const oldHistory = await web.get('/page/old-name/history');
    expect(oldHistory.status).toBe(301);
    expect(oldHistory.headers.location).toBe('/page/new-name/history');
    const oldDiff = await web.get('/page/old-name/diff?from=1&to=2');
    expect(oldDiff.headers.location).toBe('/page/new-name/diff?from=1&to=2');
  });
});

describe('delete, trash and restore', () => {
  beforeAll(async () => {
    await createPage('Doomed', 'Short life.');
    await createPage('Fan Of Doomed', 'I like [[Doomed]].');
  });

  it('asks for confirmation, naming the pages that link here', async () => {
    const res = await web.get('/page/doomed/delete');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('<form method="post" action="/page/doomed/delete"');
    expect(html(res)).toContain('Fan Of Doomed');
  });

  it('moves the page to the trash (303), shows it there, and restores it', async () => {
    const res = await submit('/page/doomed/delete');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/trash?notice=deleted&slug=doomed');

    const trash = await web.get(res.headers.location);
    expect(trash.status).toBe(200);
    expect(html(trash)).toContain('Page moved to the trash.');
    expect(html(trash)).toContain('action="/trash/doomed/restore"');

    const gone = await web.get('/page/doomed');
    expect(gone.status).toBe(404);
    expect(html(gone)).toContain('is in the trash');
    expect(html(gone)).toContain('action="/trash/doomed/restore"');

    const fan = await web.get('/page/fan-of-doomed');
    expect(html(fan)).toContain('wikilink-missing');

    const restored = await submit('/trash/doomed/restore');
    expect(restored.status).toBe(303);
    expect(restored.headers.location).toBe('/page/doomed?notice=restored');
    expect((await web.get('/page/doomed')).status).toBe(200);
    expect(html(await web.get('/page/fan-of-doomed'))).toContain('<a class="wikilink" href="/page/doomed">');
  });

  it('answers restoring a live page with 409 and a missing one with 404', async () => {
    expect((await submit('/trash/doomed/restore').set(HTML)).status).toBe(409);
    expect((await submit('/trash/no-such-page/restore').set(HTML)).status).toBe(404);
    expect((await submit('/page/no-such-page/delete').set(HTML)).status).toBe(404);
  });

  it('shows an empty trash', async () => {
    const res = await web.get('/trash');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('The trash is empty.');
  });
});

describe('all pages', () => {
  beforeAll(async () => {
    const api = await t.as('author');
    for (let i = 1; i <= 55; i++) {
      const n = String(i).padStart(2, '0');
      const cluster = i % 2 === 0 ? 'even' : 'odd';
      const res = await api.post('/api/pages').send({ title: `Bulk ${n}`, body: `---\ncluster: ${cluster}\ntags: [bulk${i % 5 === 0 ? ', fives' : ''}]\n---\nNumber ${n}.` });
      expect(res.status).toBe(201);
    }
  });

  it('paginates 50 per page with next and previous', async () => {
    const first = await web.get('/pages');
    expect(first.status).toBe(200);
    expect((html(first).match(/<tr>\s*<td><a href="\/page\//g) ?? []).length).toBe(50);
    expect(html(first)).toContain('href="/pages?page=2"');
    expect(html(first)).toContain('Page 1 of 2');
    const second = await web.get('/pages?page=2');
    expect(second.status).toBe(200);
    expect(html(second)).toContain('href="/pages"');
    expect(html(second)).toContain('Page 2 of 2');
    expectCspClean(first.text);
  });

  it('filters by cluster and tag from select boxes, keeping the filters in the pager', async () => {
    const res = await web.get('/pages?cluster=even&tag=fives');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('<option value="even" selected>');
    expect(html(res)).toContain('<option value="fives" selected>');
    const titles = [...html(res).matchAll(/<td><a href="\/page\/[^"]+">(Bulk \d+)<\/a><\/td>/g)].map((m) => m[1]);
    expect(titles).toEqual(['Bulk 10', 'Bulk 20', 'Bulk 30', 'Bulk 40', 'Bulk 50']);
    const odd = await web.get('/pages?cluster=odd&sort=updated');
    expect(html(odd)).toContain('<option value="updated" selected>');
    const oddTitles = [...html(odd).matchAll(/<td><a href="\/page\/[^"]+">(Bulk \d+)<\/a><\/td>/g)].map((m) => m[1]);
    expect(oddTitles[0]).toBe('Bulk 55');
    const emptyFilters = await web.get('/pages?cluster=&tag=&sort=title');
    expect(emptyFilters.status).toBe(200);
  });

  it('answers bad list parameters with 400', async () => {
    expect((await web.get('/pages?page=abc').set(HTML)).status).toBe(400);
    expect((await web.get('/pages?sort=sideways').set(HTML)).status).toBe(400);
  });
});

describe('recent changes', () => {
  it('lists page, version, author, message and time', async () => {
    const res = await web.get('/recent');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('href="/page/chronicle"');
    expect(html(res)).toContain('tweak &lt;two&gt; lines');
    expect(html(res)).toContain('href="/page/chronicle/diff?from=1&amp;to=2"');
    expect(html(res)).toMatch(/<span class="recent-authors">ada( ×\d+)?<\/span>/);
    expect(html(res)).toMatch(/<time datetime="\d{4}-/);
  });
});

describe('reports', () => {
  beforeAll(async () => {
    await createPage('Wanter One', 'Needs [[Desired Page]] and [[Rich Page]].');
    await createPage('Wanter Two', 'Also needs [[Desired Page]] and [[Rich Page]].');
  });

  it('shows wanted pages with counts, sources and a create link; orphans; hubs', async () => {
    const res = await web.get('/reports');
    expect(res.status).toBe(200);
    expect(html(res)).toMatch(/<span class="wikilink-missing">Desired Page<\/span><\/td>\s*<td>2 pages<\/td>/);
    expect(html(res)).toContain('href="/page/new?title=Desired+Page"');
    expect(html(res)).toContain('<a href="/page/wanter-one">Wanter One</a>');
    expect(html(res)).toMatch(/id="orphans"[\s\S]*href="\/page\/wanter-two"/);
    expect(html(res)).toMatch(/id="hubs"[\s\S]*<a href="\/page\/rich-page">Rich Page<\/a> <span class="muted">linked from 3 pages/);
    expectCspClean(res.text);
  });

  it('summarises the wiki on the home page', async () => {
    const res = await web.get('/');
    expect(res.status).toBe(200);
    expect(html(res)).toMatch(/\d+ pages, \d+ links between them/);
    expect(html(res)).toContain('Desired Page');
    expect(html(res)).toContain('href="/page/rich-page"');
  });
});

describe('page graph', () => {
  it('shows the neighbourhood as a list and a canvas for the script', async () => {
    const res = await web.get('/page/rich-page/graph');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('data-graph-slug="rich-page" data-graph-hops="1"');
    expect(html(res)).toContain('<script src="/static/vendor/cytoscape/cytoscape.min.js" defer></script>');
    expect(html(res)).toContain('<a href="/page/links-here">Links Here</a>');
    expect(html(res)).toContain('<a href="/page/getting-started">Getting Started</a>');
    expect(html(res)).not.toContain('Two links away');
    expectCspClean(res.text);
  });

  it('goes two hops out on request', async () => {
    await createPage('Far Away', 'Points at [[Links Here]].');
    const res = await web.get('/page/rich-page/graph?hops=2');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('data-graph-hops="2"');
    expect(html(res)).toMatch(/Two links away[\s\S]*Far Away/);
  });

  it('refuses more than two hops with 400', async () => {
    expect((await web.get('/page/rich-page/graph?hops=3').set(HTML)).status).toBe(400);
  });

  it('serves the graph library and the page script', async () => {
    expect((await web.get('/static/vendor/cytoscape/cytoscape.min.js')).status).toBe(200);
    // The fCoSE layout: its three browser bundles, in the order the graph page loads them, and nothing else of them.
    const graphPage = html(await web.get('/page/rich-page/graph'));
    const bundles = ['/static/vendor/layout-base/layout-base.js', '/static/vendor/cose-base/cose-base.js', '/static/vendor/cytoscape-fcose/cytoscape-fcose.js'];
    const order = ['/static/vendor/cytoscape/cytoscape.min.js', ...bundles].map((src) => graphPage.indexOf(`<script src="${src}" defer></script>`));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]))).toBe(true);
    for (const src of bundles) {
      const res = await web.get(src);
      expect(res.status, src).toBe(200);
      expect(res.headers['content-type']).toMatch(/javascript/);
    }
    expect((await web.get('/static/vendor/cytoscape-fcose/package.json').set(HTML)).status).toBe(404);
    expect((await web.get('/static/js/kurate.js')).status).toBe(200);
    expect((await web.get('/static/css/kurate.css')).status).toBe(200);
  });
});

describe('search', () => {
  it('finds pages with highlighted snippets, cluster and tags', async () => {
    const res = await web.get('/search?q=precious%20OR%20intro');
    expect(res.status).toBe(200);
    const hit = await web.get('/search?q=Intro%20linking');
    expect(html(hit)).toContain('<a href="/page/rich-page">Rich Page</a>');
    expect(html(hit)).toMatch(/<mark>Intro<\/mark>/i);
    expect(html(hit)).toContain('engineering');
    expect(html(hit)).toContain('#howto');
    expect(html(hit)).toContain('value="Intro linking"');
    expectCspClean(hit.text);
  });

  it('paginates results', async () => {
    const res = await web.get('/search?q=bulk');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('55 results');
    expect(html(res)).toContain('href="/search?q=bulk&amp;page=2"');
    const last = await web.get('/search?q=bulk&page=3');
    expect(html(last)).toContain('href="/search?q=bulk&amp;page=2"');
    expect(html(last)).toContain('Page 3 of 3');
  });

  it('offers to create a page when nothing matches', async () => {
    const res = await web.get('/search?q=Quasar%20Umbrella');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('No results for “Quasar Umbrella”');
    expect(html(res)).toContain('href="/page/new?title=Quasar+Umbrella"');
  });

  it('shows the empty search form without a query, and 400 for bad parameters', async () => {
    const res = await web.get('/search');
    expect(res.status).toBe(200);
    expect(html(res)).toContain('Type words or a question to search titles, tags, text and meaning.');
    expect((await web.get('/search?q=x&page=0').set(HTML)).status).toBe(400);
    expect((await web.get(`/search?q=${'a'.repeat(501)}`).set(HTML)).status).toBe(400);
  });
});

describe('who may do what', () => {
  it('lets anyone read, and sends an anonymous editor to the login form', async () => {
    const view = await t.http.get('/page/rich-page').set(HTML);
    expect(view.status).toBe(200);
    expect(html(view)).toContain('href="/login"');
    // The edit actions lead to the login form, which brings the reader back afterwards.
    expect(html(view)).toContain('href="/page/rich-page/edit"');
    const edit = await t.http.get('/page/rich-page/edit').set(HTML);
    expect(edit.status).toBe(303);
    expect(edit.headers.location).toBe('/login?next=%2Fpage%2Frich-page%2Fedit');
    const newPage = await t.http.get('/page/new?title=X').set(HTML);
    expect(newPage.headers.location).toBe('/login?next=%2Fpage%2Fnew%3Ftitle%3DX');
  });

  it('shows who is logged in, with a logout form carrying the CSRF token', async () => {
    const res = await web.get('/');
    expect(html(res)).toContain('>ada</a>');
    expect(html(res)).toMatch(/<form method="post" action="\/logout" class="logout-form">\s*<input type="hidden" name="_csrf" value="([^"]+)">/);
    expect(html(res)).toContain(`<meta name="csrf-token" content="${csrfToken}">`);
  });

  it('puts the session CSRF token into every form', async () => {
    await createPage('Form Check', 'text');
    await submit('/page/form-check', { body: 'text two', baseVersion: '1' });
    for (const url of ['/page/new', '/page/form-check/edit', '/page/form-check/rename', '/page/form-check/delete', '/page/form-check/revisions/1']) {
      const res = await web.get(url);
      const forms = html(res).match(/<form method="post"[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length, url).toBeGreaterThan(0);
      for (const form of forms) expect(form, url).toContain(`name="_csrf" value="${csrfToken}"`);
    }
  });

  it('refuses a form without the CSRF token (403) and changes nothing', async () => {
    const res = await web.post('/page').type('form').set(HTML).send({ title: 'Forged', body: 'From another site.' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('security token');
    expect((await t.http.get('/api/pages/forged')).status).toBe(404);
  });

  it('lets a reader read but not write, and hides the edit actions from them', async () => {
    const reader = await t.login(await t.user('reader', { name: 'rita' }));
    const view = await reader.agent.get('/page/rich-page');
    expect(view.status).toBe(200);
    expect(html(view)).not.toContain('href="/page/rich-page/edit"');
    expect(html(view)).not.toContain('href="/page/new"');
    const edit = await reader.agent.get('/page/rich-page/edit').set(HTML);
    expect(edit.status).toBe(403);
    const post = await reader.agent.post('/page').type('form').set(HTML).send({ _csrf: reader.csrfToken, title: 'Nope', body: 'x' });
    expect(post.status).toBe(403);
    expect((await t.http.get('/api/pages/nope')).status).toBe(404);
  });

  it('answers an anonymous form post with 401 or 403, never a write', async () => {
    const res = await t.http.post('/page').type('form').set(HTML).send({ title: 'Anon', body: 'x' });
    expect([401, 403]).toContain(res.status);
    expect((await t.http.get('/api/pages/anon')).status).toBe(404);
  });
});

describe('unknown routes', () => {
  it('answers with a 404 page, not a stack trace', async () => {
    const res = await web.get('/no/such/route').set(HTML);
    expect(res.status).toBe(404);
    expect(html(res)).toContain('404');
    expect(html(res)).not.toMatch(/at .*\.ts:\d+/);
  });
});
