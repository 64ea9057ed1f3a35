import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/test-app.js';
import { setPolicy, startOllamaTestApp, waitForJobs, type OllamaTestApp } from './kg-test-helpers.js';

/** What validation drops from a model's answer is not silent: the job's output counts it and names the first few. */
describe('items a model made up are reported with the extraction', () => {
  let app: OllamaTestApp;
  let t: TestApp;

  beforeAll(async () => {
    const answer = {
      entities: [
        { name: 'Lighthouse', type: 'place', confidence: 0.9, evidence: 'The lighthouse guards the bay' },
        { name: 'Kraken', type: 'concept', confidence: 0.9, evidence: 'A kraken lives under the pier' },
      ],
      relations: [{ source: 'Lighthouse', predicate: 'related_to', target: 'Harbour Master', confidence: 0.8, evidence: 'The lighthouse guards the bay' }],
    };
    app = await startOllamaTestApp(() => ({ kind: 'chat', content: answer }));
    t = app.t;
    await app.admin.post('/api/pages').send({ title: 'Bay', body: '---\ncluster: coast\n---\nThe lighthouse guards the bay at night.\n' }).expect(201);
    await setPolicy(app.admin, 'coast', 'include');
    await waitForJobs(t);
  }, 60_000);
  afterAll(() => app?.close());

  it('keeps what is grounded, and lists the unverifiable quote and the relation to an unknown entity in the job output', async () => {
    const [job] = (await t.dataSource.query(`SELECT output FROM pgboss.job WHERE name = 'kg-extract-page'`)) as { output: { dropped: number; droppedItems: { item: string; reason: string }[] } }[];
    expect(job.output).toMatchObject({ status: 'extracted', calls: 1 });
    const items = job.output.droppedItems.map((d) => d.item);
    expect(items).toEqual(expect.arrayContaining([expect.stringContaining('Kraken'), expect.stringContaining('Harbour Master')]));
    expect(job.output.dropped).toBe(job.output.droppedItems.length);
    const names = ((await t.dataSource.query(`SELECT name FROM kg_proposals WHERE kind = 'node' ORDER BY name`)) as { name: string }[]).map((r) => r.name);
    expect(names).toContain('Lighthouse');
    expect(names).not.toContain('Kraken');
  });
});
