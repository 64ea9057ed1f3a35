// @module-tag slow (extracts the whole Foam corpus): `npm run test:fast` leaves it out; docs/testing.md
import type supertest from 'supertest';
import { calibrate } from '../../src/kg/calibration.js';
import { BUILTIN_CALIBRATION } from '../../src/kg/calibration-builtin.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENTITY_TYPES, EXTRACTOR, type EntityType, type Extractor } from '../../src/extractors/extraction.types.js';
import { variantKey } from '../../src/extractors/builtin/name-forms.js';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, foamDocsPages, importPages, jobStates, openJobs, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

interface QueueItem {
  id: string;
  name: string | null;
  evidence: { slug: string; quote: string }[];
  evidenceTotal: number;
  supportCount: number;
  pages: { slug: string }[];
}

/**
 * The Foam documentation, imported through POST /api/import, extracted with the built-in (offline) extractor once
 * an admin includes the `user` cluster: proposals with verified quotes, nothing twice, only the edited section read
 * again, withdrawn support, and no call at all once the cluster is excluded.
 */
describe('extraction of the Foam docs with the built-in extractor', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let author: supertest.Agent;
  let extractSpy: ReturnType<typeof vi.spyOn>;

  const snapshot = async () =>
    JSON.stringify({
      chunks: await t.dataSource.query('SELECT id, page_id, position, heading_path, content_hash, embedding_model, embedding_dims FROM kg_content_chunks ORDER BY id'),
      mentions: await t.dataSource.query('SELECT id, chunk_id, signature, node_id, confidence FROM kg_mentions ORDER BY id'),
      proposals: await t.dataSource.query('SELECT id, kind, signature, status, support_count, confidence, evidence_quote FROM kg_proposals ORDER BY id'),
      support: await t.dataSource.query('SELECT proposal_id, chunk_id, page_id, quote, confidence FROM kg_proposal_support ORDER BY proposal_id, chunk_id'),
      edges: await t.dataSource.query('SELECT id, source_node_id, target_node_id, kind, weight FROM kg_edges ORDER BY id'),
    });
  const page = async (slug: string) => (await author.get(`/api/pages/${slug}`).expect(200)).body as { id: string; title: string; body: string; version: number };
  const save = async (slug: string, body: string) => {
    const current = await page(slug);
    await author.put(`/api/pages/${slug}`).send({ body, baseVersion: current.version }).expect(200);
  };
  /** The pending review queue (GET /admin/knowledge-graph/proposals) as an admin sees it, for a query string. */
  const queue = async (query: string) => ((await admin.get(`/admin/knowledge-graph/proposals?limit=200&${query}`).expect(200)).body as { items: QueueItem[] }).items;
  const chunksOf = async (pageId: string) =>
    (await t.dataSource.query('SELECT id::text AS id, content_hash AS hash, text FROM kg_content_chunks WHERE page_id = $1 ORDER BY position', [pageId])) as {
      id: string; hash: string; text: string;
    }[];

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    author = await t.as('author', { name: 'Importer' });
    extractSpy = vi.spyOn(t.app.get<Extractor>(EXTRACTOR), 'extract');
    await startWorker(t);
    await importPages(author, await foamDocsPages());
  }, 120_000);
  afterAll(() => t?.close());

  it('enqueues nothing while no policy includes a page (the default is exclude)', async () => {
    expect(await count(t, 'SELECT count(*) FROM pages')).toBeGreaterThan(80);
    expect(await count(t, 'SELECT count(*) FROM pgboss.job')).toBe(0);
    expect(extractSpy).not.toHaveBeenCalled();
  });

  it('extracts every page of the included cluster once it is included, and only those: proposals appear', async () => {
    await setPolicy(admin, 'user', 'include');
    const included = await count(t, `SELECT count(*) FROM pages p WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id)`);
    expect(included).toBeGreaterThan(50);
    await waitForJobs(t, { timeoutMs: 120_000 });
    expect(await jobStates(t)).toEqual({ completed: included });
    expect(await count(t, 'SELECT count(*) FROM kg_page_extractions')).toBe(included);
    // Nothing from a page outside the cluster.
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks c JOIN kg_excluded_pages x ON x.page_id = c.page_id`)).toBe(0);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE status = 'pending' AND kind = 'node'`)).toBeGreaterThan(50);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE status = 'pending' AND kind = 'edge'`)).toBeGreaterThan(0);
  }, 180_000);

  it('grounds every proposal in its chunks: support rows with verbatim quotes, counts, the best confidence, the threshold', async () => {
    const orphans = await count(t, `SELECT count(*) FROM kg_proposals p WHERE p.support_count <> (SELECT count(*) FROM kg_proposal_support s WHERE s.proposal_id = p.id)`);
    expect(orphans).toBe(0);
    const unsupported = await count(t, `SELECT count(*) FROM kg_proposals p WHERE p.status = 'pending' AND p.support_count = 0`);
    expect(unsupported).toBe(0);
    // Each quote is in its chunk (whitespace aside), and its page is the chunk's page.
    const quotes: { quote: string; text: string; same_page: boolean }[] = await t.dataSource.query(
      `SELECT s.quote, c.text, s.page_id = c.page_id AS same_page FROM kg_proposal_support s JOIN kg_content_chunks c ON c.id = s.chunk_id`,
    );
    const squash = (text: string) => text.normalize('NFKC').replace(/\s+/g, ' ');
    expect(quotes.filter((q) => !squash(q.text).includes(squash(q.quote)))).toEqual([]);
    expect(quotes.every((q) => q.same_page)).toBe(true);
    // The proposal's raw score is the best of its support, and its confidence that score calibrated (the judged map of
    // src/kg/calibration-builtin.ts); nothing below the threshold (0.6, on the raw score) is proposed…
    expect(await count(t, `SELECT count(*) FROM kg_proposals p WHERE abs(p.raw_confidence - (SELECT max(confidence) FROM kg_proposal_support s WHERE s.proposal_id = p.id)) > 1e-6`)).toBe(0);
    const scores: { kind: 'node' | 'edge'; confidence: number; raw: number }[] = await t.dataSource.query(`SELECT kind, confidence, raw_confidence AS raw FROM kg_proposals`);
    expect(scores.filter((p) => Math.abs(p.confidence - calibrate(BUILTIN_CALIBRATION[p.kind].map, p.raw)) > 1e-3)).toEqual([]);
    expect(await count(t, 'SELECT count(*) FROM kg_proposal_support WHERE confidence < 0.6')).toBe(0);
    // … but the mention is kept.
    expect(await count(t, 'SELECT count(*) FROM kg_mentions WHERE confidence < 0.6')).toBeGreaterThan(0);
    // Signatures: a normalised name and a type for nodes (the spelling that proposed it first: a variant of the name,
    // which the best-scored spelling gives), endpoints and predicate for edges.
    const nodes: { signature: string; name: string }[] = await t.dataSource.query(`SELECT signature, name FROM kg_proposals WHERE kind = 'node'`);
    expect(nodes.filter((n) => variantKey(n.signature.slice(0, n.signature.lastIndexOf('|'))) !== variantKey(n.name))).toEqual([]);
    expect(nodes.filter((n) => !ENTITY_TYPES.includes(n.signature.slice(n.signature.lastIndexOf('|') + 1) as EntityType))).toEqual([]);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE kind = 'edge' AND signature <> source_signature || '|' || predicate || '|' || target_signature`)).toBe(0);
  });

  it('stores chunks with heading paths, token estimates, embeddings (model and dimensions) and a search vector', async () => {
    const rows: { heading_path: string[]; token_estimate: number; embedding_model: string; embedding_dims: number; has_vector: boolean; has_search: boolean }[] =
      await t.dataSource.query(
        `SELECT heading_path, token_estimate, embedding_model, embedding_dims, embedding IS NOT NULL AS has_vector, search IS NOT NULL AS has_search FROM kg_content_chunks`,
      );
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.every((r) => r.has_vector && r.has_search && r.embedding_model && r.embedding_dims > 0)).toBe(true);
    expect(new Set(rows.map((r) => r.embedding_model)).size).toBe(1);
    expect(rows.filter((r) => r.heading_path.length > 0).length).toBeGreaterThan(rows.length / 2);
    expect(Math.max(...rows.map((r) => r.token_estimate))).toBeLessThanOrEqual(1024);
  });

  it('adds nothing when run again: no call, no row changed', async () => {
    const before = await snapshot();
    const calls = extractSpy.mock.calls.length;
    const estimate = await admin.post('/api/admin/kg/extract').send({ cluster: 'user', dryRun: true }).expect(200);
    expect(estimate.body).toMatchObject({ pagesToExtract: 0, estimatedCalls: 0 });
    // Force a run of every page anyway (a duplicate job, a retry): each finds its chunks unchanged.
    const pages: { id: string }[] = await t.dataSource.query(`SELECT p.id FROM pages p WHERE NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = p.id)`);
    const { PageExtractionService } = await import('../../src/kg/page-extraction.service.js');
    for (const { id } of pages) expect(await t.app.get(PageExtractionService).extractPage(id)).toMatchObject({ status: 'extracted', calls: 0, newChunks: 0 });
    expect(extractSpy.mock.calls.length).toBe(calls);
    expect(await snapshot()).toBe(before);
  }, 60_000);

  it('re-extracts only the edited section, and a page save that changes no extracted text enqueues nothing', async () => {
    const target = await page('recommended-extensions');
    const before = await chunksOf(target.id);
    expect(before.length).toBeGreaterThan(1);
    const calls = extractSpy.mock.calls.length;
    await save('recommended-extensions', target.body.replace('This list is subject to change.', 'This list changes now and then, as extensions come and go.'));
    await waitForJobs(t);
    const after = await chunksOf(target.id);
    expect(extractSpy.mock.calls.length - calls).toBe(1);
    expect(extractSpy.mock.calls.at(-1)![0].chunkText).toContain('extensions come and go');
    expect(after.filter((c) => before.some((b) => b.id === c.id))).toHaveLength(before.length - 1);

    // Tags only: nothing extraction reads changed, so no job at all.
    const jobs = await count(t, 'SELECT count(*) FROM pgboss.job');
    const current = await page('recommended-extensions');
    await save('recommended-extensions', current.body.replace(/^---\n/, '---\ntags: [vscode]\n'));
    expect(await count(t, 'SELECT count(*) FROM pgboss.job')).toBe(jobs);
  });

  it('withdraws support that came only from removed text, and retires a pending proposal left with none', async () => {
    const slug = 'zanzibar-notes';
    await author.post('/api/pages').send({ title: 'Zanzibar Notes', body: '---\ncluster: user/tests\n---\nThe [[Zanzibar Archipelago]] is off the coast.\n\nWe keep notes about the ferry.\n' }).expect(201);
    await waitForJobs(t);
    const proposal = async () =>
      ((await t.dataSource.query(`SELECT id::text AS id, status, support_count FROM kg_proposals WHERE kind = 'node' AND name = 'Zanzibar Archipelago' ORDER BY id DESC LIMIT 1`)) as {
        id: string; status: string; support_count: number;
      }[])[0];
    const pending = await proposal();
    expect(pending).toMatchObject({ status: 'pending', support_count: 1 });
    const reviewItem = (await queue(`page=${slug}`)).find((p) => p.id === pending.id);
    expect(reviewItem?.evidence.map((e) => e.quote)).toEqual(['The [[Zanzibar Archipelago]] is off the coast.']);

    await save(slug, '---\ncluster: user/tests\n---\nWe keep notes about the ferry.\n');
    await waitForJobs(t);
    // The same proposal (not a copy), retired, with no support row left.
    expect(await proposal()).toMatchObject({ id: pending.id, status: 'retired', support_count: 0 });
    expect(await count(t, 'SELECT count(*) FROM kg_proposal_support WHERE proposal_id = $1', [pending.id])).toBe(0);
    // Out of the review queue: not pending under any filter, and no longer attached to the page.
    expect((await queue('q=Zanzibar')).map((p) => p.id)).toEqual([]);
    expect((await queue(`page=${slug}`)).map((p) => p.id)).not.toContain(pending.id);
    expect((await queue('status=retired&q=Zanzibar')).map((p) => p.id)).toEqual([pending.id]);
  });

  it('hides from review what only a trashed page supports, keeps what another page also supports, and restores both without a call', async () => {
    const body = (text: string) => `---\ncluster: user/tests\n---\n${text}\n`;
    await author.post('/api/pages').send({ title: 'Lighthouse Log', body: body('The [[Fresnel Lens]] sits in the lamp room.\n\nThe [[Tidal Clock]] hangs by the door.') }).expect(201);
    await author.post('/api/pages').send({ title: 'Harbour Log', body: body('The [[Tidal Clock]] tells the harbour master when to open the gate.') }).expect(201);
    await waitForJobs(t);
    const idOf = async (name: string) =>
      ((await t.dataSource.query(`SELECT id::text AS id FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = $1`, [name])) as { id: string }[]).map((r) => r.id);
    const [lens] = await idOf('Fresnel Lens');
    const [clock] = await idOf('Tidal Clock');
    expect(lens).toBeTruthy();
    expect(clock).toBeTruthy();
    // As review shows them: the lens on one page, the clock on two.
    const item = async (q: string, id: string) => (await queue(`q=${encodeURIComponent(q)}`)).find((p) => p.id === id);
    const shown = (p: QueueItem | undefined) => p && { slugs: p.pages.map((x) => x.slug).sort(), evidence: p.evidence.map((e) => e.slug).sort(), evidenceTotal: p.evidenceTotal, supportCount: p.supportCount };
    expect(shown(await item('Fresnel Lens', lens))).toEqual({ slugs: ['lighthouse-log'], evidence: ['lighthouse-log'], evidenceTotal: 1, supportCount: 1 });
    expect(shown(await item('Tidal Clock', clock))).toEqual({ slugs: ['harbour-log', 'lighthouse-log'], evidence: ['harbour-log', 'lighthouse-log'], evidenceTotal: 2, supportCount: 2 });
    const calls = extractSpy.mock.calls.length;
    const jobs = await count(t, 'SELECT count(*) FROM pgboss.job');

    await author.delete('/api/pages/lighthouse-log').expect(204);
    // The lens, supported by the trashed page alone, is gone from the queue and its page answers 404…
    expect(await item('Fresnel Lens', lens)).toBeUndefined();
    await admin.get(`/admin/knowledge-graph/proposals/${lens}`).expect(404);
    // … the clock stays, with only the live page's evidence.
    expect(shown(await item('Tidal Clock', clock))).toEqual({ slugs: ['harbour-log'], evidence: ['harbour-log'], evidenceTotal: 1, supportCount: 1 });
    const detail = (await admin.get(`/admin/knowledge-graph/proposals/${clock}`).expect(200)).body as QueueItem;
    expect(detail.evidence.map((e) => e.quote)).toEqual(['The [[Tidal Clock]] tells the harbour master when to open the gate.']);
    expect(detail.pages.map((p) => p.slug)).toEqual(['harbour-log']);
    // Soft: the rows are still there, untouched (nothing was withdrawn or retired).
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE id = $1 AND status = 'pending' AND support_count = 1`, [lens])).toBe(1);
    expect(await count(t, 'SELECT count(*) FROM kg_proposal_support WHERE proposal_id = $1', [clock])).toBe(2);

    await author.post('/api/pages/lighthouse-log/restore').expect(201);
    await waitForJobs(t);
    expect(shown(await item('Fresnel Lens', lens))).toEqual({ slugs: ['lighthouse-log'], evidence: ['lighthouse-log'], evidenceTotal: 1, supportCount: 1 });
    expect(shown(await item('Tidal Clock', clock))).toEqual({ slugs: ['harbour-log', 'lighthouse-log'], evidence: ['harbour-log', 'lighthouse-log'], evidenceTotal: 2, supportCount: 2 });
    // Back without reading the page again: no job, no extraction call.
    expect(await count(t, 'SELECT count(*) FROM pgboss.job')).toBe(jobs);
    expect(extractSpy.mock.calls.length).toBe(calls);
  });

  it('links mentions of an approved entity (not proposed again), derives co-mention edges, and never re-proposes a rejected one', async () => {
    // An admin approved "Foam" and "GitHub" (as review does: a node with the proposal's signature).
    const approve = async (name: string) => {
      const [proposal] = await t.dataSource.query(
        `SELECT id, signature, name, node_type FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = $1 ORDER BY support_count DESC LIMIT 1`,
        [name],
      );
      expect(proposal, name).toBeTruthy();
      const [node] = await t.dataSource.query(
        `INSERT INTO kg_nodes (signature, name, node_type, created_by) VALUES ($1, $2, $3, 'test') RETURNING id::text AS id`,
        [proposal.signature, proposal.name, proposal.node_type],
      );
      await t.dataSource.query(`UPDATE kg_proposals SET status = 'approved' WHERE id = $1`, [proposal.id]);
      return { id: node.id as string, signature: proposal.signature as string };
    };
    const foam = await approve('Foam');
    const github = await approve('GitHub');

    await author.post('/api/pages').send({
      title: 'Publishing Notes',
      body: '---\ncluster: user/tests\n---\n# Publishing Notes\n\nFoam keeps the notes in GitHub. Every push to GitHub publishes the Foam workspace, see [[Mount Kilimanjaro]].\n',
    }).expect(201);
    await waitForJobs(t);
    const [created] = await t.dataSource.query(`SELECT id FROM pages WHERE slug = 'publishing-notes'`);
    const linked: { node_id: string }[] = await t.dataSource.query(
      `SELECT DISTINCT m.node_id::text AS node_id FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id WHERE c.page_id = $1 AND m.node_id IS NOT NULL`,
      [created.id],
    );
    expect(linked.map((m) => m.node_id).sort()).toEqual([foam.id, github.id].sort());
    // Approved entities are not proposed again (by signature, or by name under another type).
    const fromPage = `SELECT count(*) FROM kg_proposals p JOIN kg_proposal_support s ON s.proposal_id = p.id
                       WHERE s.page_id = $1 AND p.status = 'pending' AND p.kind = 'node' AND lower(p.name) IN ('foam', 'github')`;
    expect(await count(t, fromPage, [created.id])).toBe(0);
    // A co-mention edge between the two approved entities, weighted by the number of chunks they share.
    const edge = async () =>
      ((await t.dataSource.query(
        `SELECT kind, predicate, weight, origin FROM kg_edges WHERE source_node_id = least($1::bigint, $2::bigint) AND target_node_id = greatest($1::bigint, $2::bigint)`,
        [foam.id, github.id],
      )) as { kind: string; predicate: string; weight: number; origin: string }[])[0];
    const shared = () =>
      count(t, `SELECT count(DISTINCT a.chunk_id) FROM kg_mentions a JOIN kg_mentions b ON a.chunk_id = b.chunk_id WHERE a.node_id = $1 AND b.node_id = $2`, [foam.id, github.id]);
    expect(await edge()).toMatchObject({ kind: 'co_mention', predicate: 'co_mention', origin: 'extracted' });
    const sharedBefore = await shared();
    expect(sharedBefore).toBeGreaterThanOrEqual(1);
    expect((await edge()).weight).toBe(sharedBefore);
    // Typed relations only ever arrive as proposals: no typed edge was created.
    expect(await count(t, `SELECT count(*) FROM kg_edges WHERE kind = 'typed'`)).toBe(0);

    // An admin rejects the linked name; a later page naming it does not bring it back.
    const [kilimanjaro] = await t.dataSource.query(`SELECT id, signature FROM kg_proposals WHERE kind = 'node' AND status = 'pending' AND name = 'Mount Kilimanjaro'`);
    expect(kilimanjaro).toBeTruthy();
    await t.dataSource.query(`INSERT INTO kg_rejections (kind, signature, rejected_by) VALUES ('node', $1, 'test')`, [kilimanjaro.signature]);
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'rejected' WHERE id = $1`, [kilimanjaro.id]);
    await author.post('/api/pages').send({ title: 'Climbing', body: '---\ncluster: user/tests\n---\nWe climbed [[Mount Kilimanjaro]] last year.\n' }).expect(201);

    // The page that named both approved entities no longer does: the co-mention weight follows.
    await save('publishing-notes', '---\ncluster: user/tests\n---\n# Publishing Notes\n\nNothing to see here any more.\n');
    await waitForJobs(t);
    expect(await count(t, `SELECT count(*) FROM kg_proposals WHERE status = 'pending' AND signature = $1`, [kilimanjaro.signature])).toBe(0);
    expect(await count(t, `SELECT count(*) FROM kg_mentions WHERE signature = $1`, [kilimanjaro.signature])).toBe(1);
    const sharedAfter = await shared();
    expect(sharedAfter).toBe(sharedBefore - 1);
    expect((await edge())?.weight ?? 0).toBe(sharedAfter);
  });

  it('stops extraction before any call once the cluster is excluded: no job for a save, and a queued job skips', async () => {
    const worker = t.app.get(JobWorker);
    await worker.stop();
    // A job queued while the cluster was included…
    const target = await page('recommended-extensions');
    await save('recommended-extensions', `${target.body}\nOne more paragraph about Foam and Visual Studio Code.\n`);
    expect(await openJobs(t)).toBe(1);
    // … then the cluster is excluded before a worker takes it.
    await setPolicy(admin, 'user', 'exclude');
    const calls = extractSpy.mock.calls.length;
    const jobs = await count(t, 'SELECT count(*) FROM pgboss.job');
    const again = await page('recommended-extensions');
    await save('recommended-extensions', `${again.body}\nAnd another.\n`);
    expect(await count(t, 'SELECT count(*) FROM pgboss.job')).toBe(jobs);
    await worker.start();
    await waitForJobs(t);
    expect(extractSpy.mock.calls.length).toBe(calls);
    const [last] = await t.dataSource.query(`SELECT output FROM pgboss.job WHERE name = 'kg-extract-page' ORDER BY completed_on DESC LIMIT 1`);
    expect(last.output).toMatchObject({ status: 'skipped', reason: 'the inclusion policy excludes the page' });
  });

  it('re-including the soft-excluded cluster enqueues only the page edited meanwhile, and calls the extractor for it alone', async () => {
    const extractJobs = async () =>
      ((await t.dataSource.query(`SELECT id::text AS id, data->>'pageId' AS "pageId" FROM pgboss.job WHERE name = 'kg-extract-page'`)) as { id: string; pageId: string }[]);
    const edited = await page('recommended-extensions');
    const known = new Set((await extractJobs()).map((j) => j.id));
    const calls = extractSpy.mock.calls.length;
    // The rows of every other page, which must come back as they were.
    const others = async () =>
      JSON.stringify({
        chunks: await t.dataSource.query('SELECT id, page_id, position, content_hash FROM kg_content_chunks WHERE page_id <> $1 ORDER BY id', [edited.id]),
        mentions: await t.dataSource.query('SELECT m.id, m.signature, m.node_id FROM kg_mentions m JOIN kg_content_chunks c ON c.id = m.chunk_id WHERE c.page_id <> $1 ORDER BY m.id', [edited.id]),
        support: await t.dataSource.query('SELECT proposal_id, chunk_id, quote FROM kg_proposal_support WHERE page_id <> $1 ORDER BY proposal_id, chunk_id', [edited.id]),
        records: await t.dataSource.query('SELECT page_id, source_hash, extraction_calls FROM kg_page_extractions WHERE page_id <> $1 ORDER BY page_id', [edited.id]),
      });
    const before = await others();

    await setPolicy(admin, 'user', 'include');
    // Exactly one new job, for the page edited while excluded; none for the many pages whose source did not change.
    const added = (await extractJobs()).filter((j) => !known.has(j.id));
    expect(added.map((j) => j.pageId)).toEqual([edited.id]);
    await waitForJobs(t);
    const made = extractSpy.mock.calls.slice(calls).map((c) => c[0] as { pageTitle: string; chunkText: string });
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((r) => r.pageTitle === edited.title)).toBe(true);
    expect(made.map((r) => r.chunkText).join('\n')).toContain('And another.');
    expect(await others()).toBe(before);
  });
});
