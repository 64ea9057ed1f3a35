import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchNamesService } from '../../src/search/search-names.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { importPages, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

interface Hit {
  slug: string;
  explain: { describedBy: { rank: number; score: number; words: string[] } | null };
}

const page = (title: string, body: string) => ({ path: `docs/${title.toLowerCase().replace(/ /g, '-')}.md`, title, body: `---\ncluster: docs\n---\n${body}` });

/**
 * Approved knowledge reaches readers: what the wiki's other pages say about an approved entity is credited to the
 * page bearing its name, so a question worded as those pages word it finds the page, and curation moves it at once.
 */
describe('search: approved knowledge as the words other pages use for a thing', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let reader: supertest.Agent;
  const QUERY = 'keep a diary of what happened';
  const slugsFor = async (q: string) => ((await reader.get('/api/search').query({ q, explain: 'true' }).expect(200)).body.hits as Hit[]);

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    reader = await t.as('reader');
    await importPages(await t.as('author'), [
      // The page itself never says "diary" or "happened": the other pages do, when they mention it.
      page('Daily Notes', 'The command creates one note per date, in the folder set in the settings.\n\nOpen it from the command palette.'),
      page('Getting Started', 'Use [[Daily Notes]] to keep a diary of what happened.\n\nThen read [[Templates]] to shape new notes.'),
      page('Workflows', 'Many people keep a diary with [[Daily Notes]]: what happened, what is next.\n\nOthers prefer [[Templates]].'),
      page('Habits', 'Writing down what happened is easier with [[Daily Notes]] open.\n\nA diary needs no structure.'),
      page('Templates', 'A template fills a new note with boilerplate.\n\nVariables such as the title are replaced.'),
      page('Diary Apps', 'Other diary apps exist.\n\nThey sync what happened across devices.'),
    ]);
  });
  afterAll(() => t?.close());

  it('does not find the page by words it does not hold before anything is approved', async () => {
    const hits = await slugsFor(QUERY);
    expect(hits.map((h) => h.slug)).not.toContain('daily-notes');
    expect(hits.every((h) => h.explain.describedBy === null)).toBe(true);
  });

  it('finds it on the first page of results once the extracted entity is approved, and says which words described it', async () => {
    await startWorker(t);
    await setPolicy(admin, 'docs', 'include');
    await waitForJobs(t);
    const [proposal] = (await admin.get('/admin/knowledge-graph/proposals').query({ kind: 'node', q: 'Daily Notes' }).expect(200)).body.items as { id: string; name: string }[];
    expect(proposal?.name).toBe('Daily Notes');
    await admin.post(`/admin/knowledge-graph/proposals/${proposal.id}/approve`).send({}).expect(200);
    const hits = await slugsFor(QUERY);
    const rank = hits.findIndex((h) => h.slug === 'daily-notes');
    expect(rank).toBeGreaterThanOrEqual(0);
    // Among the pages that hold the words themselves: a description lifts a page, it does not outrank the text.
    expect(rank).toBeLessThan(5);
    expect(hits[rank].explain.describedBy?.words).toEqual(expect.arrayContaining(['diary', 'happened']));
  });

  it('credits the home page with the words of the sentences holding the name, on the other pages only', async () => {
    const names = t.app.get(SearchNamesService);
    const [daily] = await t.dataSource.query(`SELECT id::text FROM pages WHERE slug = 'daily-notes'`);
    const context = (await names.knowledge()).context;
    const count = (lexeme: string) => context.postings.get(lexeme)?.get(daily.id) ?? 0;
    // "diary" is in the sentence naming Daily Notes on two pages; Habits says it in another sentence.
    expect(count('diari')).toBe(2);
    expect(count('happen')).toBe(3);
    expect(count('structur')).toBe(0);
    // Its own text ("command palette") is its body, not its description.
    expect(count('palett')).toBe(0);
  });

  it('hides what excluded pages say from readers at once, and shows it again when they are included', async () => {
    await setPolicy(admin, 'docs', 'exclude');
    expect((await slugsFor(QUERY)).map((h) => h.slug)).not.toContain('daily-notes');
    await setPolicy(admin, 'docs', 'include');
    expect((await slugsFor(QUERY)).map((h) => h.slug)).toContain('daily-notes');
  });

  it('forgets it at once when an admin deletes the entity', async () => {
    const [entity] = (await admin.get('/admin/knowledge-graph/entities').query({ q: 'Daily Notes' }).expect(200)).body.rows as { id: string }[];
    await admin.delete(`/admin/knowledge-graph/entities/${entity.id}`).expect(200);
    expect((await slugsFor(QUERY)).map((h) => h.slug)).not.toContain('daily-notes');
  });
});
