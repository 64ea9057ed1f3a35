import type supertest from 'supertest';
import type { DataSource } from 'typeorm';
import { JobWorker } from '../../src/jobs/job-worker.service.js';
import { EXTRACT_PAGE_QUEUE } from '../../src/kg/kg-extraction-queue.service.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { readVaultFile, scanVault } from '../../src/cli/vault-files.js';
import { pagesOfVault, type ImportPage } from '../../src/cli/vault-pages.js';
import { FOAM_DOCS } from '../support/fixtures.js';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../support/fake-ollama.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The Foam docs as `kurate import` sends them (clusters from folders: user/…, dev/…). */
export async function foamDocsPages(): Promise<ImportPage[]> {
  const scan = await scanVault(FOAM_DOCS);
  const sources = await Promise.all(scan.files.map(async (file) => ({ relativePath: file.relativePath, source: await readVaultFile(FOAM_DOCS, file) })));
  return pagesOfVault(sources).pages;
}

/** `copies` copies of the Foam docs, each in a folder of its own and with its titles numbered (`Daily Notes 0`, …). */
export async function foamDocsCopies(copies: number): Promise<ImportPage[]> {
  const foam = await foamDocsPages();
  return Array.from({ length: copies }, (_, copy) => foam.map((p) => ({ ...p, path: `copy${copy}/${p.path}`, title: `${p.title} ${copy}` }))).flat();
}

/** Imports pages through POST /api/import as an author, in batches. */
export async function importPages(author: supertest.Agent, pages: ImportPage[]): Promise<void> {
  for (let i = 0; i < pages.length; i += 100) {
    const res = await author.post('/api/import').send({ pages: pages.slice(i, i + 100) }).expect(200);
    const failed = (res.body.results as { status: string; path: string; error?: string }[]).filter((r) => r.status === 'failed');
    if (failed.length > 0) throw new Error(`Import failed: ${JSON.stringify(failed)}`);
  }
}

export async function setPolicy(admin: supertest.Agent, cluster: string, action: 'include' | 'exclude'): Promise<void> {
  await admin.put(`/admin/kg-policy/clusters/${encodeURIComponent(cluster)}`).send({ action, reason: `${action} for the extraction test` }).expect(200);
}

export async function startWorker(t: TestApp): Promise<JobWorker> {
  await t.app.get(PolicyReconciler).whenStartupRebuildDone();
  const worker = t.app.get(JobWorker);
  await worker.start();
  return worker;
}

/** Open (waiting or running) jobs of a queue. */
export async function openJobs(t: TestApp, queue = EXTRACT_PAGE_QUEUE): Promise<number> {
  const rows: { n: number }[] = await t.dataSource.query(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`,
    [queue],
  );
  return rows[0].n;
}

/** Waits until no job of the queue is waiting or running (and the worker has nothing in flight). */
export async function waitForJobs(t: TestApp, options: { queue?: string; timeoutMs?: number } = {}): Promise<void> {
  const queue = options.queue ?? EXTRACT_PAGE_QUEUE;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const worker = t.app.get(JobWorker);
  for (;;) {
    if ((await openJobs(t, queue)) === 0 && worker.runningCount(queue) === 0) return;
    if (Date.now() > deadline) throw new Error(`Jobs of ${queue} still open after ${options.timeoutMs ?? 60_000} ms`);
    worker.wake(queue);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function count(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const rows: { n: number }[] = await t.dataSource.query(`SELECT (${sql})::int AS n`, params);
  return rows[0].n;
}

/** The state of every extraction job, as pg-boss holds it. */
export async function jobStates(t: TestApp, queue = EXTRACT_PAGE_QUEUE): Promise<Record<string, number>> {
  const rows: { state: string; n: number }[] = await t.dataSource.query(
    `SELECT state::text AS state, count(*)::int AS n FROM pgboss.job WHERE name = $1 GROUP BY 1`,
    [queue],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

const WORDS = (
  'the wiki keeps notes about tools and the people who use them every note links to others and the graph shows ' +
  'how ideas connect over time while search finds pages by words and meaning so that nothing written is lost'
).split(' ');

/** A deterministic paragraph of about `sentences` sentences, naming `term` in its first sentence. */
export function paragraph(seed: number, term: string, sentences = 4): string {
  let state = seed * 7919 + 17;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const length = 9 + (next() % 9);
    const words = Array.from({ length }, () => WORDS[next() % WORDS.length]);
    if (s === 0) words.splice(3, 0, term);
    const text = words.join(' ');
    out.push(`${text[0].toUpperCase()}${text.slice(1)}.`);
  }
  return out.join(' ');
}

/**
 * A page of `sections` sections, each naming its own gadget (Gadget1 …) and about one chunk long, except the first,
 * which has `firstSectionParagraphs` paragraphs (long enough to be split into several chunks).
 */
export function gadgetPage(cluster: string, options: { sections?: number; firstSectionParagraphs?: number } = {}): string {
  const parts = [`---\ncluster: ${cluster}\n---\n`];
  for (let k = 1; k <= (options.sections ?? 20); k++) {
    parts.push(`## Part ${k}\n`);
    const paragraphs = k === 1 ? (options.firstSectionParagraphs ?? 3) : 3;
    for (let p = 0; p < paragraphs; p++) parts.push(`${paragraph(k * 10 + p, `Gadget${k}`, 5)}\n`);
  }
  return parts.join('\n');
}

/** The fake Ollama's answer: the gadget a chunk names, with the sentence that names it as evidence. */
export function gadgetAnswer(chunk: string): object {
  const entities = [...new Set(chunk.match(/\bGadget\d+\b/g) ?? [])].map((name) => {
    const sentence = chunk.split(/(?<=\.)\s+/).find((s) => s.includes(name))!;
    return { name, type: 'product', confidence: 0.9, evidence: sentence };
  });
  return { entities, relations: [] };
}

/** An app that extracts through the real Ollama client against a fake Ollama server, with an admin and a worker. */
export interface OllamaTestApp {
  fake: FakeOllama;
  t: TestApp;
  admin: supertest.Agent;
  close: () => Promise<void>;
}

export async function startOllamaTestApp(respond: FakeOllamaOptions['respond'], env: Record<string, string> = {}): Promise<OllamaTestApp> {
  const fake = await startFakeOllama({ respond });
  const t = await startTestApp({ env: { KURATE_EXTRACTOR: 'ollama', OLLAMA_HOST: fake.url, KURATE_JOB_POLL_SECONDS: '0.5', ...env } });
  const admin = await t.as('admin');
  await startWorker(t);
  return {
    fake, t, admin,
    close: async () => {
      await t.close();
      await fake.close();
    },
  };
}

/** How far the derived rows are from their invariants (docs/data-integrity.md): all zero when consistent. */
export interface Integrity {
  duplicatePositions: number;
  chunkCountsOff: number;
  supportCountsOff: number;
  positionsOutOfRange: number;
  chunks: number;
}

export const CONSISTENT = { duplicatePositions: 0, chunkCountsOff: 0, supportCountsOff: 0, positionsOutOfRange: 0 };

export async function integrity(dataSource: DataSource): Promise<Integrity> {
  const [row] = await dataSource.query(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM kg_content_chunks GROUP BY page_id, position HAVING count(*) > 1) d)::int AS "duplicatePositions",
            (SELECT count(*) FROM kg_page_extractions r
              WHERE r.chunk_count <> (SELECT count(*) FROM kg_content_chunks c WHERE c.page_id = r.page_id))::int AS "chunkCountsOff",
            (SELECT count(*) FROM kg_proposals p
              WHERE p.support_count <> (SELECT count(*) FROM kg_proposal_support s WHERE s.proposal_id = p.id))::int AS "supportCountsOff",
            (SELECT count(*) FROM kg_content_chunks c
              WHERE c.position < 0 OR c.position >= (SELECT count(*) FROM kg_content_chunks x WHERE x.page_id = c.page_id))::int AS "positionsOutOfRange",
            (SELECT count(*) FROM kg_content_chunks)::int AS chunks`,
  );
  return row;
}
