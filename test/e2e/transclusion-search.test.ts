import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsSentBy } from '../support/query-plans.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A page's search vector holds the text it transcludes (weight D), so an edit of an embedded page reaches every page
 * that embeds it, directly or through other embeds, inside the save's transaction. A page that merely links to the
 * edited one and writes `![[` where it embeds no page (a syntax example in a code block) has nothing to refresh, and
 * the save sends it no statement.
 */
describe('transclusion: an edit reaches the search vectors of the pages that embed it, and only those', () => {
  let t: TestApp;
  let author: supertest.Agent;

  const create = async (title: string, text: string) => (await author.post('/api/pages').send({ body: `---\ntitle: ${title}\n---\n${text}\n` }).expect(201)).body as { slug: string; version: number };
  const transcluded = async (slug: string): Promise<string> =>
    (await t.dataSource.query(`SELECT ts_filter(search, '{d}')::text AS words FROM pages WHERE slug = $1`, [slug]))[0].words;
  const found = async (q: string): Promise<string[]> => ((await t.http.get('/api/search').query({ q }).expect(200)).body.hits as { slug: string }[]).map((hit) => hit.slug);

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.as('author');
  });
  afterAll(() => t?.close());

  it('refreshes the embedding chain, sends nothing for a page that only links and shows the syntax', async () => {
    const pear = await create('Pear notes', 'Pears ripen in the zanzibar autumn.');
    const digest = await create('Orchard digest', 'The digest:\n\n![[Pear notes]]');
    const almanac = await create('Orchard almanac', 'The almanac:\n\n![[Orchard digest]]');
    const guide = await create('Embedding guide', 'See [[Pear notes]]. To embed it, write:\n\n```\n![[Pear notes]]\n```');
    expect(await transcluded(digest.slug)).toContain('zanzibar');
    expect(await transcluded(almanac.slug)).toContain('zanzibar');
    expect(await transcluded(guide.slug)).toBe('');

    // Every statement the save sends.
    const texts = (await statementsSentBy(t, () =>
      author.put(`/api/pages/${pear.slug}`).send({ body: '---\ntitle: Pear notes\n---\nPears ripen in the quixotic autumn.\n', baseVersion: pear.version }).expect(200),
    )).map((s) => s.text);
    // The digest and the almanac: one refresh each; the guide none.
    expect(texts.filter((text) => text.includes("ts_filter(search, '{a,b,c}')"))).toHaveLength(2);

    for (const slug of [digest.slug, almanac.slug]) {
      expect(await transcluded(slug)).toContain('quixot');
      expect(await transcluded(slug)).not.toContain('zanzibar');
    }
    expect(await transcluded(guide.slug)).toBe('');
    expect(await found('quixotic')).toEqual(expect.arrayContaining([pear.slug, digest.slug, almanac.slug]));
    expect(await found('zanzibar')).toEqual([]);
  });
});
