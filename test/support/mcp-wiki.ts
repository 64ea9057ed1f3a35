import type supertest from 'supertest';
import { foamDocsPages, importPages, setPolicy, startWorker, waitForJobs } from '../e2e/kg-test-helpers.js';
import { startTestApp, type TestApp } from './test-app.js';

export interface FoamWiki {
  t: TestApp;
  baseUrl: string;
  admin: supertest.Agent;
  /** Entity ids that exist in kg_nodes but the inclusion policy hides (derived only from the excluded cluster). */
  hiddenNodeIds: string[];
  hiddenNodeNames: string[];
}

/** Clusters of the Foam docs: user/… feeds the graph; dev/… fed it, then was excluded (soft), so its own entities are hidden. */
export const INCLUDED_CLUSTER = 'user';
export const EXCLUDED_CLUSTER = 'dev';

/**
 * A wiki built from test/fixtures/foam-docs as a user would build it: imported, both clusters included and
 * extracted (built-in extractor), every edge proposal approved (with its endpoints) so that the graph has typed
 * relations, every proposal of the dev cluster approved, the other node proposals left pending, then the dev cluster
 * excluded again.
 */
export async function startFoamWiki(env: Record<string, string> = {}): Promise<FoamWiki> {
  const t = await startTestApp({ listen: true, env });
  const admin = await t.as('admin', { name: 'Ada Admin' });
  const author = await t.as('author', { name: 'Importer' });
  await startWorker(t);
  await importPages(author, await foamDocsPages());
  await setPolicy(admin, INCLUDED_CLUSTER, 'include');
  await setPolicy(admin, EXCLUDED_CLUSTER, 'include');
  await waitForJobs(t, { timeoutMs: 180_000 });
  await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'approve', filter: { kind: 'edge' }, minConfidence: 0, limit: 5000 }).expect(200);
  await admin.post('/admin/knowledge-graph/proposals/bulk').send({ action: 'approve', filter: { cluster: EXCLUDED_CLUSTER }, minConfidence: 0, limit: 5000 }).expect(200);
  await setPolicy(admin, EXCLUDED_CLUSTER, 'exclude');
  const hidden: { id: string; name: string }[] = await t.dataSource.query(
    'SELECT n.id::text AS id, n.name FROM kg_nodes n WHERE NOT EXISTS (SELECT 1 FROM kg_visible_nodes v WHERE v.id = n.id) ORDER BY n.id',
  );
  return { t, baseUrl: t.baseUrl!, admin, hiddenNodeIds: hidden.map((h) => h.id), hiddenNodeNames: hidden.map((h) => h.name) };
}
