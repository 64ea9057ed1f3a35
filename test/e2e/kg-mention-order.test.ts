// The knowledge graph must not depend on the order in which extraction jobs happened to run. A page extracted before
// any page proposed a name keeps its mention of that name under its own spelling; when a later page proposes a
// variant of it (another case, a plural, another type), approving that proposal must still link the earlier mention,
// so the entity's pages and co-mention edges are the same whichever page was extracted first.
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const body = (text: string) => `---\ncluster: vault\n---\n${text}\n`;

interface Mention {
  slug: string;
  signature: string;
  nodeId: string | null;
}

describe('mentions whichever page is extracted first', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  const mentionsOf = (names: string[]): Promise<Mention[]> =>
    t.dataSource.query(
      `SELECT p.slug, m.signature, m.node_id::text AS "nodeId" FROM kg_mentions m
         JOIN kg_content_chunks c ON c.id = m.chunk_id JOIN pages p ON p.id = c.page_id
        WHERE split_part(m.signature, '|', 1) = ANY($1::text[]) ORDER BY p.slug`,
      [names],
    );

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    await startWorker(t);
    // Extracted first, on its own: the name appears once, in passing (a mention below the proposal threshold).
    await admin
      .post('/api/pages')
      .send({ title: 'Harbour Log', body: body('The crew checked the Lantern Relays before the storm and wrote the tide tables down.') })
      .expect(201);
    await setPolicy(admin, 'vault', 'include');
    await waitForJobs(t);
  }, 120_000);
  afterAll(() => t?.close());

  it('links the earlier page’s mention when a later page’s variant of the name is approved', async () => {
    const before = await mentionsOf(['lantern relays', 'lantern relay']);
    expect(before.map((m) => m.slug)).toEqual(['harbour-log']);
    expect(await t.dataSource.query(`SELECT 1 FROM kg_proposals WHERE kind = 'node' AND lower(name) LIKE 'lantern relay%'`)).toEqual([]);

    // Extracted later: a page about the thing, under the singular; it proposes it.
    await admin
      .post('/api/pages')
      .send({ title: 'Lantern Relay', body: body('A Lantern Relay repeats a signal from one tower to the next. Each Lantern Relay runs on oil.') })
      .expect(201);
    await waitForJobs(t);
    const [proposal]: { id: string; name: string }[] = await t.dataSource.query(
      `SELECT id::text AS id, name FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND lower(name) LIKE 'lantern relay%'`,
    );
    expect(proposal).toBeDefined();
    await admin.post(`/admin/knowledge-graph/proposals/${proposal.id}/approve`).send({}).expect(200);

    const after = await mentionsOf(['lantern relays', 'lantern relay']);
    expect(after.map((m) => m.slug)).toEqual(['harbour-log', 'lantern-relay']);
    const [node]: { id: string }[] = await t.dataSource.query(`SELECT id::text AS id FROM kg_nodes WHERE lower(name) LIKE 'lantern relay%'`);
    // Before the change the earlier page's mention kept its own signature and stayed unlinked (this test failed here).
    expect(after.map((m) => m.nodeId)).toEqual([node.id, node.id]);
    // The reader's page of the entity lists both pages.
    const entity = await admin.get(`/api/entities/${node.id}`).expect(200);
    expect(entity.body.pages.items.map((p: { slug: string }) => p.slug).sort()).toEqual(['harbour-log', 'lantern-relay']);
  });

  it('names a proposal by its best-scored spelling, not by the page extracted first', async () => {
    // A page of a cluster that feeds no graph gives its title to the links that point at it.
    await admin.post('/api/pages').send({ title: 'Signal Flares', body: '---\ncluster: archive\n---\nSignal Flares are bright lights.\n' }).expect(201);
    // First: a page that links to it; the link proposes the name, just at the threshold, under the plural.
    await admin.post('/api/pages').send({ title: 'Harbour', body: body('Each tower keeps [[Signal Flares]] in a box, and the crew checks them daily.') }).expect(201);
    await waitForJobs(t);
    const flares = `SELECT name, raw_confidence::float8 AS raw FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND lower(name) LIKE 'signal flare%'`;
    const first: { name: string; raw: number }[] = await t.dataSource.query(flares);
    expect(first.map((p) => p.name)).toEqual(['Signal Flares']);
    // Later: a page about it under the singular, whose title and repeated name score higher.
    await admin
      .post('/api/pages')
      .send({ title: 'Signal Flare', body: body('A Signal Flare is a bright light fired into the sky. A Signal Flare burns for a minute.') })
      .expect(201);
    await waitForJobs(t);
    const after: { name: string; raw: number }[] = await t.dataSource.query(flares);
    expect(after).toHaveLength(1);
    expect(after[0].raw).toBeGreaterThan(first[0].raw);
    // Before the change the first page's spelling stayed (this test failed here).
    expect(after[0].name).toBe('Signal Flare');

    // Approved, the entity's signature is its own name's; the first spelling's leads to it, and both pages mention it.
    const [{ id, signature }]: { id: string; signature: string }[] = await t.dataSource.query(
      `SELECT id::text AS id, signature FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = 'Signal Flare'`,
    );
    await admin.post(`/admin/knowledge-graph/proposals/${id}/approve`).send({}).expect(200);
    const [node]: { id: string; signature: string }[] = await t.dataSource.query(`SELECT id::text AS id, signature FROM kg_nodes WHERE name = 'Signal Flare'`);
    expect(node.signature).toMatch(/^signal flare\|/);
    expect(signature).toMatch(/^signal flares\|/);
    expect(await t.dataSource.query(`SELECT node_id::text AS id FROM kg_node_signatures WHERE signature = $1`, [signature])).toEqual([{ id: node.id }]);
    const entity = await admin.get(`/api/entities/${node.id}`).expect(200);
    expect(entity.body.pages.items.map((p: { slug: string }) => p.slug).sort()).toEqual(['harbour', 'signal-flare']);
  });

  it('proposes a related_to of two names that go together with the support of every page, whichever page is extracted first', async () => {
    // Two pairs of names, each together in a sentence on three pages; the pages of a pair are extracted one at a
    // time, one pair's first to last, the other's last to first. Every page is saved (and its words counted) before
    // any is extracted, as after an import.
    const archive = (text: string) => `---\ncluster: archive\n---\n${text}\n`;
    const pairs = [
      { a: 'Copper Beacon', b: 'Tide Ledger', slugs: [] as string[] },
      { a: 'Salt Lantern', b: 'Reef Almanac', slugs: [] as string[] },
    ];
    for (const pair of pairs) {
      // Pages of their own, so that each link names a page (a strong sign of a name) in a sentence with the other.
      for (const name of [pair.a, pair.b]) await admin.post('/api/pages').send({ title: name, body: archive('A thing kept at the harbour.') }).expect(201);
      for (const [i, where] of ['the north pier', 'the old mill', 'the ferry dock'].entries()) {
        const page = await admin
          .post('/api/pages')
          .send({ title: `${pair.a} at ${where}`, body: archive(`At ${where} the [[${pair.a}]] sends its reading to the [[${pair.b}]] every hour. At dusk the ${pair.a} checks the ${pair.b} again (${i}).`) })
          .expect(201);
        pair.slugs.push(page.body.slug);
      }
    }
    // Other pages of the wiki, so that the pairs go together far more often than chance.
    for (const topic of ['Rope Knots', 'Gull Counts', 'Net Repairs', 'Boat Paint', 'Storm Drills', 'Fog Horns', 'Crab Pots', 'Oar Care']) {
      await admin.post('/api/pages').send({ title: topic, body: archive(`Notes on ${topic.toLowerCase()} for the harbour crew.`) }).expect(201);
    }
    const extractInOrder = async (slugs: string[]) => {
      for (const slug of slugs) {
        const page = await admin.get(`/api/pages/${slug}`).expect(200);
        await admin.put(`/api/pages/${slug}`).send({ body: `---\ncluster: archive\nkg_include: true\n---\n${page.body.body.split("\n---\n")[1]}`, baseVersion: page.body.version }).expect(200);
        await waitForJobs(t);
      }
    };
    await extractInOrder(pairs[0].slugs);
    await extractInOrder([...pairs[1].slugs].reverse());
    for (const pair of pairs) {
      const supported: { slug: string }[] = await t.dataSource.query(
        `SELECT DISTINCT p.slug FROM kg_proposals r JOIN kg_proposal_support s ON s.proposal_id = r.id JOIN pages p ON p.id = s.page_id
          WHERE r.kind = 'edge' AND r.status = 'pending' AND r.predicate = 'related_to' AND lower(r.source_name) IN ($1, $2) AND lower(r.target_name) IN ($1, $2)
          ORDER BY 1`,
        [pair.a.toLowerCase(), pair.b.toLowerCase()],
      );
      // Before, the pair was judged by the pages extracted so far: only the last of the three passed, and the
      // proposal had that page's support alone (a different page in each order).
      expect(supported.map((r) => r.slug)).toEqual([...pair.slugs].sort());
    }
  });
});
