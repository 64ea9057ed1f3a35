import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from 'supertest';
import { realPostgresUrl } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Hit {
  slug: string;
  score: number;
  explain?: { source: string; rank: number; terms: { term: string; lexeme: string; contribution: number }[]; namedBy: string | null; lists: Record<string, { rank: number; score: number } | null> };
}

const slugs = (body: { hits: Hit[] }) => body.hits.map((h) => h.slug);
const filler = (n: number) => Array.from({ length: n }, (_, i) => `Paragraph ${i} about gardening, soil, seeds and watering plants.`).join('\n\n');

describe('search ranking (BM25-like, in PostgreSQL)', () => {
  let t: TestApp;
  let author: Agent;
  const search = (q: string, extra = '') => t.http.get(`/api/search?q=${encodeURIComponent(q)}${extra}`);

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.as('author');
    const create = (title: string, body: string) => author.post('/api/pages').send({ title, body }).expect(201);
    // "notes" is on every page; "zettelkasten" on one: the rare word must decide.
    await create('Notes Everywhere', 'These notes are notes about notes. Notes, notes, notes.');
    await create('Slip Box Method', 'A method for notes, also known as the zettelkasten.');
    // The same single mention of "mulch", in a short page and in a very long one.
    await create('Short Mulch Tip', 'Use mulch in spring, say the notes.');
    await create('Long Garden Handbook', `${filler(200)}\n\nOnce we used mulch. These are notes.`);
    // A title match beats a body mention.
    await create('Compost Guide', 'How to start a heap; see the notes.');
    await create('Kitchen Scraps', 'Scraps can go to the compost, the notes say.');
    await create('Graph View', '---\naliases: [Knowledge Map]\n---\nShows the network of notes.');
  });
  afterAll(() => t.close());

  it.skipIf(!realPostgresUrl())('runs its queries on connections with the JIT off (it compiled them for longer than they ran)', async () => {
    const rows: { jit: string }[][] = await Promise.all([0, 1, 2].map(() => t.dataSource.query('SHOW jit')));
    expect(rows.map((r) => r[0].jit)).toEqual(['off', 'off', 'off']);
  });

  it('ranks by the rare word, not by repeating a common one', async () => {
    const res = await search('notes zettelkasten').expect(200);
    expect(slugs(res.body)[0]).toBe('slip-box-method');
  });

  it('does not let a long page win by length', async () => {
    const res = await search('mulch').expect(200);
    expect(slugs(res.body).slice(0, 2)).toEqual(['short-mulch-tip', 'long-garden-handbook']);
  });

  it('boosts the title and aliases over the body', async () => {
    expect(slugs((await search('compost').expect(200)).body)[0]).toBe('compost-guide');
    expect(slugs((await search('knowledge map').expect(200)).body)[0]).toBe('graph-view');
  });

  it('answers a natural-language question when not every word matches', async () => {
    const res = await search('what is the best way to use mulch in my flower beds?').expect(200);
    expect(slugs(res.body)[0]).toBe('short-mulch-tip');
  });

  it('excludes -words', async () => {
    const res = await search('compost -scraps').expect(200);
    expect(slugs(res.body)).toContain('compost-guide');
    expect(slugs(res.body)).not.toContain('kitchen-scraps');
  });

  it('explains each hit: source, rank and what each term added', async () => {
    const res = await search('compost guide', '&explain=true').expect(200);
    const [first] = res.body.hits as Hit[];
    expect(first.explain).toMatchObject({ source: 'lexical', rank: 1 });
    // The reader's words, with their stems beside them.
    expect(first.explain!.terms.map((term) => [term.term, term.lexeme]).sort()).toEqual([['compost', 'compost'], ['guide', 'guid']]);
    expect(first.explain!.namedBy).toBe('compost guide');
    const sum = first.explain!.terms.reduce((s, term) => s + term.contribution, 0);
    expect(sum).toBeCloseTo(first.explain!.lists.lexical!.score, 3);
    expect(first.explain!.lists).toMatchObject({ lexical: { rank: 1 }, vector: null, graph: null });
    expect((await search('compost').expect(200)).body.hits[0].explain).toBeUndefined();
    await search('compost', '&explain=maybe').expect(400);
  });

  it('tolerates typos in titles: fuzzy title hits and "did you mean"', async () => {
    const res = await search('knowlege mapp').expect(200);
    expect(slugs(res.body)).toContain('graph-view');
    expect(res.body.didYouMean.map((s: { slug: string }) => s.slug)).toContain('graph-view');
    const none = await search('quasar umbrella').expect(200);
    expect(none.body).toMatchObject({ hits: [], total: 0, didYouMean: [] });
    const page = await t.http.get('/search?q=knowlege%20mapp').set('Accept', 'text/html').expect(200);
    expect(page.text).toMatch(/Did you mean <a href="\/page\/graph-view">/);
  });

  it('finds a typo of any alias of a page, and never a trashed page', async () => {
    await author.post('/api/pages').send({ title: 'Zeta Station', body: '---\naliases: [Orbital Depot, Skyharbor Terminal]\n---\nA place.' }).expect(201);
    expect(slugs((await search('skyharbour terminl').expect(200)).body)).toEqual(['zeta-station']);
    await author.delete('/api/pages/zeta-station').expect(204);
    expect((await search('skyharbour terminl').expect(200)).body).toMatchObject({ hits: [], didYouMean: [] });
  });

  it('keeps the term statistics in the page write: an edit, the trash and a restore change what is found and N', async () => {
    const stats = async () => (await t.dataSource.query(`SELECT (SELECT count(*) FROM page_search_stats)::int AS n, (SELECT count(*) FROM page_search_terms WHERE lexeme = 'quokka')::int AS df`))[0];
    const before = await stats();
    const created = await author.post('/api/pages').send({ title: 'Island Fauna', body: 'A quokka smiles.' }).expect(201);
    expect(await stats()).toEqual({ n: before.n + 1, df: 1 });
    expect(slugs((await search('quokka').expect(200)).body)).toEqual(['island-fauna']);
    await author.put('/api/pages/island-fauna').send({ body: 'Only wallabies here.', baseVersion: created.body.version }).expect(200);
    expect(await stats()).toEqual({ n: before.n + 1, df: 0 });
    expect(slugs((await search('wallabies').expect(200)).body)).toEqual(['island-fauna']);
    await author.delete('/api/pages/island-fauna').expect((res) => expect(res.status).toBeLessThan(300));
    expect((await stats()).n).toBe(before.n);
    expect(slugs((await search('wallabies').expect(200)).body)).toEqual([]);
    await author.post('/api/pages/island-fauna/restore').expect((res) => expect(res.status).toBeLessThan(300));
    expect((await stats()).n).toBe(before.n + 1);
    expect(slugs((await search('wallabies').expect(200)).body)).toEqual(['island-fauna']);
  });

  it('writes only the term rows an edit changes: the others are neither rewritten nor locked, and the counts stay exact', async () => {
    const words = ['amber', 'basalt', 'cobalt', 'dolomite', 'emerald', 'feldspar', 'garnet', 'hematite'];
    const created = await author.post('/api/pages').send({ title: 'Mineral Shelf', body: words.map((w) => `A ${w} stone.`).join(' ') }).expect(201);
    const rows = async () => {
      const found: { lexeme: string; xmin: string; xmax: string }[] = await t.dataSource.query(
        `SELECT t.lexeme, t.xmin::text AS xmin, t.xmax::text AS xmax FROM page_search_terms t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'mineral-shelf'`);
      return new Map(found.map((r) => [r.lexeme, `${r.xmin}/${r.xmax}`]));
    };
    const before = await rows();
    // One word more, one word less, one word twice: the length step stays (exact up to 16 words, then ~6%).
    const body = `${words.slice(1).map((w) => `A ${w} stone.`).join(' ')} Jasper, and garnet again.`;
    await author.put('/api/pages/mineral-shelf').send({ body, baseVersion: created.body.version }).expect(200);
    const after = await rows();
    expect(after.has('amber')).toBe(false);
    expect(after.has('jasper')).toBe(true);
    expect(after.get('garnet')).not.toBe(before.get('garnet'));
    // The words whose counts did not change keep their row as it was: same version, no lock on it.
    const kept = ['basalt', 'cobalt', 'dolomit', 'emerald', 'feldspar', 'hematit'].filter((lexeme) => before.has(lexeme));
    expect(kept.length).toBeGreaterThan(3);
    for (const lexeme of kept) expect(after.get(lexeme), lexeme).toBe(before.get(lexeme));
    // And the rows are exactly what the page's search vector gives.
    const drift: unknown[] = await t.dataSource.query(
      `SELECT * FROM ((SELECT r.* FROM pages p, LATERAL page_search_terms_rows(p.id, p.search) r WHERE p.slug = 'mineral-shelf')
                      EXCEPT (SELECT t.lexeme, t.page_id, t.tf_a, t.tf_b, t.tf_c, t.length FROM page_search_terms t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'mineral-shelf')) d`);
    expect(drift).toEqual([]);
    expect(slugs((await search('jasper').expect(200)).body)).toEqual(['mineral-shelf']);
  });

  it('reserves slots for pages the best hits link to and that share a word with the query (Page Graph), and says why', async () => {
    await author.post('/api/pages').send({ title: 'Trip Planning', body: 'Plan the itinerary early. What to take: [[Packing Checklist]]. Where: [[Campsites]].' }).expect(201);
    // Ten pages rank above the linked page by the words; the linked page mentions the word once in a long text.
    for (let i = 1; i <= 10; i++) await author.post('/api/pages').send({ title: `Itinerary Day ${i}`, body: `Itinerary for day ${i}: itinerary, itinerary.` }).expect(201);
    await author.post('/api/pages').send({ title: 'Packing Checklist', body: `${filler(60)}\n\nSocks, a toothbrush and a charger for the itinerary.` }).expect(201);
    // Linked too, but shares no word with the query: a link alone is no answer, so no slot.
    await author.post('/api/pages').send({ title: 'Campsites', body: 'Pitches with shade and water.' }).expect(201);
    const res = await search('trip itinerary', '&explain=true').expect(200);
    const ranked = slugs(res.body);
    expect(ranked[0]).toBe('trip-planning');
    expect(ranked[3]).toBe('packing-checklist');
    expect(res.body.hits[3].explain).toMatchObject({ source: 'linked', rank: 4, linkedFrom: [1] });
    expect(ranked).not.toContain('campsites');
    const page = await t.http.get('/search?q=trip+itinerary').set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('Linked from result #1: the answer may sit one link away.');
  });

  it('reads -- options, one-letter flags and dashes in words literally, and finds Folder/Name aliases by their parts and whole', async () => {
    await author.post('/api/pages').send({ title: 'Command Line Flags', body: 'Run it with --verbose to see more; -v is short for it.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Backlinks Pane', body: '---\naliases: [Plugins/Backlinks]\n---\nLists the pages that link here.' }).expect(201);
    expect(slugs((await search('--verbose').expect(200)).body)).toContain('command-line-flags');
    expect(slugs((await search('-v').expect(200)).body)).toContain('command-line-flags');
    expect(slugs((await search('plugins').expect(200)).body)).toContain('backlinks-pane');
    expect(slugs((await search('Plugins/Backlinks').expect(200)).body)[0]).toBe('backlinks-pane');
    // `-word` still excludes while other words remain.
    expect(slugs((await search('pages -backlinks').expect(200)).body)).not.toContain('backlinks-pane');
  });

  it('puts the page whose title or alias the query names first, even when another page says its words more often', async () => {
    await author.post('/api/pages').send({ title: 'Knowledge Mapping Talk', body: 'Knowledge map, knowledge map, knowledge map: a talk about the knowledge map and maps of knowledge.' }).expect(201);
    const res = await search('knowledge maps', '&explain=true').expect(200);
    expect(slugs(res.body)[0]).toBe('graph-view');
    expect(res.body.hits[0].explain.namedBy).toBe('knowledge maps');
  });

  it('suggests titles as the reader types, and refuses bad parameters with 400', async () => {
    const res = await t.http.get('/api/search/suggest?q=comp').expect(200);
    expect(res.body.suggestions[0]).toEqual({ slug: 'compost-guide', title: 'Compost Guide' });
    const pct = await t.http.get(`/api/search/suggest?q=${encodeURIComponent('%_')}`).expect(200);
    expect(pct.body.suggestions).toEqual([]);
    await t.http.get(`/api/search/suggest?q=${'a'.repeat(201)}`).expect(400);
    await t.http.get('/api/search/suggest?q=a&limit=0').expect(400);
  });
});
