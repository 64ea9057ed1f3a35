import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from 'supertest';
import { SHARE_PAGE_DECISION_GATE_SQL } from '../../src/db/page-decision-gate.js';
import { nodesOf, planOf, statementSentBy, statementsSentBy, type PlanNode } from '../support/query-plans.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { foamDocsCopies, importPages } from './kg-test-helpers.js';

/**
 * What a save costs in statements and in rows rewritten (issue 18 part 5: a save's round trips each wait for a core
 * under load, and rows deleted and inserted again leave dead rows and index entries behind). An edit that keeps the
 * page's names neither reads the page back nor resolves links to it again, and a link that did not change is not
 * written again; one that changes its names still resolves every link to them.
 */
describe('pages: what a save writes', () => {
  let t: TestApp;
  let author: Agent;

  beforeAll(async () => {
    // One connection, so that every statement of the saves below is prepared on the connection the test then asks.
    t = await startTestApp({ env: { KURATE_DB_POOL_SIZE: '1' } });
    author = await t.as('author');
  });
  afterAll(() => t?.close());

  /** Every statement the app sends while `work` runs, its whitespace folded. */
  const statementsOf = async (work: () => Promise<unknown>): Promise<string[]> =>
    (await statementsSentBy(t, work)).map((s) => s.text.replace(/\s+/g, ' ').trim());

  const linkRows = async (slug: string) =>
    (await t.dataSource.query(
      `SELECT l.id::text AS id, l.target_key AS key, l.position, r.slug AS resolved FROM page_links l JOIN pages p ON p.id = l.from_page_id
         LEFT JOIN pages r ON r.id = l.resolved_page_id WHERE p.slug = $1 ORDER BY l.position`,
      [slug],
    )) as { id: string; key: string; position: number; resolved: string | null }[];

  it('writes only the links that changed, and neither reads the page back nor resolves links to it again', async () => {
    await author.post('/api/pages').send({ title: 'Tide Tables', body: 'High water.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Moon Phases', body: 'Full and new.' }).expect(201);
    const created = await author.post('/api/pages').send({ title: 'Harbour Log', body: 'See [[Tide Tables]], [[Moon Phases]] and [[Pilot Boats]].' }).expect(201);
    const before = await linkRows('harbour-log');
    expect(before.map((l) => [l.key, l.resolved])).toEqual([['tide-tables', 'tide-tables'], ['moon-phases', 'moon-phases'], ['pilot-boats', null]]);

    // Words change, links stay: no link row is written again.
    let version = created.body.version as number;
    const sent = await statementsOf(async () => {
      const saved = await author.put('/api/pages/harbour-log').send({ body: 'Low water. See [[Tide Tables]], [[Moon Phases]] and [[Pilot Boats]].', baseVersion: version }).expect(200);
      version = saved.body.version;
    });
    expect(await linkRows('harbour-log')).toEqual(before);
    // Not even locked: an upsert whose DO UPDATE skips a row still writes a lock into it (xmax).
    expect((await t.dataSource.query(`SELECT l.xmax::text AS xmax FROM page_links l JOIN pages p ON p.id = l.from_page_id WHERE p.slug = 'harbour-log'`)).map((r: { xmax: string }) => r.xmax)).toEqual(['0', '0', '0']);
    const pageReads = sent.filter((s) => /^SELECT .* FROM pages WHERE (slug|id) = \$1/.test(s));
    // The page is not read: this process created it, at the version the author edits (RecentSaves), and the UPDATE
    // returns it as written.
    expect(pageReads, sent.join('\n')).toHaveLength(0);
    expect(sent.some((s) => s.startsWith('UPDATE page_links SET resolved_page_id')), sent.join('\n')).toBe(false);
    // One statement writes the page's links (the diff), whatever else reads them.
    expect(sent.filter((s) => /\b(INSERT INTO|DELETE FROM|UPDATE) page_links\b/.test(s)), sent.join('\n')).toHaveLength(1);
    // The page and its new revision are written by one statement: a round trip fewer in the transaction.
    const pageWrites = sent.filter((s) => /\bUPDATE pages SET slug\b/.test(s) || /\bINSERT INTO page_revisions\b/.test(s));
    expect(pageWrites, sent.join('\n')).toHaveLength(1);
    expect(pageWrites[0]).toMatch(/INSERT INTO page_revisions/);
    // The page decision gate (src/db/page-decision-gate.ts) is taken with the link keys, in the transaction's first
    // statement: the inclusion decision needs no LOCK TABLE of its own.
    expect(sent.filter((s) => /^LOCK TABLE/i.test(s)), sent.join('\n')).toEqual([]);
    expect(sent[sent.indexOf('START TRANSACTION') + 1], sent.join('\n')).toContain(SHARE_PAGE_DECISION_GATE_SQL);
    // Its links are written, the pages that may embed it read, and the pages it changed announced, by one statement.
    expect(sent.filter((s) => /embedders AS MATERIALIZED|'pages', [ns]\.slugs/.test(s)), sent.join('\n')).toHaveLength(1);
    // In all, between BEGIN and COMMIT: the gate and link keys, the page and its revision, its links (with the above),
    // its inclusion decided, its word counts (with its extraction state). No file reference before or now: nothing
    // for them; not included: no extraction job.
    const inTransaction = sent.slice(sent.indexOf('START TRANSACTION') + 1, sent.indexOf('COMMIT'));
    expect(inTransaction, inTransaction.join('\n')).toHaveLength(5);
    // The page's word counts are written, and its extraction state read, by one statement.
    const extractionData = sent.filter((s) => /\bkg_page_terms\b/.test(s) || /\bkg_page_extractions\b/.test(s));
    expect(extractionData, sent.join('\n')).toHaveLength(1);
    expect(extractionData[0]).toMatch(/INSERT INTO kg_page_terms .* FROM \(SELECT 1\) one LEFT JOIN kg_page_extractions/);
    const history = (await t.dataSource.query(
      `SELECT r.version, r.author, r.message, r.body = p.body AS same FROM page_revisions r JOIN pages p ON p.id = r.page_id WHERE p.slug = 'harbour-log' ORDER BY r.version`,
    )) as { version: number; author: string; message: string; same: boolean }[];
    expect(history.map((r) => [r.version, r.message, r.same])).toEqual([[1, 'Created', false], [version, '', true]]);

    // One link goes, one moves, one comes: the kept ones keep their rows.
    await author.put('/api/pages/harbour-log').send({ body: 'See [[Pilot Boats]], [[Tide Tables]] and [[Lighthouses]].', baseVersion: version }).expect(200);
    const after = await linkRows('harbour-log');
    expect(after.map((l) => [l.key, l.position, l.resolved])).toEqual([['pilot-boats', 1, null], ['tide-tables', 2, 'tide-tables'], ['lighthouses', 3, null]]);
    expect(after.find((l) => l.key === 'tide-tables')!.id).toBe(before.find((l) => l.key === 'tide-tables')!.id);
    expect(after.find((l) => l.key === 'pilot-boats')!.id).toBe(before.find((l) => l.key === 'pilot-boats')!.id);
    // Backlinks follow: Moon Phases lost its link, Tide Tables kept it.
    expect((await t.http.get('/api/pages/moon-phases/backlinks').expect(200)).body.items).toEqual([]);
    expect((await t.http.get('/api/pages/tide-tables/backlinks').expect(200)).body.items.map((b: { slug: string }) => b.slug)).toEqual(['harbour-log']);
  });

  it('turns a long text into lexemes a part at a time, before its transaction, into the vector the whole text gives', async () => {
    // to_tsvector of a megabyte holds the embedded database, and so the server's main thread, for 130–180 ms
    // (PagesRepository.searchLexemes). A few thousand distinct words over about 150 KB.
    const words = Array.from({ length: 3000 }, (_, i) => `lexeme${i.toString(36)}`);
    const lines = Array.from({ length: 1500 }, (_, i) => `Line ${i} of the ledger: ${words.slice((i * 7) % 2990, ((i * 7) % 2990) + 10).join(' ')}.`);
    const body = `${lines.join('\n')}\n\nThe last word is zanzibarite.`;
    const sent = await statementsOf(() => author.post('/api/pages').send({ title: 'Long Ledger', body }).expect(201));
    const begin = sent.findIndex((s) => /^(START TRANSACTION|BEGIN)/.test(s));
    const parts = sent.map((s, i) => [s, i] as const).filter(([s]) => s.startsWith("SELECT to_tsvector('english', $1)::text"));
    expect(parts.length, sent.join('\n')).toBeGreaterThanOrEqual(4);
    expect(parts.every(([, i]) => i < begin), sent.join('\n')).toBe(true);
    // The page's write reads none of it again.
    expect(sent.filter((s) => /INSERT INTO pages/.test(s))[0]).toMatch(/coalesce\(\$15::tsvector, to_tsvector\('english', \$14\)\)/);

    // The same lexemes, each with as many positions, as the whole text turned into lexemes at once (up to the most a
    // tsvector keeps of one lexeme: 255 at once, 256 when concatenated; the ledger's own words pass it).
    const [{ same, lexemes }] = (await t.dataSource.query(
      `WITH stored AS (SELECT u.lexeme, least(cardinality(u.positions), 255) AS n FROM pages p, unnest(ts_filter(p.search, '{c}')) u WHERE p.slug = 'long-ledger'),
            whole AS (SELECT u.lexeme, least(cardinality(u.positions), 255) AS n FROM unnest(to_tsvector('english', $1)) u)
       SELECT NOT EXISTS ((SELECT * FROM stored EXCEPT SELECT * FROM whole) UNION ALL (SELECT * FROM whole EXCEPT SELECT * FROM stored)) AS same,
              (SELECT count(*)::int FROM stored) AS lexemes`,
      [body],
    )) as { same: boolean; lexemes: number }[];
    expect(lexemes).toBeGreaterThan(3000);
    expect(same).toBe(true);
    // Its words are found, the last one too, also after an edit (the UPDATE concatenates the parts as well).
    const slugsFor = async (q: string) => ((await t.http.get('/api/search').query({ q }).expect(200)).body.hits as { slug: string }[]).map((h) => h.slug);
    expect(await slugsFor('zanzibarite')).toContain('long-ledger');
    const edited = await author.put('/api/pages/long-ledger').send({ body: `${body} Then quillwort.`, baseVersion: 1 }).expect(200);
    expect(edited.body.version).toBe(2);
    expect(await slugsFor('quillwort')).toContain('long-ledger');
  });

  it('sends its statements as prepared statements, each planned once for all saves, not again on every save', async () => {
    // A save's statements took longer to parse and plan than to run (bench/RESULTS.md, 2026-12-07).
    // It shows a file: its references are written by every save (a page without any sends no statement for them).
    const created = await author.post('/api/pages').send({ title: 'Buoy Colours', body: 'Red to port. See [[Tide Tables]] and [[Harbour Log]]. ![](buoys.png)' }).expect(201);
    let version = created.body.version as number;
    const saves = 9;
    for (let i = 1; i <= saves; i++) {
      const body = `Red to port, ${'green '.repeat(i)}to starboard. See [[Tide Tables]] and [[Harbour Log]]. ![](buoys.png)`;
      version = (await author.put('/api/pages/buoy-colours').send({ body, baseVersion: version }).expect(200)).body.version;
    }
    const plans: { statement: string; generic: number; custom: number }[] = await t.dataSource.query(
      'SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements');
    const markers = {
      'the link keys locked': /pg_advisory_xact_lock/,
      'the page written with its revision': /^WITH saved AS \(\s*UPDATE pages SET slug[\s\S]*INSERT INTO page_revisions/,
      'its links': /^WITH wanted AS/,
      'the pages embedding it': /embedders AS MATERIALIZED/,
      'its inclusion decided': /WITH target AS/,
      'its file references': /page_file_refs/,
      'the pages announced': /'pages', n\.slugs/,
      'the API token looked up': /FROM api_tokens t JOIN users u/,
    };
    const found = Object.entries(markers).map(([what, marker]) => {
      const matching = plans.filter((p) => marker.test(p.statement.trim()));
      return { what, runs: matching.reduce((n, p) => n + p.generic + p.custom, 0), generic: matching.reduce((n, p) => n + p.generic, 0) };
    });
    // Each ran at least once per save. PostgreSQL plans the first five runs with their values, then keeps a generic
    // plan unless the values make the plans look cheaper (the statement is then planned again on every run).
    for (const f of found) {
      expect(f.runs, `${f.what}: ${JSON.stringify(found)}`).toBeGreaterThanOrEqual(saves);
      expect(f.generic, `${f.what}: ${JSON.stringify(found)}`).toBeGreaterThanOrEqual(saves - 6);
    }
  });

  it('reads the page before a save only when this process did not save the version edited, and answers as the read would', async () => {
    const pageReads = (sent: string[]) => sent.filter((s) => /^SELECT .* FROM pages WHERE slug = \$1/.test(s));
    const created = await author.post('/api/pages').send({ title: 'Channel Markers', body: 'Cans and nuns.' }).expect(201);
    let sent = await statementsOf(() => author.put('/api/pages/channel-markers').send({ body: 'Cans and nuns, lit.', baseVersion: created.body.version }).expect(200));
    expect(pageReads(sent), sent.join('\n')).toEqual([]);

    // Another process saves the page (as its UPDATE would): this one remembers version 2, which the author edits again.
    await t.dataSource.query(`UPDATE pages SET body = body || ' Saved elsewhere.', version = version + 1 WHERE slug = 'channel-markers'`);
    const conflict = await author.put('/api/pages/channel-markers').send({ body: 'Cans and nuns, lit at night.', baseVersion: 2 }).expect(409);
    expect(conflict.body).toMatchObject({ currentVersion: 3, currentBody: 'Cans and nuns, lit. Saved elsewhere.', yourBody: 'Cans and nuns, lit at night.' });
    // The same text as the version edited is no "nothing changed" once the page has moved on.
    await author.put('/api/pages/channel-markers').send({ body: 'Cans and nuns, lit.', baseVersion: 2 }).expect(409);
    // An edit of the version the page has now reads it (no remembered version 3) and is saved.
    sent = await statementsOf(() => author.put('/api/pages/channel-markers').send({ body: 'Cans and nuns, lit at night.', baseVersion: 3 }).expect(200));
    expect(pageReads(sent), sent.join('\n')).toHaveLength(1);
    const unchanged = await author.put('/api/pages/channel-markers').send({ body: 'Cans and nuns, lit at night.', baseVersion: 4 }).expect(200);
    expect(unchanged.body.version).toBe(4);

    // Another process renames the page and gives its slug to another page, which has version 1 too: an edit of that
    // page is saved (the page remembered under the slug is not the one edited, and is forgotten).
    const other = await author.post('/api/pages').send({ title: 'Day Marks', body: 'Towers and beacons.' }).expect(201);
    const renamed = await author.post('/api/pages').send({ title: 'Leading Lights', body: 'Two lights in line.' }).expect(201);
    await t.dataSource.query(`UPDATE pages SET slug = 'leading-lights-old', title = 'Leading Lights Old', version = version + 1 WHERE id = $1`, [renamed.body.id]);
    await t.dataSource.query(`UPDATE pages SET slug = 'leading-lights' WHERE id = $1`, [other.body.id]);
    const moved = await author.put('/api/pages/leading-lights').send({ body: 'Towers, beacons and leading lights.', baseVersion: 1 }).expect(200);
    expect(moved.body).toMatchObject({ id: other.body.id, version: 2 });

    // Trashed by another process: the remembered version 4 is no page to write; the answer is the trash's 404.
    await t.dataSource.query(`UPDATE pages SET deleted_at = now() WHERE slug = 'channel-markers'`);
    const gone = await author.put('/api/pages/channel-markers').send({ body: 'Cans, nuns and spars.', baseVersion: 4 }).expect(404);
    expect(gone.body.message).toMatch(/is in the trash/);
    const [{ version, body }] = await t.dataSource.query(`SELECT version, body FROM pages WHERE slug = 'channel-markers'`);
    expect([version, body]).toEqual([4, 'Cans and nuns, lit at night.']);

    // Gone altogether (a restore replaced the wiki under this process): the remembered page is no page; a 404.
    const kept = await author.post('/api/pages').send({ title: 'Spar Buoys', body: 'Poles afloat.' }).expect(201);
    await t.dataSource.query(`DELETE FROM pages WHERE id = $1`, [kept.body.id]);
    const none = await author.put('/api/pages/spar-buoys').send({ body: 'Poles afloat, painted.', baseVersion: kept.body.version }).expect(404);
    expect(none.body.message).toMatch(/no page "spar-buoys"/);
  });

  it('sends no statement for file references when neither the text saved nor the version it replaced has any', async () => {
    const fileStatements = (sent: string[]) => sent.filter((s) => /\bpage_file_refs\b/.test(s));
    const refs = async () => (await t.dataSource.query(`SELECT r.target FROM page_file_refs r JOIN pages p ON p.id = r.page_id WHERE p.slug = 'anchor-chains'`)).map((r: { target: string }) => r.target);
    // A new page has no earlier version: nothing to delete either.
    let created: { body: { version: number } } | undefined;
    expect(fileStatements(await statementsOf(async () => {
      created = await author.post('/api/pages').send({ title: 'Anchor Chains', body: 'Shackles and swivels.' }).expect(201);
    }))).toEqual([]);
    let version = created!.body.version;
    const save = async (body: string) => {
      let sent: string[] = [];
      sent = await statementsOf(async () => {
        version = (await author.put('/api/pages/anchor-chains').send({ body, baseVersion: version }).expect(200)).body.version;
      });
      return fileStatements(sent);
    };
    expect(await save('Shackles, swivels and links.')).toEqual([]);
    expect(await save('Shackles and swivels. ![](chain.png)')).not.toEqual([]);
    expect(await refs()).toEqual(['chain.png']);
    // The file goes: the version replaced had it, so its row is deleted.
    expect(await save('Shackles and swivels, no picture.')).not.toEqual([]);
    expect(await refs()).toEqual([]);
    expect(await save('Shackles and swivels, still no picture.')).toEqual([]);

    // A version this process did not save (here: written directly, as another process would, with a file) is not
    // known to be without files: its rows are deleted.
    await t.dataSource.query(
      `INSERT INTO page_file_refs (page_id, target, name_key, added_version) SELECT id, 'old.png', 'old.png', version FROM pages WHERE slug = 'anchor-chains'`);
    await t.dataSource.query(`UPDATE pages SET version = version + 1 WHERE slug = 'anchor-chains'`);
    version += 1;
    expect(await save('Shackles and swivels, checked.')).not.toEqual([]);
    expect(await refs()).toEqual([]);
  });

  it('creates a page in five statements: its links, the links that now reach it and its embedders are one', async () => {
    // A page that links to the page to come and embeds it, saved first: its link is broken until the page exists.
    await author.post('/api/pages').send({ title: 'Tide Almanac', body: 'Tables: ![[Neap Tides]]. Also see [[Neap Tides]].' }).expect(201);
    // One that links to another page to come, and embeds nothing.
    await author.post('/api/pages').send({ title: 'Tide Notes', body: 'See [[Spring Tides]].' }).expect(201);
    const linksOf = async (slug: string) =>
      (await t.dataSource.query(
        `SELECT l.target_key AS key, r.slug AS resolved FROM page_links l JOIN pages p ON p.id = l.from_page_id LEFT JOIN pages r ON r.id = l.resolved_page_id
          WHERE p.slug = $1 ORDER BY l.position`, [slug],
      )) as { key: string; resolved: string | null }[];
    expect(await linksOf('tide-almanac')).toEqual([{ key: 'neap-tides', resolved: null }]);
    expect(await linksOf('tide-notes')).toEqual([{ key: 'spring-tides', resolved: null }]);

    // A page no page embeds (no page linking to it holds an embed): between BEGIN and COMMIT, the gate and link keys, the page and its revision, its links
    // with the links that now reach it and the pages that may embed it, its inclusion decided, its word counts.
    let sent = await statementsOf(() => author.post('/api/pages').send({ title: 'Spring Tides', body: 'Largest range at syzygy. See [[Tide Almanac]] and [[King Tides]].' }).expect(201));
    let inTransaction = sent.slice(sent.indexOf('START TRANSACTION') + 1, sent.indexOf('COMMIT'));
    expect(inTransaction, inTransaction.join('\n')).toHaveLength(5);
    const linkStatements = inTransaction.filter((s) => /\bpage_links\b/.test(s));
    expect(linkStatements, inTransaction.join('\n')).toHaveLength(1);
    expect(linkStatements[0]).toMatch(/INSERT INTO page_links .* UPDATE page_links SET resolved_page_id .* embedders AS MATERIALIZED/);
    expect(await linksOf('spring-tides')).toEqual([{ key: 'tide-almanac', resolved: 'tide-almanac' }, { key: 'king-tides', resolved: null }]);
    expect(await linksOf('tide-notes')).toEqual([{ key: 'spring-tides', resolved: 'spring-tides' }]);

    // A page the almanac embeds: its words reach the almanac's search text in the same transaction, from the
    // embedders that statement read (the almanac's own embedders are read next, for what it transcludes onwards).
    sent = await statementsOf(() => author.post('/api/pages').send({ title: 'Neap Tides', body: 'Smallest range at quadrature.' }).expect(201));
    inTransaction = sent.slice(sent.indexOf('START TRANSACTION') + 1, sent.indexOf('COMMIT'));
    expect(inTransaction.filter((s) => /^UPDATE pages SET search/.test(s)), inTransaction.join('\n')).toHaveLength(1);
    expect(inTransaction.filter((s) => /^UPDATE page_links/.test(s)), inTransaction.join('\n')).toEqual([]);
    expect(await linksOf('tide-almanac')).toEqual([{ key: 'neap-tides', resolved: 'neap-tides' }]);
    const found = (await t.http.get('/api/search').query({ q: 'quadrature' }).expect(200)).body.hits.map((hit: { slug: string }) => hit.slug);
    expect(found).toEqual(expect.arrayContaining(['neap-tides', 'tide-almanac']));
  });

  it('inserts a created page’s word counts without reading anything first, and counts them as an edit would', async () => {
    const counts = async (slug: string) =>
      (await t.dataSource.query(
        `SELECT k.term, k.lower, k.capitalised FROM kg_page_terms k JOIN pages p ON p.id = k.page_id WHERE p.slug = $1 ORDER BY k.term`, [slug],
      )) as { term: string; lower: number; capitalised: number }[];
    const body = 'The Harbour Master logs every ship. Harbour fees rise; the master waives them for Pilot Boats.';
    const sent = await statementsOf(() => author.post('/api/pages').send({ title: 'Harbour Dues', body }).expect(201));
    const extractionData = sent.filter((s) => /\bkg_page_terms\b/.test(s) || /\bkg_page_extractions\b/.test(s) || /\bkg_content_chunks\b/.test(s));
    // A new page has no counts, no extraction record and no chunk: one plain INSERT, no upsert, no read of its state.
    expect(extractionData, sent.join('\n')).toHaveLength(1);
    expect(extractionData[0]).toMatch(/^INSERT INTO kg_page_terms \(page_id, term, lower, capitalised\) SELECT/);
    expect(extractionData[0]).not.toMatch(/ON CONFLICT|kg_page_extractions/);
    const inserted = await counts('harbour-dues');
    expect(inserted.find((c) => c.term === 'harbour')).toEqual({ term: 'harbour', lower: 0, capitalised: 1 });
    // The same text saved as an edit of another page (the replacing upsert) gives the same rows.
    const other = await author.post('/api/pages').send({ title: 'Harbour Dues Draft', body: 'Draft.' }).expect(201);
    await author.put('/api/pages/harbour-dues-draft').send({ body, baseVersion: other.body.version }).expect(200);
    expect(await counts('harbour-dues-draft')).toEqual(inserted);
    // An empty page sends nothing for its counts.
    const empty = await statementsOf(() => author.post('/api/pages').send({ title: 'Harbour Blank', body: '' }).expect(201));
    expect(empty.filter((s) => /\bkg_page_terms\b/.test(s)), empty.join('\n')).toEqual([]);
  });

  it('still resolves links again when an edit changes the page’s names (a title or an alias in its frontmatter)', async () => {
    await author.post('/api/pages').send({ title: 'Signal Flags', body: 'About [[Semaphore]] and [[Flag Codes]].' }).expect(201);
    const target = await author.post('/api/pages').send({ title: 'Semaphore Towers', body: 'Arms on a mast.' }).expect(201);
    expect((await linkRows('signal-flags')).map((l) => l.resolved)).toEqual([null, null]);

    await author.put('/api/pages/semaphore-towers').send({ body: '---\naliases: [Semaphore, Flag Codes]\n---\nArms on a mast.', baseVersion: target.body.version }).expect(200);
    expect((await linkRows('signal-flags')).map((l) => l.resolved)).toEqual(['semaphore-towers', 'semaphore-towers']);

    // The alias goes again: the link by it is broken again, the other stays.
    await author.put('/api/pages/semaphore-towers').send({ body: '---\naliases: [Semaphore]\n---\nArms on a mast.', baseVersion: target.body.version + 1 }).expect(200);
    expect((await linkRows('signal-flags')).map((l) => l.resolved)).toEqual(['semaphore-towers', null]);
  });
});

/**
 * The pages that embed a saved page are looked up by every save, on one generic plan for all of them (a prepared
 * statement): by an edit that keeps the page's names in the statement that writes its links, by any other write on its
 * own. Written as a join with `= ANY(…)`, that plan scanned every page's body and every link once the tables had grown
 * (14 ms a save at 1,000 pages; bench/RESULTS.md, 2026-12-07): it must probe page_links and pages by key whatever ids
 * and keys it is given.
 */
describe('pages: the look-up of a saved page’s embedders probes by key on its generic plan', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    // Three copies of the Foam docs (258 pages, 1,000 links), with statistics.
    await importPages(await t.as('author'), await foamDocsCopies(3));
    await t.dataSource.query('VACUUM ANALYZE pages');
    await t.dataSource.query('VACUUM ANALYZE page_links');
  });
  afterAll(() => t?.close());

  const probesOnly = (plan: PlanNode) => {
    expect(nodesOf(plan).filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name'])).toEqual([]);
    expect(nodesOf(plan).map((n) => n['Index Name'])).toEqual(expect.arrayContaining(['pages_pkey']));
  };

  it('plans an edit’s links statement, which reads them, with index probes, never a scan of pages or of page_links', async () => {
    const author = await t.as('author');
    const [{ slug }] = await t.dataSource.query(`SELECT slug FROM pages WHERE deleted_at IS NULL AND NOT is_system ORDER BY slug LIMIT 1`);
    const statement = await statementSentBy(t, 'embedders AS MATERIALIZED', async () => {
      const page = (await author.get(`/api/pages/${slug}`).expect(200)).body as { body: string; version: number };
      await author.put(`/api/pages/${slug}`).send({ body: `${page.body}\n\nOne more line.`, baseVersion: page.version }).expect(200);
    });
    expect(statement.text).toMatch(/^WITH wanted AS/);
    probesOnly(await planOf(t, statement, ['uuid', 'text[]', 'text[]', 'text[]', 'text[]', 'text[]', 'text', 'text', 'boolean']));
  });

  it('plans a created page’s links statement, which resolves others’ links and reads its embedders, with index probes too', async () => {
    const author = await t.as('author');
    const statement = await statementSentBy(t, 'embedders AS MATERIALIZED', async () => {
      await author.post('/api/pages').send({ title: 'Plan Probe Page', body: 'Links to [[Getting Started]] and [[Nowhere Yet]].' }).expect(201);
    });
    expect(statement.text).toMatch(/^WITH wanted AS[\s\S]*INSERT INTO page_links/);
    probesOnly(await planOf(t, statement, ['uuid', 'text[]', 'text[]', 'text[]', 'text[]', 'text[]']));
  });

  it('plans the look-up of a write that changes the page’s names the same way', async () => {
    const author = await t.as('author');
    const [{ slug }] = await t.dataSource.query(`SELECT slug FROM pages WHERE deleted_at IS NULL AND NOT is_system ORDER BY slug LIMIT 1 OFFSET 1`);
    const statement = await statementSentBy(t, 'embedders AS MATERIALIZED', async () => {
      const page = (await author.get(`/api/pages/${slug}`).expect(200)).body as { body: string; version: number };
      await author.put(`/api/pages/${slug}`).send({ body: `---\naliases: [Another Name For It]\n---\n${page.body}`, baseVersion: page.version }).expect(200);
    });
    expect(statement.text).toMatch(/^WITH embedders AS MATERIALIZED/);
    probesOnly(await planOf(t, statement, ['uuid[]', 'text[]']));
  });
});
