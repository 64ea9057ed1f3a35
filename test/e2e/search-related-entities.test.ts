import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SearchGraphRepository } from '../../src/search/search-graph.repository.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * "Related entities" beside the results: the approved entities the pages shown mention most. A wiki without an
 * approved entity (every wiki at first, and one that never builds a graph) pays no query for them.
 */
describe('search: related entities of the pages shown', () => {
  let t: TestApp;
  let kg: KgFactory;
  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
  });
  afterAll(() => t.close());

  const search = async (q: string) => (await t.http.get('/api/search').query({ q }).expect(200)).body as { relatedEntities: { name: string; hops: number | null }[] };

  it('asks for none while no entity is approved, then lists the one the pages shown mention', async () => {
    const page = await kg.page('Pruning Roses', { body: 'Pruning roses in early spring keeps them flowering.' });
    const lookups = vi.spyOn(t.app.get(SearchGraphRepository), 'entitiesOfPages');
    try {
      expect((await search('pruning roses')).relatedEntities).toEqual([]);
      expect(lookups).not.toHaveBeenCalled();

      const rose = await kg.node({ name: 'Secateurs', type: 'concept' });
      await kg.mention(await kg.chunk(page.id, 'Pruning roses in early spring with secateurs.'), 'sig-secateurs', 'secateurs', rose);
      // An approval reaches the search dictionary through a notification: wait for it rather than for a fixed time.
      let related: { name: string; hops: number | null }[] = [];
      for (let i = 0; i < 100 && related.length === 0; i++) {
        related = (await search('pruning roses')).relatedEntities;
        if (related.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(related).toEqual([expect.objectContaining({ name: 'Secateurs', hops: null })]);
      expect(lookups).toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });
});
