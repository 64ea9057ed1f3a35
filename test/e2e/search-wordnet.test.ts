import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { importPages } from './kg-test-helpers.js';

interface Body {
  hits: { slug: string; explain?: { terms: { term: string; lexeme: string }[] } }[];
}

const PAGES = [
  { path: 'journal.md', title: 'Journal', body: 'Write one journal entry per day; the calendar shows them by month.' },
  { path: 'images.md', title: 'Images', body: 'Paste an image from the clipboard and it is saved beside the note.' },
  { path: 'picture-frames.md', title: 'Picture frames', body: 'A picture frame is a decoration around a picture; pictures and pictures again.' },
  { path: 'calendar.md', title: 'Calendar', body: 'The calendar lists dates.' },
  { path: 'tags.md', title: 'Tags', body: 'Label a note with tags; the tag pane lists them.' },
  { path: 'checklists.md', title: 'Checklists', body: 'Keep a todo list in any note.' },
  { path: 'planning.md', title: 'Planning', body: 'Write one to-do for each week.' },
];

/**
 * Vocabulary mismatch over HTTP: a reader's word the wiki does not use (`diary`) is searched for by its WordNet
 * synonyms (`journal`), at a lower weight; a word the wiki uses is searched for as written only.
 */
describe('search: WordNet synonyms of the reader’s rare words', () => {
  let on: TestApp;
  let off: TestApp;
  let reader: supertest.Agent;
  let readerOff: supertest.Agent;
  const search = async (agent: supertest.Agent, q: string) => (await agent.get('/api/search').query({ q, explain: 'true' }).expect(200)).body as Body;

  beforeAll(async () => {
    [on, off] = await Promise.all([startTestApp(), startTestApp({ env: { KURATE_SEARCH_SYNONYM_WEIGHT: '0' } })]);
    await Promise.all([importPages(await on.as('author'), PAGES), importPages(await off.as('author'), PAGES)]);
    [reader, readerOff] = await Promise.all([on.as('reader'), off.as('reader')]);
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it('finds the page that says "journal" for a "diary" query, and explains it by the synonym', async () => {
    const found = await search(reader, 'my diary entries by month');
    expect(found.hits[0]?.slug).toBe('journal');
    expect(found.hits[0].explain!.terms.map((t) => t.term)).toContain('journal');
    expect((await search(reader, 'diary')).hits.map((h) => h.slug)).toEqual(['journal']);
  });

  it('finds nothing by synonyms when KURATE_SEARCH_SYNONYM_WEIGHT is 0', async () => {
    expect((await search(readerOff, 'diary')).hits.map((h) => h.slug)).not.toContain('journal');
  });

  it('does not widen a word the wiki uses: "picture" finds the pages that say it, before any that only say "image"', async () => {
    const found = await search(reader, 'picture');
    expect(found.hits[0]?.slug).toBe('picture-frames');
    expect(found.hits.map((h) => h.slug)).not.toContain('images');
  });

  it('reads a closed compound the wiki never writes as its two words: "hashtags" finds the page about tags', async () => {
    const found = await search(reader, 'hashtags');
    expect(found.hits[0]?.slug).toBe('tags');
    expect(found.hits[0].explain!.terms.map((t) => t.term)).toContain('tags');
    expect((await search(readerOff, 'hashtags')).hits).toEqual([]);
    // A word of the language is never split (`therapist` is not `the rapist`), nor one the wiki uses.
    expect((await search(reader, 'calendars')).hits.map((h) => h.slug)).toEqual(['calendar', 'journal']);
  });

  it('reads a hyphenated word in its closed spelling too: "to-do" finds the page that writes "todo", and the one that writes "to-do"', async () => {
    const found = await search(reader, 'to-do');
    expect(found.hits.map((h) => h.slug).sort()).toEqual(['checklists', 'planning']);
    expect(found.hits.find((h) => h.slug === 'checklists')!.explain!.terms.map((t) => t.term)).toContain('todo');
  });

  it('names, numbers and stopwords are never widened, and odd input stays a 200 or a clear 400', async () => {
    expect((await search(reader, 'Dropbox 2026')).hits).toEqual([]);
    await reader.get('/api/search').query({ q: 'the of and' }).expect(200);
    await reader.get('/api/search').query({ q: `diary ${'x'.repeat(400)}` }).expect((res) => expect([200, 400]).toContain(res.status));
  });
});
