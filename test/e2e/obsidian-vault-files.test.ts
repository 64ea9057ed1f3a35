// @module-tag slow (runs bin/kurate processes): `npm run test:fast` leaves it out; docs/testing.md
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, kurate, treeOf, type CliTarget } from '../support/cli.js';
import { OBSIDIAN_VAULT } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The whole vault fixture as a user brings it (issue 19, "done means"): `kurate import` of a folder with notes using
 * callouts, highlights, comments, block ids, section and block embeds, tags, footnotes and math, and the image, PDF
 * and script-carrying SVG they embed. Then its HTML, search, the files as served, and `kurate export` byte for byte.
 */
describe('an Obsidian vault with its files, through kurate import and export', () => {
  let t: TestApp;
  let server: CliTarget;
  const scratch = mkdtempSync(path.join(tmpdir(), 'kurate-vault-files-'));
  const html = async (slug: string) => (await t.http.get(`/api/pages/${slug}?render=true`).expect(200)).body.html as string;

  beforeAll(async () => {
    await ensureCliBuilt();
    t = await startTestApp({ listen: true });
    server = { baseUrl: t.baseUrl!, token: (await t.user('author', { name: 'vault owner' })).token };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('imports every note and every file at its path, and leaves no file a wanted page', async () => {
    const result = await kurate(server, 'import', OBSIDIAN_VAULT, '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.counts).toEqual({ created: 4, updated: 0, unchanged: 0, failed: 0 });
    expect(report.attachments.results.map((r: { path: string; mediaType: string }) => [r.path, r.mediaType])).toEqual([
      ['LICENSE', 'text/plain'],
      ['attachments/logo.svg', 'image/svg+xml'],
      ['attachments/orchard-map.png', 'image/png'],
      ['attachments/planting-plan.pdf', 'application/pdf'],
    ]);
    expect(report.wiki.wantedPages).toBe(0);
  }, 90_000);

  it('renders the files the notes embed next to the embedded sections, blocks and the Obsidian syntax', async () => {
    const digest = await html('digest');
    expect(digest).toContain('src="/files/attachments/planting-plan.pdf"');
    expect(digest).toContain('src="/files/attachments/logo.svg"');
    // The section and the block it embeds, with their own syntax rendered.
    expect(digest).toContain('<h2 id="orchard">Orchard</h2>\n<p>An orchard is a planted grove of fruit trees');
    // A file only the embedded section references (the Glossary's) shows inside the embed, as at its source.
    expect(digest).toMatch(/<div class="transclusion-content">\n<h2 id="orchard">Orchard<\/h2>\n<p>An orchard[^<]*<\/p>\n<p><img class="file-embed file-embed-image" src="\/files\/attachments\/orchard-map.png" alt="orchard-map.png" width="60" \/><\/p>/);
    expect(digest).toContain('<p id="^pollen-fact">Pollination moves pollen between blossoms, mostly by bees.</p>');
    expect(digest).not.toMatch(/%%|==|bees\. \^pollen-fact/);
    const welcome = await html('welcome');
    expect(welcome).toContain('<mark>twice a week</mark>');
    expect(welcome).toContain('data-callout="tip"');
    expect(welcome).toContain('<span class="katex">');
    expect(welcome).not.toContain('zebra-umbrella');
  });

  it('serves the SVG that carries a script only as a download, sandboxed, never as a page of the wiki', async () => {
    const svg = await t.http.get('/files/attachments/logo.svg').expect(200);
    expect(svg.headers['content-disposition']).toBe('attachment; filename=logo.svg');
    expect(svg.headers['x-content-type-options']).toBe('nosniff');
    expect(svg.headers['content-security-policy']).toContain('sandbox');
    const png = await t.http.get('/files/attachments/orchard-map.png').expect(200);
    expect(png.headers['content-type']).toBe('image/png');
  });

  it('finds the notes by their text and by what they embed, with plain-text snippets and no comment', async () => {
    const hits = (await t.http.get('/api/search').query({ q: 'planted grove' }).expect(200)).body.hits as { slug: string; snippetHtml: string }[];
    expect(hits.map((hit) => hit.slug)).toEqual(expect.arrayContaining(['glossary', 'digest']));
    for (const hit of hits) expect(hit.snippetHtml).not.toMatch(/\[\[|\*\*|%%|==/);
    expect((await t.http.get('/api/search').query({ q: 'zebra' }).expect(200)).body.hits).toEqual([]);
  });

  it('exports the vault back byte for byte: every file, and every note at its path with its comments', async () => {
    const exportDir = path.join(scratch, 'export');
    const result = await kurate(server, 'export', exportDir);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`Exported 4 pages and 4 files to ${exportDir}.`);
    // Import gave the note in kitchen/ its folder as cluster, a line in a new frontmatter block (docs/cli.md), and
    // export leaves that line out again: text and files come back as they were.
    expect((await t.http.get('/api/pages/recipes').expect(200)).body.body).toMatch(/^---\ncluster: kitchen\n---\n/);
    expect(treeOf(exportDir)).toEqual(treeOf(OBSIDIAN_VAULT));
    expect(readFileSync(path.join(exportDir, 'Welcome.md'), 'utf8')).toContain('%%The launch code is zebra-umbrella');
  }, 90_000);
});
