import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchGraphRepository } from '../../src/search/search-graph.repository.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The graph list asks for edges with its own form of kg_visible_edges' rule (the view is too slow per query at
 * 20,000 edges): on a graph with every case the rule distinguishes, both must give the same edges, before and after
 * a page is excluded.
 */
describe('graph search: visible edges', () => {
  let t: TestApp;
  let kg: KgFactory;
  let nodeIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    const shown = await kg.passage('Shown Page', 'Alpha and beta and gamma.');
    const hidden = await kg.passage('Hidden Page', 'Alpha and delta.');
    const node = (name: string, origin = 'extracted') => kg.node({ name, origin });
    const [alpha, beta, gamma, delta, lonely, manual] = [await node('Alpha'), await node('Beta'), await node('Gamma'), await node('Delta'), await node('Lonely'), await node('Manual', 'manual')];
    nodeIds = [alpha, beta, gamma, delta, lonely, manual];
    // Mentions: alpha, beta and gamma on the shown page; alpha and delta on the hidden one.
    for (const [chunk, id, sig] of [[shown.chunkId, alpha, 'a'], [shown.chunkId, beta, 'b'], [shown.chunkId, gamma, 'g'], [hidden.chunkId, alpha, 'a'], [hidden.chunkId, delta, 'd']] as const) {
      await kg.mention(chunk, sig, sig, id);
    }
    // Co-mentions supported by the shown chunk, by the hidden chunk only, and by nothing.
    await kg.edge(alpha, beta, 'co_mention', { kind: 'co_mention', origin: 'extracted' });
    await kg.edge(alpha, delta, 'co_mention', { kind: 'co_mention', origin: 'extracted' });
    await kg.edge(beta, lonely, 'co_mention', { kind: 'co_mention', origin: 'extracted' });
    // Typed edges with provenance on the shown page, on the hidden page, and a manual one.
    const typed = async (a: string, b: string, support: { chunkId: string; pageId: string; quote: string }) => {
      const edge = await kg.edge(a, b, 'related_to', { origin: 'extracted' });
      const proposal = await kg.edgeProposal({ source: { name: kg.name('s'), type: 'concept' }, predicate: 'related_to', target: { name: kg.name('t'), type: 'concept' }, support: [support] });
      await t.dataSource.query(`INSERT INTO kg_edge_provenance (edge_id, proposal_id, approved_by) VALUES ($1, $2, 'test')`, [edge, proposal]);
    };
    await typed(beta, gamma, shown);
    await typed(gamma, delta, hidden);
    await typed(alpha, gamma, hidden);
    await kg.edge(manual, delta, 'related_to', { origin: 'manual' });
  });
  afterAll(() => t?.close());

  const fromView = async () =>
    ((await t.dataSource.query(`SELECT source_node_id::text AS s, target_node_id::text AS t, kind FROM kg_visible_edges ORDER BY 1, 2, 3`)) as { s: string; t: string; kind: string }[])
      .map((e) => `${e.s}-${e.t}-${e.kind}`);
  const fromSearch = async () =>
    (await t.app.get(SearchGraphRepository).edgesAround(nodeIds, false)).map((e) => `${e.sourceId}-${e.targetId}-${e.kind}`).sort();

  it('gives exactly the edges kg_visible_edges shows, with every page included and with one soft-excluded', async () => {
    const all = (await t.app.get(SearchGraphRepository).edgesAround(nodeIds, true)).length;
    expect(all).toBe(7);
    const before = await fromView();
    expect(await fromSearch()).toEqual(before.sort());
    await t.dataSource.query(`INSERT INTO kg_excluded_pages (page_id, reason) SELECT id, 'page_override' FROM pages WHERE slug = 'hidden-page'`);
    const after = await fromView();
    expect(after.length).toBeLessThan(before.length);
    expect(await fromSearch()).toEqual(after.sort());
  });
});
