import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVaultFile, scanVault } from '../../src/cli/vault-files.js';
import { pagesOfVault } from '../../src/cli/vault-pages.js';
import { OBSIDIAN_VAULT } from '../support/fixtures.js';
import { callValidated, httpMcpClient } from '../support/mcp.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { importPages, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

// Words that only ever stand in %%comments%% of the vault: none may come out anywhere.
const SECRETS = ['zebra-umbrella', 'zebra', 'umbrella', 'quarantined-walrus', 'walrus', 'cerulean-pineapple', 'cerulean', 'pineapple', 'marmalade', 'launch code'];

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text.toLowerCase()).not.toContain(secret);
}

interface Hit {
  slug: string;
  snippetHtml: string;
}

describe('an Obsidian vault, imported', () => {
  let t: TestApp;
  let author: supertest.Agent;
  let admin: supertest.Agent;
  let mcp: Client;
  let tools: Tool[];

  const search = async (q: string): Promise<Hit[]> => (await t.http.get('/api/search').query({ q }).expect(200)).body.hits;
  const html = async (slug: string) => (await t.http.get(`/api/pages/${slug}?render=true`).expect(200)).body.html as string;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    author = await t.as('author');
    admin = await t.as('admin');
    const scan = await scanVault(OBSIDIAN_VAULT);
    const sources = await Promise.all(scan.files.map(async (file) => ({ relativePath: file.relativePath, source: await readVaultFile(OBSIDIAN_VAULT, file) })));
    await importPages(author, pagesOfVault(sources).pages);
    mcp = await httpMcpClient(t.baseUrl!, '/knowledge-mcp', (await t.user('reader')).token);
    tools = (await mcp.listTools()).tools;
  });

  afterAll(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('renders callouts (folded ones as closed <details>), highlights, footnotes, tasks, math, tags and Mermaid code', async () => {
    const page = await html('welcome');
    expect(page).toMatch(/<details class="callout" data-callout="tip">\n<summary class="callout-title"><span class="callout-title-inner">A folded tip<\/span><\/summary>/);
    expect(page).toContain('<div class="callout" data-callout="warning">');
    expect(page).toContain('<mark>twice a week</mark>');
    expect(page).toContain('<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>');
    expect(page).toContain('By the first group of volunteers.');
    expect(page).toContain('<input type="checkbox" disabled="disabled" checked="checked" class="task-list-item-checkbox" /> Prune the old pear tree');
    expect(page).toContain('<span class="math math-inline"><span class="katex"><math');
    expect(page).toContain('<mfrac>');
    expect(page).toContain('<a class="tag" href="/tags/getting-started">#getting-started</a>');
    expect(page).toContain('<pre><code class="language-mermaid">graph TD');
    expectNoSecret(page);
  });

  it('serves the page to readers with KaTeX’s stylesheet from the server itself', async () => {
    const view = await t.http.get('/page/welcome').expect(200);
    expect(view.text).toContain('<link rel="stylesheet" href="/static/vendor/katex/katex.min.css">');
    expectNoSecret(view.text);
    const css = await t.http.get('/static/vendor/katex/katex.min.css').expect(200);
    expect(css.text).toContain('.katex');
    await t.http.get('/static/vendor/mermaid/mermaid.min.js').expect(200).expect('Content-Type', /javascript/);
  });

  it('transcludes a section and a block, with links to their source, and cuts the cycle', async () => {
    const page = await html('digest');
    expect(page).toContain('<a class="wikilink transclusion-link" href="/page/glossary#orchard">Glossary › Orchard</a>');
    expect(page).toContain('An orchard is a planted grove of fruit trees');
    expect(page).not.toContain('The lower part of a grafted tree');
    expect(page).toContain('<a class="wikilink transclusion-link" href="/page/glossary#%5Epollen-fact">Glossary</a>');
    expect(page).toContain('Pollination moves pollen between blossoms');
    expect(page).toContain('Quince jelly needs patience');
    // Recipes embeds the Digest back: inside the Digest that embed is a link card, not the Digest again.
    expect(page.match(/The notes that matter most/g)).toHaveLength(1);
    expect(page).toContain('<div class="embed-card"><a class="wikilink" href="/page/digest">📄 Digest</a></div>');
    expect(page).toContain('<a class="wikilink" href="/page/glossary#%5Epollen-fact">the pollen note</a>');
    expect(await html('glossary')).toContain('<p id="^pollen-fact">Pollination moves pollen between blossoms, mostly by bees.</p>');
    expectNoSecret(page);
  });

  it('shows an edit of an embedded section in every page that embeds it, in the render and the page view caches', async () => {
    const before = await t.http.get('/page/digest').expect(200);
    expect(before.text).toContain('planted grove of fruit trees');
    const glossary = (await t.http.get('/api/pages/glossary').expect(200)).body;
    const body = (glossary.body as string).replace('planted grove of fruit trees', 'planted grove of nut and fruit trees');
    await author.put('/api/pages/glossary').send({ body, baseVersion: glossary.version }).expect(200);
    expect(await html('digest')).toContain('planted grove of nut and fruit trees');
    expect((await t.http.get('/page/digest').expect(200)).text).toContain('planted grove of nut and fruit trees');
    expect(await html('recipes')).toContain('planted grove of nut and fruit trees');
  });

  it('finds a page made of embeds by the embedded text, and the embedded text at its source too', async () => {
    const slugs = (await search('orchard grove nut')).map((hit) => hit.slug);
    expect(slugs).toContain('digest');
    expect(slugs).toContain('glossary');
    const quince = (await search('quince')).map((hit) => hit.slug);
    expect(quince).toContain('recipes');
    expect(quince).toContain('digest');
    // Marked as transcluded: weight D of the Digest's search vector, not its own text (C).
    const [row] = await t.dataSource.query(`SELECT ts_filter(search, '{c}')::text AS own, ts_filter(search, '{d}')::text AS transcluded FROM pages WHERE slug = 'digest'`);
    expect(row.own).not.toContain('quinc');
    expect(row.transcluded).toContain('quinc');
  });

  it('shows snippets as plain text on the best sentence, with the reader’s words marked', async () => {
    const [hit] = (await search('simmer patience')).filter((h) => h.slug === 'recipes');
    expect(hit.snippetHtml).toContain('<mark>patience</mark>');
    expect(hit.snippetHtml).toContain('<mark>simmer</mark>');
    expect(hit.snippetHtml).not.toMatch(/\[\[|\]\]|\*\*|^#|```/);
    const [welcome] = (await search('ladders')).filter((h) => h.slug === 'welcome');
    expect(welcome.snippetHtml).toContain('Careful with <mark>ladders</mark>');
    expect(welcome.snippetHtml).not.toContain('[!warning]');
  });

  it('never finds, shows or snips the words of a comment', async () => {
    for (const secret of ['zebra', 'umbrella', 'walrus', 'pineapple', 'cerulean', 'marmalade']) {
      expect(await search(secret)).toEqual([]);
    }
    const lexemes = await t.dataSource.query(`SELECT lexeme FROM page_search_terms WHERE lexeme IN ('zebra', 'umbrella', 'walrus', 'pineappl', 'cerulean', 'marmalad')`);
    expect(lexemes).toEqual([]);
    for (const hit of [...(await search('orchard')), ...(await search('ladder key statue')), ...(await search('budget planning password'))]) expectNoSecret(hit.snippetHtml);
    const preview = await author.post('/api/preview').send({ body: 'Shown %%zebra-umbrella%% text' }).expect(200);
    expectNoSecret(preview.body.html);
  });

  it('joins #tags in the text with the frontmatter’s, and lists them on tag pages', async () => {
    const welcome = (await t.http.get('/api/pages/welcome').expect(200)).body;
    expect(welcome.tags).toEqual(['vault', 'getting-started']);
    const tag = await t.http.get('/tags/getting-started').expect(200);
    expect(tag.text).toContain('<a href="/page/welcome">Welcome</a>');
    const tags = await t.http.get('/tags').expect(200);
    expect(tags.text).toContain('href="/tags/vault"');
    expect(tags.text).toContain('href="/tags/getting-started"');
    expect((await t.http.get('/page/welcome').expect(200)).text).toContain('<a class="chip tag" href="/tags/getting-started">#getting-started</a>');
    expect((await t.http.get('/api/tags').expect(200)).body).toEqual([{ name: 'getting-started', count: 1 }, { name: 'kitchen/preserves', count: 1 }, { name: 'vault', count: 1 }]);
    // A tag's page lists the pages of the tags nested under it.
    expect((await t.http.get('/api/tags/kitchen').expect(200)).body.items.map((p: { slug: string }) => p.slug)).toEqual(['recipes']);
    expect((await t.http.get('/tags/kitchen').expect(200)).text).toContain('href="/tags/kitchen%2Fpreserves"');
    expect((await t.http.get('/api/tags/vault').expect(200)).body).toEqual({ tag: 'vault', total: 1, items: [{ slug: 'welcome', title: 'Welcome', cluster: null, tags: ['vault', 'getting-started'] }] });
    await t.http.get(`/api/tags/${'x'.repeat(201)}`).expect(400);
    await t.http.get(`/tags/${'x'.repeat(201)}`).expect(400);
  });

  it('keeps the comments in the source (export, the editor), and only there', async () => {
    const welcome = (await t.http.get('/api/pages/welcome').expect(200)).body;
    expect(welcome.body).toContain('%%The launch code is zebra-umbrella');
  });

  it('gives agents no comment: get_page, passages and search snippets over MCP', async () => {
    const page = await callValidated<{ page: { body: string } }>(mcp, tools, 'get_page', { slug: 'welcome' });
    expect(page.page.body).toContain('> [!tip]- A folded tip');
    expectNoSecret(page.page.body);
    const context = await callValidated<{ passages: { text: string }[] }>(mcp, tools, 'retrieve_context', { question: 'ladder orchard planning budget launch' });
    expect(context.passages.length).toBeGreaterThan(0);
    for (const passage of context.passages) {
      expectNoSecret(passage.text);
      expect(passage.text).not.toMatch(/\*\*|\[\[|\[!tip\]/);
    }
    const agentPage = await callValidated<{ sections: { text: string }[]; summary: string }>(mcp, tools, 'get_page_for_agent', { slug: 'welcome', tokenBudget: 4000 });
    for (const section of agentPage.sections) expectNoSecret(section.text);
    expectNoSecret(agentPage.summary);
    const found = await callValidated<{ hits: { snippet: string }[] }>(mcp, tools, 'search', { query: 'orchard ladder' });
    for (const hit of found.hits) expectNoSecret(hit.snippet);
  });

  it('extracts each text once, at its source, and never a comment', async () => {
    await startWorker(t);
    await setPolicy(admin, 'root', 'include');
    await setPolicy(admin, 'kitchen', 'include');
    await waitForJobs(t, { timeoutMs: 90_000 });
    const chunks: { slug: string; text: string }[] = await t.dataSource.query(
      `SELECT p.slug, c.text FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id ORDER BY p.slug, c.position`,
    );
    expect(new Set(chunks.map((c) => c.slug))).toEqual(new Set(['digest', 'glossary', 'recipes', 'welcome']));
    for (const chunk of chunks) expectNoSecret(chunk.text);
    const digest = chunks.filter((c) => c.slug === 'digest').map((c) => c.text).join('\n');
    expect(digest).toContain('![[Glossary#Orchard]]');
    expect(digest).not.toContain('planted grove');
    expect(chunks.filter((c) => c.slug === 'glossary').map((c) => c.text).join('\n')).toContain('planted grove');
  });
});
