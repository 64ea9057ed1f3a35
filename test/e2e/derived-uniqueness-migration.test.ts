import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, rollback } from '../../src/db/migration-runner.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Migration 0010 on a database that overlapping extraction runs damaged before it: the duplicates are repaired
 * (one chunk per place, counts in step, what depended on the dropped rows brought up to date), then the constraints
 * refuse new ones, and a renumbering UPDATE still works (the position key is deferrable).
 */
describe('migration 0010: derived tables repaired, then unique', () => {
  let t: TestApp;
  let pageId: string;
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(sql, params);

  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    pageId = (await author.post('/api/pages').send({ title: 'Damaged', body: 'Text.' }).expect(201)).body.id;
    expect(await rollback(t.dataSource, 1)).toEqual(['0010_derived_uniqueness']);

    // What two overlapping runs left: run A (older text, 3 chunks), then run B (2 chunks) planned against nothing.
    const chunk = async (position: number, text: string) =>
      (await q<{ id: string }>(`INSERT INTO kg_content_chunks (page_id, position, text, content_hash) VALUES ($1, $2, $3, md5($3)) RETURNING id::text AS id`, [pageId, position, text]))[0].id;
    const a0 = await chunk(0, 'A zero');
    const a1 = await chunk(1, 'A one');
    const a2 = await chunk(2, 'A two');
    const b0 = await chunk(0, 'B zero');
    const b1 = await chunk(1, 'B one');
    await q(`INSERT INTO kg_page_extractions (page_id, source_hash, page_content_hash, context_hash, chunk_count, extractor) VALUES ($1, 'b', 'b', 'b', 2, 'builtin')`, [pageId]);
    const [n1, n2, n3] = await Promise.all(['one|product', 'two|product', 'three|product'].map(async (signature) =>
      (await q<{ id: string }>(`INSERT INTO kg_nodes (signature, name, node_type, created_by) VALUES ($1, $1, 'product', 'test') RETURNING id::text AS id`, [signature]))[0].id));
    // n1 and n2 share chunks a0 and b0; n3 is mentioned only in a2 (beyond the record's count).
    for (const [c, n] of [[a0, n1], [a0, n2], [b0, n1], [b0, n2], [a2, n3], [a2, n1]]) {
      await q(`INSERT INTO kg_mentions (chunk_id, signature, node_id, surface) VALUES ($1, (SELECT signature FROM kg_nodes WHERE id = $2), $2, 'x')`, [c, n]);
    }
    const [small, large] = [n1, n2].sort((x, y) => Number(x) - Number(y));
    await q(`INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, created_by) VALUES ($1, $2, 'co_mention', 'co_mention', 2, 'x')`, [small, large]);
    const [lo3, hi3] = [n1, n3].sort((x, y) => Number(x) - Number(y));
    // Stored the wrong way round, and a twin of the right-way one.
    await q(`INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, created_by) VALUES ($1, $2, 'co_mention', 'co_mention', 1, 'x')`, [hi3, lo3]);
    await q(`INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, created_by) VALUES ($1, $2, 'co_mention', 'co_mention', 1, 'x')`, [large, small]);
    const proposal = async (signature: string, support: string[]) => {
      const [{ id }] = await q<{ id: string }>(
        `INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, extractor, support_count) VALUES ('node', $1, $1, 'product', 0.9, 'builtin', $2) RETURNING id::text AS id`,
        [signature, support.length]);
      for (const c of support) await q(`INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote) VALUES ($1, $2, $3, 'q')`, [id, c, pageId]);
      return id;
    };
    await proposal('four|product', [a1, b1]);
    await proposal('five|product', [a2]);
    await migrate(t.dataSource);
  });
  afterAll(() => t?.close());

  it('keeps one chunk per place (the newest), drops those beyond the record, and puts the record in step', async () => {
    expect(await q(`SELECT position, text FROM kg_content_chunks WHERE page_id = $1 ORDER BY position`, [pageId])).toEqual([
      { position: 0, text: 'B zero' }, { position: 1, text: 'B one' },
    ]);
    expect(await q(`SELECT chunk_count, source_hash FROM kg_page_extractions WHERE page_id = $1`, [pageId])).toEqual([
      { chunk_count: 2, source_hash: 'repaired-by-0010' },
    ]);
  });

  it('brings what depended on the dropped chunks up to date: support counts, retired proposals, co-mention weights', async () => {
    expect(await q(`SELECT signature, support_count, status FROM kg_proposals ORDER BY signature`)).toEqual([
      { signature: 'five|product', support_count: 0, status: 'retired' },
      { signature: 'four|product', support_count: 1, status: 'pending' },
    ]);
    const edges = await q<{ weight: number; ordered: boolean }>(`SELECT weight, source_node_id < target_node_id AS ordered FROM kg_edges ORDER BY id`);
    // n1–n2 share b0 only now; n1–n3 shared a2, which went.
    expect(edges).toEqual([{ weight: 1, ordered: true }]);
  });

  it('refuses a second chunk at a taken place, yet renumbers kept chunks in one UPDATE', async () => {
    await expect(q(`INSERT INTO kg_content_chunks (page_id, position, text, content_hash) VALUES ($1, 1, 'again', 'h')`, [pageId])).rejects.toThrow(/kg_content_chunks_page_position_key/);
    await q(`UPDATE kg_content_chunks SET position = 1 - position WHERE page_id = $1`, [pageId]);
    expect(await q(`SELECT position, text FROM kg_content_chunks WHERE page_id = $1 ORDER BY position`, [pageId])).toEqual([
      { position: 0, text: 'B one' }, { position: 1, text: 'B zero' },
    ]);
  });

  it('refuses a co-mention stored the wrong way round', async () => {
    const [edge] = await q<{ s: string; t: string }>(`SELECT source_node_id::text AS s, target_node_id::text AS t FROM kg_edges`);
    await expect(q(`INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, created_by) VALUES ($1, $2, 'co_mention', 'co_mention', 'x')`, [edge.t, edge.s]))
      .rejects.toThrow(/kg_edges_co_mention_order_check/);
  });
});
