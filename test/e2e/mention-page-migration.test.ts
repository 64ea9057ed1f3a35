import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { migrate, rollback } from '../../src/db/migration-runner.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';
/** How many migrations came after 0029 (rolled back with it, and up again). */
const migrationsAfter0029 = () => readdirSync(path.resolve(import.meta.dirname, '../../migrations')).filter((f) => /^\d{4}_.*\.sql$/.test(f) && f > '0029_mention_page.sql').length;

/**
 * Migration 0029 on a wiki that has approved knowledge: every mention gets its chunk's page, and the review journal's
 * images of mentions get it too, so an action recorded before the migration can still be undone (the undo compares
 * each row with the image the action left). Undo also leaves the derived columns out of that comparison, so an image
 * journaled before a derived column existed (0020's context) does not read as a later change either.
 */
describe('migration 0029: mentions carry their page, and undo works across it', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;
  let actionId: string;
  let nodeId: string;
  let pageId: string;
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(sql, params);

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin');
    const passage = await kg.passage('Lighthouses', 'The Fresnel lens focuses the lamp.');
    pageId = passage.pageId;
    const proposal = await kg.nodeProposal({ name: 'Fresnel lens', type: 'technology', support: [{ ...passage, quote: 'Fresnel lens' }] });
    const approved = await admin.post(`${BASE}/proposals/${proposal}/approve`).send({}).expect(200);
    [actionId, nodeId] = [approved.body.actionId, approved.body.items[0].nodeId];
    // Back to the schema before 0029 (its down step takes the column out of the journal's images too), and up again:
    // the state of a wiki that approved this before upgrading.
    expect((await rollback(t.dataSource, migrationsAfter0029() + 1)).at(-1)).toBe('0029_mention_page');
    const images = await q<{ n: number }>(`SELECT count(*)::int AS n FROM kg_review_journal WHERE table_name = 'kg_mentions' AND (after ? 'page_id' OR before ? 'page_id')`);
    expect(images[0].n).toBe(0);
    await migrate(t.dataSource);
  });
  afterAll(() => t?.close());

  it('gives every mention its chunk page and every journal image of a mention the same', async () => {
    expect(await q(`SELECT page_id FROM kg_mentions WHERE node_id = $1`, [nodeId])).toEqual([{ page_id: pageId }]);
    const images = await q<{ page: string }>(`SELECT coalesce(after, before) ->> 'page_id' AS page FROM kg_review_journal WHERE action_id = $1 AND table_name = 'kg_mentions'`, [actionId]);
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((i) => i.page === pageId)).toBe(true);
  });

  it('undoes the approval made before the migration', async () => {
    await admin.post(`${BASE}/audit/${actionId}/undo`).send({}).expect(200);
    expect(await kg.count('kg_nodes', 'id = $1', [nodeId])).toBe(0);
    expect(await q(`SELECT node_id FROM kg_mentions WHERE page_id = $1`, [pageId])).toEqual([{ node_id: null }]);
  });

  it('undoes an approval journaled before mentions had derived columns at all (their images lack context and page)', async () => {
    const passage = await kg.passage('Beacons', 'The Argand lamp burns oil.');
    const proposal = await kg.nodeProposal({ name: 'Argand lamp', type: 'technology', support: [{ ...passage, quote: 'Argand lamp' }] });
    const approved = await admin.post(`${BASE}/proposals/${proposal}/approve`).send({}).expect(200);
    // As an action journaled before migration 0020 left them: the images have neither column.
    await q(
      `UPDATE kg_review_journal SET before = before - '{context,page_id}'::text[], after = after - '{context,page_id}'::text[]
        WHERE action_id = $1 AND table_name = 'kg_mentions'`,
      [approved.body.actionId],
    );
    await admin.post(`${BASE}/audit/${approved.body.actionId}/undo`).send({}).expect(200);
    const [mention] = await q<{ node_id: string | null; page_id: string; words: number }>(
      `SELECT node_id, page_id, length(context) AS words FROM kg_mentions WHERE page_id = $1`, [passage.pageId],
    );
    expect(mention).toEqual({ node_id: null, page_id: passage.pageId, words: expect.any(Number) });
    expect(mention.words).toBeGreaterThan(0);
  });
});
