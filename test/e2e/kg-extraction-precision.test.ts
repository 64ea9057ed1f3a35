// Issue 22 through the whole pipeline (save → policy → job → queue → approval), on the built-in extractor: attachments
// are never proposed, variants of a name on several pages are one proposal whose spellings become aliases, the word
// statistics are kept with every save, and a related_to from mere co-occurrence needs pairs well above chance.
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgExtractionRepository } from '../../src/kg/kg-extraction.repository.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const body = (text: string) => `---\ncluster: vault\n---\n${text}\n`;

describe('what the built-in extractor proposes', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await startWorker(t);
    const pages: [string, string][] = [
      ['Quartz Sync', 'The Quartz Sync service keeps vaults alike. Open the gear ![[lucide-cog.svg#icon]] and see ![[Quartz Screenshot.png]].\n\nSee also [[Web Clipper]] and [[report.pdf]].'],
      ['Web Clipper', 'The Web Clipper saves pages into the vault. [[Quartz Sync]] copies them; see [[web-clipper]] for [[Manage vaults]].'],
      ['Harbour', 'Use the web clipper from [[Web Clipper]] on a phone. The folder holds notes, and any folder works.'],
      ['Manage vaults', 'Open a folder to add a vault. A folder may hold many notes.'],
      ['Canvas Plugins', 'The [[Canvas Plugins]] draw boards for a vault.'],
      ['Boards', 'Every [[Canvas Plugin]] draws a board.'],
      ['site generator', 'A program that turns Markdown into a website.'],
      ['GitHub Pages', 'Hosting for static sites.'],
      ['Hosting', '[[GitHub Pages]] is built on a [[site generator]].'],
      ['Other Hosts', 'Netlify is built on a [[site generator]] as well.'],
    ];
    for (const [title, text] of pages) await admin.post('/api/pages').send({ title, body: body(text) }).expect(201);
    await setPolicy(admin, 'vault', 'include');
    await waitForJobs(t);
  }, 120_000);
  afterAll(() => t?.close());

  it('counts every saved page’s words, and drops them when the page goes to the trash', async () => {
    const [row] = await t.dataSource.query(
      `SELECT sum(lower)::int AS lower, sum(capitalised)::int AS capitalised, count(*)::int AS pages FROM kg_page_terms WHERE term = 'folder'`,
    );
    expect(row).toEqual({ lower: 4, capitalised: 0, pages: 2 });
    // What the extractor reads of them: each word's sums (once however often it is asked), none for a word no page
    // has, and the number of live pages.
    const repository = t.app.get(KgExtractionRepository);
    const [{ id: harbour }] = await t.dataSource.query(`SELECT id FROM pages WHERE slug = 'harbour'`);
    const live = async () => count(t, `SELECT count(*) FROM pages WHERE deleted_at IS NULL`);
    const pagesBefore = await live();
    expect(await repository.termStats(harbour, ['folder', 'folder', 'no-such-word-anywhere'])).toEqual({
      stats: { pages: pagesBefore, terms: { folder: { pages: 2, lower: 4, capitalised: 0 } } },
      own: true,
    });
    expect(await repository.termStats(harbour, [])).toEqual({ stats: { pages: pagesBefore, terms: {} }, own: true });
    await admin.post('/api/pages').send({ title: 'Scratch', body: 'A folder here.' }).expect(201);
    expect((await repository.termStats(harbour, ['folder'])).stats).toEqual({ pages: pagesBefore + 1, terms: { folder: { pages: 3, lower: 5, capitalised: 0 } } });
    expect(await count(t, `SELECT count(*) FROM kg_page_terms t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'scratch'`)).toBeGreaterThan(0);
    // An edit writes only the words whose counts changed: the others keep their row as it was, not even locked.
    const words = async () =>
      Object.fromEntries(
        ((await t.dataSource.query(`SELECT t.term, t.lower, t.capitalised, t.xmin::text AS xmin, t.xmax::text AS xmax FROM kg_page_terms t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'scratch'`)) as { term: string; lower: number; capitalised: number; xmin: string; xmax: string }[]).map((r) => [r.term, r]),
      );
    const before = await words();
    await admin.put('/api/pages/scratch').send({ body: 'A folder here. Old lanterns glow.', baseVersion: 1 }).expect(200);
    const after = await words();
    expect(after.lanterns).toMatchObject({ lower: 1, capitalised: 0 });
    expect(after.folder).toEqual(before.folder);
    await admin.put('/api/pages/scratch').send({ body: 'Old lanterns glow.', baseVersion: 2 }).expect(200);
    expect((await words()).folder).toBeUndefined();
    await admin.delete('/api/pages/scratch').expect(204);
    expect(await count(t, `SELECT count(*) FROM kg_page_terms t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'scratch'`)).toBe(0);
    expect((await repository.termStats(harbour, ['folder', 'lanterns'])).stats).toEqual({ pages: pagesBefore, terms: { folder: { pages: 2, lower: 4, capitalised: 0 } } });
  });

  it('never proposes an attachment, a how-to title or a file name', async () => {
    const names: { name: string }[] = await t.dataSource.query(`SELECT name FROM kg_proposals WHERE kind = 'node'`);
    for (const { name } of names) expect(name).not.toMatch(/\.(?:svg|png|pdf)|lucide|Screenshot|^manage vaults$/i);
  });

  it('gathers the variants of a name into one proposal, whose spellings become aliases on approval', async () => {
    // "Canvas Plugins" (a page) on one page, "Canvas Plugin" (a wanted page) on another: one name.
    const plugins: { id: string; name: string; support: number }[] = await t.dataSource.query(
      `SELECT id::text AS id, name, support_count AS support FROM kg_proposals
        WHERE kind = 'node' AND status = 'pending' AND lower(name) IN ('canvas plugin', 'canvas plugins')`,
    );
    expect(plugins).toHaveLength(1);
    expect(plugins[0].support).toBe(2);
    await admin.post(`/admin/knowledge-graph/proposals/${plugins[0].id}/approve`).send({}).expect(200);
    const [node] = await t.dataSource.query(`SELECT name, aliases FROM kg_nodes WHERE lower(name) IN ('canvas plugin', 'canvas plugins')`);
    const other = node.name === 'Canvas Plugins' ? 'Canvas Plugin' : 'Canvas Plugins';
    expect(node.aliases).toEqual([other]);
  });

  it('proposes no related_to for two names that only share a sentence on one page', async () => {
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE kind = 'edge' AND predicate = 'related_to' AND NOT (source_name ILIKE 'quartz sync' OR target_name ILIKE 'quartz sync')`)).toBe(0);
  });

  it('proposes a relation a sentence states between two proposed names, as credible as the weaker, and none to a name nobody proposes', async () => {
    const edges: { source: string; predicate: string; target: string; raw: number; signals: string[] }[] = await t.dataSource.query(
      `SELECT source_name AS source, predicate, target_name AS target, raw_confidence AS raw, signals FROM kg_proposals
        WHERE kind = 'edge' AND predicate <> 'related_to' ORDER BY source_name`,
    );
    // Two linked names (the weaker a lower-case one, just above the 0.6 threshold): the sentence's pattern makes the
    // relation as credible as that. It used to score min × (1 − 0.5²) × 1.15, under the threshold, and never reached
    // the queue (this test fails so without the change).
    const stated = edges.find((e) => e.source === 'GitHub Pages' && e.target === 'site generator');
    expect(stated).toMatchObject({ predicate: 'uses', signals: ['sentence-pattern'] });
    const [{ weaker }] = await t.dataSource.query(
      `SELECT min(raw_confidence)::float8 AS weaker FROM kg_proposals WHERE kind = 'node' AND name IN ('GitHub Pages', 'site generator')`,
    );
    expect(Number(stated!.raw)).toBeGreaterThanOrEqual(0.6);
    expect(Number(stated!.raw)).toBeLessThanOrEqual(weaker);
    // `Netlify` is named once, capitalised, and proposed by no page: no relation to it.
    expect(edges.filter((e) => e.source === 'Netlify' || e.target === 'Netlify')).toEqual([]);
  });

  it('ends a stated relation at a name the page mentions once when another page already proposes it', async () => {
    // `Zola` is proposed from its own page first; then a page names it once, in a sentence that states a relation to a
    // name that page proposes. Without the other page's proposal the name is a bare mention, like `Netlify` above.
    await admin.post('/api/pages').send({ title: 'Zola', body: body('Zola is a static site generator. Zola renders Markdown into pages.') }).expect(201);
    await waitForJobs(t);
    await admin.post('/api/pages').send({ title: 'Harbour Docs', body: body('[[Harbour Docs]] keep the harbour rules. [[GitHub Pages]] is built on Zola here.') }).expect(201);
    await waitForJobs(t);
    const [zola] = await t.dataSource.query(`SELECT raw_confidence::float8 AS raw FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = 'Zola'`);
    expect(zola).toBeDefined();
    const stated = await t.dataSource.query(
      `SELECT predicate, raw_confidence::float8 AS raw, signals FROM kg_proposals WHERE kind = 'edge' AND source_name = 'GitHub Pages' AND target_name = 'Zola'`,
    );
    expect(stated).toEqual([{ predicate: 'uses', raw: expect.any(Number), signals: ['sentence-pattern'] }]);
    expect(stated[0].raw).toBeGreaterThanOrEqual(0.6);
    expect(stated[0].raw).toBeLessThanOrEqual(zola.raw);
  });
});
