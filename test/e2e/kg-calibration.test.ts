// Calibrated confidence (issue 22 item 4) through the whole pipeline: extraction keeps the raw score and the signals
// and shows the score calibrated by the judged map; once the wiki has enough reviews of its own, the map is refitted
// on them (on demand, and by an extraction job when due), and the pending proposals are recalibrated.
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate, type CalibrationMap } from '../../src/kg/calibration.js';
import { BUILTIN_CALIBRATION } from '../../src/kg/calibration-builtin.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const BASE = '/admin/knowledge-graph';
const ENV = { KURATE_CALIBRATION_MIN_REVIEWED: '20', KURATE_CALIBRATION_REFIT_EVERY: '5' };
const body = (text: string) => `---\ncluster: vault\n---\n${text}\n`;

interface Pending { id: string; kind: 'node' | 'edge'; confidence: number; raw: number; signals: string[] }

const pending = async (t: TestApp): Promise<Pending[]> =>
  ((await t.dataSource.query(
    `SELECT id::text AS id, kind, confidence, raw_confidence AS raw, signals FROM kg_proposals WHERE status = 'pending' AND extractor = 'builtin' ORDER BY id`,
  )) as Pending[]).map((p) => ({ ...p, confidence: Number(p.confidence), raw: Number(p.raw) }));

/**
 * A review history that says the raw score overstates approval: 14 of 24 entity proposals approved, most of them
 * at the higher scores. Made through the review API (bulk approve and bulk reject), as admins would.
 */
async function reviewHistory(kg: KgFactory, admin: supertest.Agent, afterSave?: () => Promise<void>): Promise<void> {
  const text = 'Names reviewed before.';
  const page = await kg.page('History', { body: text });
  // A running worker extracts the page just saved: its chunk for the proposals below is added once that is done.
  await afterSave?.();
  const passage = { chunkId: await kg.chunk(page.id, text), pageId: page.id };
  const approve: string[] = [];
  const reject: string[] = [];
  for (let i = 0; i < 24; i++) {
    const raw = 0.6 + 0.3 * (i / 23);
    const id = await kg.nodeProposal({ name: `Reviewed ${i}`, type: 'concept', confidence: raw, rawConfidence: raw, signals: ['properNoun'], support: [{ ...passage, quote: 'Names' }] });
    // Approved: every one above 0.8, and one in three below.
    (raw > 0.8 || i % 3 === 0 ? approve : reject).push(id);
  }
  await admin.post(`${BASE}/proposals/bulk`).send({ action: 'approve', ids: approve }).expect(200);
  await admin.post(`${BASE}/proposals/bulk`).send({ action: 'reject', ids: reject }).expect(200);
}

describe('calibrated confidence: the judged map, then the wiki’s own reviews', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    kg = await KgFactory.for(t);
    admin = await t.as('admin');
    await startWorker(t);
    const pages: [string, string][] = [
      ['Quartz Sync', 'The Quartz Sync service keeps vaults alike. It requires [[Web Clipper]].\n\nSee also [[Web Clipper]].'],
      ['Web Clipper', 'The Web Clipper saves pages into the vault. [[Quartz Sync]] copies them.'],
    ];
    for (const [title, text] of pages) await admin.post('/api/pages').send({ title, body: body(text) }).expect(201);
    await setPolicy(admin, 'vault', 'include');
    await waitForJobs(t);
  }, 120_000);
  afterAll(() => t?.close());

  it('keeps the raw score and the signals, and shows the score calibrated by the map fitted on the judged set', async () => {
    const rows = await pending(t);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.signals.length).toBeGreaterThan(0);
      expect(row.confidence).toBeCloseTo(calibrate(BUILTIN_CALIBRATION[row.kind].map, row.raw), 3);
    }
    const status = (await admin.get(`${BASE}/calibration`).expect(200)).body;
    expect(status).toMatchObject({ minReviewed: 20, refitEvery: 5 });
    expect(status.calibrations.find((c: { extractor: string; kind: string }) => c.extractor === 'builtin' && c.kind === 'node')).toMatchObject({
      source: 'judged', reviewedNow: 0, reviewsToOwnFit: 20, rawError: BUILTIN_CALIBRATION.node.rawError, error: BUILTIN_CALIBRATION.node.error,
    });
  });

  it('refits on the wiki’s own reviews on demand, and recalibrates what is pending', async () => {
    await reviewHistory(kg, admin, () => waitForJobs(t));
    const res = await admin.post(`${BASE}/calibration/refit`).send({}).expect(200);
    expect(res.body.refitted).toEqual([expect.objectContaining({ extractor: 'builtin', kind: 'node', reviewed: 24 })]);
    const node = res.body.status.calibrations.find((c: { extractor: string; kind: string }) => c.extractor === 'builtin' && c.kind === 'node');
    expect(node).toMatchObject({ source: 'instance', reviewed: 24, approved: 14, reviewedNow: 24, reviewsToOwnFit: 0 });
    expect(node.fittedOn).toBe('24 reviews in this wiki');
    expect(node.rawError).toBeGreaterThan(0.1);
    expect(node.error).toBeLessThan(node.rawError);
    // The admins were shown the raw scores (these proposals were made by hand), so that is their error too.
    expect(node.shownError).toBe(node.rawError);

    const map: CalibrationMap = node.map;
    const [stored] = await t.dataSource.query(`SELECT reviewed, method FROM kg_calibration_fits WHERE extractor = 'builtin' AND kind = 'node'`);
    expect(stored).toEqual({ reviewed: 24, method: node.method });
    const nodes = (await pending(t)).filter((p) => p.kind === 'node');
    expect(nodes.length).toBeGreaterThan(0);
    for (const p of nodes) expect(p.confidence).toBeCloseTo(calibrate(map, p.raw), 3);
    // Relations have no history of their own yet: still the judged map.
    for (const p of (await pending(t)).filter((x) => x.kind === 'edge')) expect(p.confidence).toBeCloseTo(calibrate(BUILTIN_CALIBRATION.edge.map, p.raw), 3);

    const page = (await admin.get(`${BASE}/ui/calibration`).expect(200)).text;
    expect(page).toContain('this wiki’s reviews');
    expect(page).toContain('24 reviews in this wiki');
  });

  it('refits from the HTML form too, and says so', async () => {
    const { agent, csrfToken } = await t.login(await t.user('admin', { name: 'Ines' }));
    const res = await agent.post(`${BASE}/ui/calibration/refit`).type('form').set('Accept', 'text/html').send(`_csrf=${encodeURIComponent(csrfToken)}`).expect(303);
    expect(res.headers.location).toBe(`${BASE}/ui/calibration?refitted=1`);
    const page = (await agent.get(res.headers.location).set('Accept', 'text/html').expect(200)).text;
    expect(page).toContain('Refitted 1 calibration on this wiki’s reviews');
  });
});

describe('calibration refitted by extraction once enough reviews came in', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
  });
  afterAll(() => t?.close());

  it('fits at the first extraction that finds the wiki with enough reviews, and calibrates that extraction’s proposals with it', async () => {
    const kg = await KgFactory.for(t);
    const admin = await t.as('admin');
    await reviewHistory(kg, admin);
    expect(await kg.count('kg_calibration_fits')).toBe(0);
    await startWorker(t);
    await admin.post('/api/pages').send({ title: 'Lighthouse Tool', body: body('The Lighthouse Tool checks pages. See also [[Harbour Map]].') }).expect(201);
    await admin.post('/api/pages').send({ title: 'Harbour Map', body: body('The Harbour Map lists pages. [[Lighthouse Tool]] reads it.') }).expect(201);
    await setPolicy(admin, 'vault', 'include');
    await waitForJobs(t);
    const [fit] = await t.dataSource.query(`SELECT reviewed, points FROM kg_calibration_fits WHERE extractor = 'builtin' AND kind = 'node'`);
    expect(fit.reviewed).toBe(24);
    const nodes = (await pending(t)).filter((p) => p.kind === 'node' && p.signals.length > 0);
    expect(nodes.length).toBeGreaterThan(0);
    for (const p of nodes) expect(p.confidence).toBeCloseTo(calibrate({ points: fit.points }, p.raw), 3);
  });
});
