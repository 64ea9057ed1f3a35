import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The Page Graph must stay exact when pages that link to each other are saved at the same moment.
describe('Page Graph under concurrent saves', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('resolves every link between pages created concurrently', async () => {
    const author = await t.as('author');
    const count = 24;
    // Page i links to pages i+1 and i-1; all are created at once.
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        author.post('/api/pages').send({ title: `Ring ${i}`, body: `Next: [[Ring ${(i + 1) % count}]], previous: [[Ring ${(i + count - 1) % count}]].` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(count).fill(201));
    const wanted = await t.http.get('/api/reports/wanted').expect(200);
    expect(wanted.body.items).toEqual([]);
    for (let i = 0; i < count; i += 5) {
      const backlinks = await t.http.get(`/api/pages/ring-${i}/backlinks`).expect(200);
      expect(backlinks.body.items.map((p: { slug: string }) => p.slug).sort()).toEqual([`ring-${(i + 1) % count}`, `ring-${(i + count - 1) % count}`].sort());
    }
  });
});
