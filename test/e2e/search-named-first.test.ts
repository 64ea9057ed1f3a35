import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchService } from '../../src/search/search.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { importPages, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const page = (title: string, body: string) => ({ path: `docs/${title.toLowerCase().replace(/ /g, '-')}.md`, title, body: `---\ncluster: docs\n---\n${body}` });

/**
 * Issue 17 part 5: the approved graph's signals may add and reorder results, but a page the query names by its title
 * that leads the words' ranking stays in the first three, however strongly the graph's anchor text speaks for others.
 */
describe('search: a page the query names stays in the top three when approved knowledge speaks for others', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  const QUERY = 'sync guide across devices';
  const search = (contextWeight: number) => t.app.get(SearchService).search(QUERY, 1, 10, { contextWeight, explain: true });

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await importPages(await t.as('author'), [
      page('Sync Guide', 'How to sync your notes across devices, step by step.'),
      // Three things the other pages describe in the query's words, whose own pages never use them.
      page('Alpha', 'Alpha stores things in a folder.'),
      page('Beta', 'Beta keeps a list of things.'),
      page('Gamma', 'Gamma shows things on a map.'),
      page('Field Notes', 'To sync across devices, use [[Alpha]].\n\nPeople sync across devices with [[Beta]].\n\n[[Gamma]] can sync across devices too.'),
      page('Team Notes', 'We sync across devices with [[Alpha]].\n\n[[Beta]] is how the team syncs across devices.\n\nTo sync across devices, [[Gamma]] works.'),
    ]);
    await startWorker(t);
    await setPolicy(admin, 'docs', 'include');
    await waitForJobs(t);
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      const [proposal] = (await admin.get('/admin/knowledge-graph/proposals').query({ kind: 'node', q: name }).expect(200)).body.items as { id: string; name: string }[];
      expect(proposal?.name).toBe(name);
      await admin.post(`/admin/knowledge-graph/proposals/${proposal.id}/approve`).send({}).expect(200);
    }
  });
  afterAll(() => t?.close());

  it('ranks the named page first by the words alone', async () => {
    const result = await search(0);
    expect(result.hits[0].slug).toBe('sync-guide');
    expect(result.hits[0].explain?.namedBy).toBeTruthy();
  });

  it('keeps it in the first three when the anchor text lifts three other pages above it', async () => {
    const result = await search(10);
    const slugs = result.hits.map((h) => h.slug);
    // The anchor text does bring its pages in, above the pages that only hold the words...
    expect(slugs.slice(0, 4)).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']));
    expect(result.hits.filter((h) => h.explain?.describedBy).map((h) => h.slug)).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']));
    // ...but not above the page the query names.
    expect(slugs.indexOf('sync-guide')).toBeGreaterThanOrEqual(0);
    expect(slugs.indexOf('sync-guide')).toBeLessThan(3);
  });
});
