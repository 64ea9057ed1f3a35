import type { Agent } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagesService } from '../../src/pages/pages.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface ImportResult {
  path: string;
  slug: string;
  status: string;
  error?: string;
}

describe('POST /api/import', () => {
  let t: TestApp;
  let author: Agent;

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.as('author', { name: 'importer' });
  });

  afterAll(async () => {
    await t?.close();
  });

  const importBatch = (pages: unknown) => author.post('/api/import').send({ pages });
  const revisionsOf = async (slug: string) => (await t.http.get(`/api/pages/${slug}/history`).expect(200)).body.items as { message: string; author: string }[];

  it('records each batch that changes pages in the audit log, committed before the answer; page commits stay scoped to their transactions', async () => {
    const auditOf = async () =>
      (await t.dataSource.query(`SELECT actor_name, target, details FROM audit_log WHERE action = 'page.import' ORDER BY id`)) as { actor_name: string; target: string; details: Record<string, number> }[];
    const before = (await auditOf()).length;
    await importBatch([
      { path: 'audit/One.md', title: 'Audit One', body: 'One.' },
      { path: 'audit/Two.md', title: 'Audit Two', body: 'Two [[Audit One]].' },
    ]).expect(200);
    expect((await auditOf()).slice(before)).toEqual([{ actor_name: 'importer', target: 'pages', details: { created: 2, updated: 0, unchanged: 0, failed: 0 } }]);
    // Nothing changed: nothing to record.
    await importBatch([{ path: 'audit/One.md', title: 'Audit One', body: 'One.' }]).expect(200);
    expect((await auditOf()).slice(before)).toHaveLength(1);
    // Imports leave the connection's settings as they were.
    expect((await t.dataSource.query('SHOW synchronous_commit'))[0].synchronous_commit).toBe('on');
  });

  it('creates new pages, reports identical ones unchanged and updates changed ones, each with its own status', async () => {
    const first = await importBatch([
      { path: 'notes/Alpha.md', title: 'Alpha', body: 'Links to [[Beta]].' },
      { path: 'Beta.md', title: 'Beta', body: '---\ncluster: notes\n---\nBack to [[Alpha]].' },
    ]).expect(200);
    expect(first.body.results).toEqual([
      { path: 'notes/Alpha.md', slug: 'alpha', status: 'created' },
      { path: 'Beta.md', slug: 'beta', status: 'created' },
    ]);
    expect(first.body.counts).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 0 });
    expect((await revisionsOf('alpha'))[0]).toMatchObject({ message: 'Imported from notes/Alpha.md', author: 'importer' });
    const beta = await t.http.get('/api/pages/beta').expect(200);
    expect(beta.body).toMatchObject({ title: 'Beta', cluster: 'notes', body: '---\ncluster: notes\n---\nBack to [[Alpha]].' });
    // Links across the batch resolve whichever page came first.
    const alphaLinks = await t.http.get('/api/pages/alpha/links').expect(200);
    expect(alphaLinks.body.items[0].page.slug).toBe('beta');

    const again = await importBatch([
      { path: 'notes/Alpha.md', title: 'Alpha', body: 'Links to [[Beta]].' },
      { path: 'Beta.md', title: 'Beta', body: '---\ncluster: notes\n---\nBack to [[Alpha]], and more.' },
    ]).expect(200);
    expect(again.body.results.map((r: ImportResult) => r.status)).toEqual(['unchanged', 'updated']);
    expect(await revisionsOf('alpha')).toHaveLength(1);
    const betaRevisions = await revisionsOf('beta');
    expect(betaRevisions).toHaveLength(2);
    expect(betaRevisions[0].message).toBe('Imported from Beta.md');
    expect((await t.http.get('/api/pages/beta').expect(200)).body).toMatchObject({ version: 2, body: '---\ncluster: notes\n---\nBack to [[Alpha]], and more.' });
  });

  it('keeps where each note lives in its vault, and the cluster line it was given, until the page is renamed or moved', async () => {
    const page = async (slug: string) => (await t.http.get(`/api/pages/${slug}`).expect(200)).body as { vaultPath: string | null; vaultCluster: string | null; version: number; body: string };
    await importBatch([
      { path: 'Getting started/Deep/Origin One.md', title: 'Origin One', body: '---\ncluster: getting-started/deep\n---\nOne.', addedCluster: 'getting-started/deep' },
      // A path that could not be written back safely is still imported; the page just has no vault path.
      { path: '../outside/Origin Two.md', title: 'Origin Two', body: 'Two.' },
      // A claimed cluster line that is not in the text is not kept.
      { path: 'Origin Three.md', title: 'Origin Three', body: 'Three.', addedCluster: 'nowhere' },
    ]).expect(200);
    expect(await page('origin-one')).toMatchObject({ vaultPath: 'Getting started/Deep/Origin One.md', vaultCluster: 'getting-started/deep' });
    expect(await page('origin-two')).toMatchObject({ vaultPath: null, vaultCluster: null });
    expect(await page('origin-three')).toMatchObject({ vaultPath: 'Origin Three.md', vaultCluster: null });

    // Moved in the vault with the same text: unchanged (no revision), and the new path is kept.
    const moved = await importBatch([{ path: 'Elsewhere/Origin Three.md', title: 'Origin Three', body: 'Three.' }]).expect(200);
    expect(moved.body.results[0].status).toBe('unchanged');
    expect(await page('origin-three')).toMatchObject({ vaultPath: 'Elsewhere/Origin Three.md', version: 1 });

    // An edit in the wiki that keeps title and cluster keeps the origin; one that changes the cluster forgets it.
    const one = await page('origin-one');
    await author.put('/api/pages/origin-one').send({ body: `${one.body} More.`, baseVersion: one.version }).expect(200);
    const edited = await page('origin-one');
    expect(edited).toMatchObject({ vaultPath: 'Getting started/Deep/Origin One.md', vaultCluster: 'getting-started/deep' });
    await author.put('/api/pages/origin-one').send({ body: '---\ncluster: kitchen\n---\nOne.', baseVersion: edited.version }).expect(200);
    expect(await page('origin-one')).toMatchObject({ vaultPath: null, vaultCluster: null });
  });

  it('keeps one page per vault file: a second file of a batch at the same path fails, and a later note at a path takes it over', async () => {
    const page = async (slug: string) => (await t.http.get(`/api/pages/${slug}`).expect(200)).body as { vaultPath: string | null };
    // Found by a hostile-input audit: both were created, and `kurate export` then refused to write either.
    const batch = (await importBatch([
      { path: 'Same/Note.md', title: 'Same Path One', body: 'one' },
      { path: 'same/note.md', title: 'Same Path Two', body: 'two' },
    ]).expect(200)).body.results as ImportResult[];
    expect(batch.map((r) => r.status)).toEqual(['created', 'failed']);
    expect(batch[1].error).toBe('Another file of this batch has the path "same/note.md" (letter case aside); a vault has one file at a path.');
    await t.http.get('/api/pages/same-path-two').expect(404);
    // The vault's note at that path now has another title (a new page): the old page forgets the path, and exports to
    // `<cluster>/<title>.md`; nothing is lost.
    await importBatch([{ path: 'Same/Note.md', title: 'Same Path Renamed', body: 'renamed in the vault' }]).expect(200);
    expect(await page('same-path-renamed')).toMatchObject({ vaultPath: 'Same/Note.md' });
    expect(await page('same-path-one')).toMatchObject({ vaultPath: null });
    const paths: { vault_path: string }[] = await t.dataSource.query(`SELECT vault_path FROM pages WHERE lower(vault_path) = 'same/note.md'`);
    expect(paths).toHaveLength(1);
  });

  it('does not write a vault origin back onto a page renamed between the import saving it and recording where it lives', async () => {
    // The interleaving, step by step: the import has created the page; a web rename commits; then the import records
    // the page's origin, as it saved it. Before, it wrote the old vault path onto the renamed page (and export wrote
    // the renamed page to the old file).
    const pages = t.app.get(PagesService);
    const actor = { userId: null, name: 'importer', role: 'author' as const, via: 'token' as const };
    const created = await pages.create({ title: 'Imported Then Renamed', body: 'Text.', message: 'Imported from Imported Then Renamed.md' }, actor);
    await author.post('/api/pages/imported-then-renamed/rename').send({ title: 'Renamed On The Web', rewriteLinks: false }).expect(201);
    await pages.recordVaultOrigin(created, { path: 'Imported Then Renamed.md', cluster: null });
    expect((await t.http.get('/api/pages/renamed-on-the-web').expect(200)).body).toMatchObject({ vaultPath: null, vaultCluster: null });
    // Recorded against the page as it is now, it is kept.
    const now = (await t.http.get('/api/pages/renamed-on-the-web').expect(200)).body;
    await pages.recordVaultOrigin(now, { path: 'Renamed On The Web.md', cluster: null });
    expect((await t.http.get('/api/pages/renamed-on-the-web').expect(200)).body).toMatchObject({ vaultPath: 'Renamed On The Web.md' });
  });

  it('takes the slug from the frontmatter title when there is one', async () => {
    const res = await importBatch([{ path: 'x/file-name.md', title: 'file-name', body: '---\ntitle: Gamma Ray\n---\nText' }]).expect(200);
    expect(res.body.results[0]).toEqual({ path: 'x/file-name.md', slug: 'gamma-ray', status: 'created' });
    expect((await t.http.get('/api/pages/gamma-ray').expect(200)).body.title).toBe('Gamma Ray');
    await t.http.get('/api/pages/file-name').expect(404);
  });

  it('gives a page a new title when only its letter case changed (same slug)', async () => {
    await importBatch([{ path: 'delta.md', title: 'delta', body: 'D' }]).expect(200);
    const res = await importBatch([{ path: 'Delta.md', title: 'Delta', body: 'D' }]).expect(200);
    expect(res.body.results[0].status).toBe('updated');
    expect((await t.http.get('/api/pages/delta').expect(200)).body.title).toBe('Delta');
    const res2 = await importBatch([{ path: 'Delta.md', title: 'Delta', body: 'D' }]).expect(200);
    expect(res2.body.results[0].status).toBe('unchanged');
  });

  it('fails only the bad pages of a batch, naming the frontmatter line, and saves the rest', async () => {
    const res = await importBatch([
      { path: 'good-1.md', title: 'Good One', body: 'fine' },
      { path: 'broken.md', title: 'Broken', body: '---\ntags: [a, b]\ncluster: Not A Slug\n---\ntext' },
      { path: 'bad-yaml.md', title: 'Bad Yaml', body: '---\ntitle: ok\nkey: [unclosed\n---\ntext' },
      { path: 'symbols.md', title: '???', body: 'no letters in the title' },
      { path: 'binary.md', title: 'Binary', body: 'a\u0000b' },
      { path: 'good-2.md', title: 'Good Two', body: 'fine too' },
    ]).expect(200);
    const [good1, broken, badYaml, symbols, binary, good2] = res.body.results as ImportResult[];
    expect(good1.status).toBe('created');
    expect(good2.status).toBe('created');
    expect(broken).toMatchObject({ path: 'broken.md', slug: '', status: 'failed' });
    expect(broken.error).toMatch(/^Invalid frontmatter at line 3: "cluster"/);
    expect(badYaml.status).toBe('failed');
    expect(badYaml.error).toMatch(/^Invalid frontmatter at line \d+/);
    expect(symbols).toMatchObject({ status: 'failed', error: 'The title "???" needs at least one letter or digit.' });
    // A NUL in a page's source is kept as U+FFFD (docs/data-integrity.md): the page is saved.
    expect(binary).toMatchObject({ slug: 'binary', status: 'created' });
    expect(res.body.counts).toEqual({ created: 3, updated: 0, unchanged: 0, failed: 3 });
    await t.http.get('/api/pages/broken').expect(404);
    expect((await t.http.get('/api/pages/binary').expect(200)).body.body).toBe('a\uFFFDb');
  });

  it('refuses a second file naming the same page in one batch instead of overwriting the first', async () => {
    const res = await importBatch([
      { path: 'a/Epsilon.md', title: 'Epsilon', body: 'first' },
      { path: 'b/epsilon.md', title: 'epsilon', body: 'second' },
    ]).expect(200);
    expect(res.body.results[0].status).toBe('created');
    expect(res.body.results[1]).toMatchObject({ slug: 'epsilon', status: 'failed' });
    expect(res.body.results[1].error).toContain('a/Epsilon.md');
    expect((await t.http.get('/api/pages/epsilon').expect(200)).body.body).toBe('first');
  });

  it('reports a page in the trash as failed rather than creating a twin', async () => {
    await importBatch([{ path: 'zeta.md', title: 'Zeta', body: 'z' }]).expect(200);
    await author.delete('/api/pages/zeta').expect(204);
    const res = await importBatch([{ path: 'zeta.md', title: 'Zeta', body: 'z again' }]).expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'failed' });
    expect(res.body.results[0].error).toMatch(/trash/);
  });

  it('lets only authors import: 401 without a login, 403 for a reader', async () => {
    const batch = { pages: [{ path: 'eta.md', title: 'Eta', body: 'e' }] };
    const anonymous = await t.http.post('/api/import').send(batch).expect(401);
    expect(anonymous.body.message).toBe('Log in to continue.');
    await (await t.as('reader')).post('/api/import').send(batch).expect(403);
    await t.http.get('/api/pages/eta').expect(404);
  });

  it('answers 400 for malformed batches without writing anything', async () => {
    const before = (await t.http.get('/api/reports/summary').expect(200)).body.pages;
    const cases: unknown[] = [
      undefined,
      'not a list',
      [],
      [{ path: 'a.md', title: 'A' }],
      [{ path: 'a.md', title: '', body: 'x' }],
      [{ path: '', title: 'A', body: 'x' }],
      [{ path: 'a.md', title: 42, body: 'x' }],
      [{ path: 'a.md', title: 'A', body: 'x', extra: true }],
      ['a string'],
      [{ path: 'ok.md', title: 'Ok', body: 'x' }, { path: 'long.md', title: 'T'.repeat(301), body: 'x' }],
    ];
    for (const pages of cases) {
      const res = await author.post('/api/import').send(pages === undefined ? {} : { pages });
      expect(res.status, JSON.stringify(pages)).toBe(400);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await t.http.get('/api/reports/summary').expect(200)).body.pages).toBe(before);
  });

  it('refuses more than 200 pages in one batch with 400, and takes exactly 200', async () => {
    const pagesOf = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ path: `${prefix}-${i}.md`, title: `${prefix} ${i}`, body: `page ${i}` }));
    const tooMany = await importBatch(pagesOf(201, 'many')).expect(400);
    expect(tooMany.body.message).toMatch(/at most 200 pages/);
    await t.http.get('/api/pages/many-0').expect(404);
    // Speed is measured by `npm run bench`, not here: a timed assertion fails on a busy machine.
    const res = await importBatch(pagesOf(200, 'bulk')).expect(200);
    expect(res.body.counts.created).toBe(200);
  });

  it('summarises pages and links of the whole wiki', async () => {
    const res = await t.http.get('/api/reports/summary').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['brokenLinks', 'orphans', 'pages', 'resolvedLinks', 'wantedPages']);
    for (const value of Object.values(res.body)) expect(Number.isInteger(value)).toBe(true);
    expect(res.body.resolvedLinks).toBeGreaterThanOrEqual(2); // alpha → beta and beta → alpha
  });
});
