import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgExtractionQueue } from '../../src/kg/kg-extraction-queue.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

interface ChunkRow {
  id: string;
  heading_path: string[];
  anchor: string | null;
  text: string;
}

const words = (topic: string) =>
  Array.from({ length: 12 }, (_, i) => `Sentence ${i} explains how ${topic} works on this machine.`).join(' ');
const section = (platform: string, topic: string, extra = '') => `## ${platform}\n\n### Setup\n\n${words(topic)}${extra}`;

/**
 * Links to a chunk's section when a page repeats a heading: the anchor is stored with each chunk at extraction
 * (the id the rendered page gives that heading), kept current when an edit above renumbers it, and used by search,
 * review evidence and the entity pages.
 */
describe('section links on a page that repeats a heading', () => {
  let t: TestApp;
  let author: supertest.Agent;
  let admin: supertest.Agent;

  const chunks = async (): Promise<ChunkRow[]> =>
    t.dataSource.query(
      `SELECT c.id::text AS id, c.heading_path, c.anchor, c.text FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id
        WHERE p.slug = 'install-guide' ORDER BY c.position`,
    );
  const chunkAbout = async (topic: string) => (await chunks()).find((c) => c.text.includes(topic))!;
  /** Extraction calls made for the page so far (the record adds each run's). */
  const calls = async () =>
    Number((await t.dataSource.query(`SELECT e.extraction_calls AS n FROM kg_page_extractions e JOIN pages p ON p.id = e.page_id WHERE p.slug = 'install-guide'`))[0].n);

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.as('author');
    admin = await t.as('admin');
    await startWorker(t);
    const body = `---\ncluster: manuals\n---\n# Install Guide\n\n${section('Linux', 'the apt package manager')}\n\n${section('Windows', 'the msi installer wizard', ' Run it from [[PowerShell]] as an administrator.')}\n`;
    await author.post('/api/pages').send({ title: 'Install Guide', body }).expect(201);
    await setPolicy(admin, 'manuals', 'include');
    await waitForJobs(t, { timeoutMs: 60_000 });
  }, 120_000);
  afterAll(() => t?.close());

  it('stores the rendered page’s id of each chunk’s heading: the second "Setup" is setup-2', async () => {
    expect((await chunkAbout('apt package')).anchor).toBe('setup');
    expect((await chunkAbout('msi installer')).anchor).toBe('setup-2');
    const page = await t.http.get('/page/install-guide').set('Accept', 'text/html').expect(200);
    expect(page.text).toMatch(/<h3 id="setup-2"[^>]*>Setup<\/h3>/);
  });

  it('links a search hit to that section, not to the first heading of the same name', async () => {
    const res = await author.get('/api/search?q=msi%20installer%20wizard').expect(200);
    const hit = res.body.hits.find((h: { slug: string }) => h.slug === 'install-guide');
    expect(hit.section).toEqual(['Install Guide', 'Windows', 'Setup']);
    expect(hit.sectionUrl).toBe('/page/install-guide#setup-2');
  });

  it('links review evidence there too', async () => {
    const windows = await chunkAbout('msi installer');
    const [{ id }] = (await t.dataSource.query(
      `SELECT proposal_id::text AS id FROM kg_proposal_support WHERE chunk_id = $1 ORDER BY proposal_id LIMIT 1`,
      [windows.id],
    )) as { id: string }[];
    const res = await admin.get(`/admin/knowledge-graph/proposals/${id}`).expect(200);
    const hrefs = (res.body.evidence as { href: string; heading: string }[]).filter((e) => e.heading === 'Install Guide › Windows › Setup').map((e) => e.href);
    expect(hrefs.length).toBeGreaterThan(0);
    expect(new Set(hrefs)).toEqual(new Set(['/page/install-guide#setup-2']));
  });

  it('renumbers kept chunks when a "Setup" is added above them, without extracting them again', async () => {
    const before = await chunks();
    const callsBefore = await calls();
    const current = (await author.get('/api/pages/install-guide').expect(200)).body;
    const body = current.body.replace('## Linux', `${section('Mac', 'the homebrew formula')}\n\n## Linux`);
    await author.put('/api/pages/install-guide').send({ body, baseVersion: current.version }).expect(200);
    await waitForJobs(t, { timeoutMs: 60_000 });

    const after = await chunks();
    expect(after.map((c) => c.anchor)).toEqual(['setup', 'setup-2', 'setup-3']);
    expect((await chunkAbout('homebrew')).anchor).toBe('setup');
    // The Linux and Windows chunks are the same rows (same text), with their new anchors; only the new one was extracted.
    expect((await chunkAbout('apt package')).id).toBe(before.find((c) => c.text.includes('apt package'))!.id);
    expect((await chunkAbout('apt package')).anchor).toBe('setup-2');
    expect((await chunkAbout('msi installer')).id).toBe(before.find((c) => c.text.includes('msi installer'))!.id);
    expect((await chunkAbout('msi installer')).anchor).toBe('setup-3');
    expect(await calls()).toBe(callsBefore + 1);
    const res = await author.get('/api/search?q=msi%20installer%20wizard').expect(200);
    expect(res.body.hits.find((h: { slug: string }) => h.slug === 'install-guide').sectionUrl).toBe('/page/install-guide#setup-3');
  });

  it('gives chunks stored before anchors existed theirs when a worker starts, without an extraction call', async () => {
    const before = await chunks();
    const callsBefore = await calls();
    await t.dataSource.query('UPDATE kg_content_chunks SET anchor = NULL');
    // Until then, links fall back to the heading's own slug: the first "Setup".
    const res = await author.get('/api/search?q=msi%20installer%20wizard').expect(200);
    expect(res.body.hits.find((h: { slug: string }) => h.slug === 'install-guide').sectionUrl).toBe('/page/install-guide#setup');

    const queue = t.app.get(KgExtractionQueue);
    expect(await queue.anchorOldChunks()).toBe(1);
    await waitForJobs(t, { timeoutMs: 60_000 });
    expect((await chunks()).map((c) => [c.id, c.anchor])).toEqual(before.map((c) => [c.id, c.anchor]));
    expect(await calls()).toBe(callsBefore);
    expect(await queue.anchorOldChunks()).toBe(0);
  });
});
