// `npm run calibrate:extraction`: fits the built-in extractor's calibration (src/kg/calibration.ts) on the judged set
// and writes it to src/kg/calibration-builtin.ts. It extracts the judged corpus through the whole application (as
// eval/extraction.eval.ts does), joins each pending proposal's raw score with its verdict (approvable or kept after an
// edit: approved; noise: not), fits an isotonic map per kind, and reports the calibration error before and after
// (after: cross-validated, 5 folds, since the map is reported on the set it was fitted on). Run it again when the
// extractor or the judged set changes, and commit the file it writes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_EXTRACTOR_MODEL } from '../src/extractors/builtin/builtin.extractor.js';
import { fitCalibration, type ReviewedScore } from '../src/kg/calibration.js';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { importPages, setPolicy, startWorker, waitForJobs } from '../test/e2e/kg-test-helpers.js';
import { corpora, corpusPages } from './corpora.js';
import { entityVerdict, labelKey, relationKey, type JudgedSet } from './extraction-judging.js';

/** The judged corpora the map is fitted on (eval/corpora.ts): each one's judged set names the clusters extracted. */
const CORPORA = corpora().map((c) => ({ name: c.name, dir: c.root, judged: `test/fixtures/extraction-judged/${c.name}.json` }));
const OUT = path.resolve(REPO_ROOT, 'src/kg/calibration-builtin.ts');

describe('calibration of the built-in extractor on the judged sets', () => {
  const scores: Record<'node' | 'edge', ReviewedScore[]> = { node: [], edge: [] };
  const unjudged = { node: 0, edge: 0 };
  let t: TestApp | undefined;

  beforeAll(async () => {
    for (const corpus of CORPORA) {
      const file = path.resolve(REPO_ROOT, corpus.judged);
      if (!existsSync(file)) continue;
      const judged: JudgedSet = JSON.parse(readFileSync(file, 'utf8'));
      t = await startTestApp();
      await importPages(await t.as('author'), await corpusPages(corpus.dir));
      const admin = await t.as('admin');
      await startWorker(t);
      for (const cluster of judged.clusters ?? []) await setPolicy(admin, cluster, 'include');
      await waitForJobs(t, { timeoutMs: 600_000 });
      const rows: { kind: 'node' | 'edge'; name: string; type: string; source: string; predicate: string; target: string; raw: number }[] = await t.dataSource.query(
        `SELECT kind, name, node_type AS type, source_name AS source, predicate, target_name AS target, raw_confidence AS raw
           FROM kg_proposals WHERE status = 'pending' AND extractor = 'builtin' ORDER BY id`,
      );
      for (const row of rows) {
        const verdict = row.kind === 'node'
          ? entityVerdict({ name: row.name, type: row.type, confidence: row.raw, pages: 0 }, judged.entities[labelKey(row.name)])
          : judged.relations[relationKey(row)]?.verdict ?? null;
        if (verdict === null) unjudged[row.kind]++;
        else scores[row.kind].push({ raw: Number(row.raw), approved: verdict !== 'noise' });
      }
      await t.close();
      t = undefined;
    }
  }, 900_000);

  afterAll(async () => {
    await t?.close();
  });

  it('fits a monotone map per kind and writes src/kg/calibration-builtin.ts', () => {
    const fits = { node: fitCalibration(scores.node), edge: fitCalibration(scores.edge) };
    const report = Object.fromEntries(Object.entries(fits).map(([kind, f]) => [kind, {
      method: f.method, judged: f.reviewed, kept: f.approved, unjudged: unjudged[kind as 'node' | 'edge'], eceRaw: f.rawError, eceCalibratedCrossValidated: f.error, points: f.map.points,
    }]));
    console.log(`\nCalibration of ${BUILTIN_EXTRACTOR_MODEL} on ${CORPORA.map((c) => c.name).join(', ')}:\n${JSON.stringify(report, null, 1)}\n`);
    for (const f of Object.values(fits)) {
      for (let i = 1; i < f.map.points.length; i++) expect(f.map.points[i][1]).toBeGreaterThanOrEqual(f.map.points[i - 1][1]);
    }
    const date = new Date().toISOString().slice(0, 10);
    const entry = (kind: 'node' | 'edge') => {
      const f = fits[kind];
      return `  ${kind}: {
    fittedOn: ${JSON.stringify(`${f.reviewed} judged ${kind === 'node' ? 'entity' : 'relation'} proposals of ${BUILTIN_EXTRACTOR_MODEL} (${CORPORA.map((c) => c.name).join(', ')}), ${date}`)},
    method: '${f.method}',
    judged: ${f.reviewed},
    kept: ${f.approved},
    rawError: ${f.rawError},
    error: ${f.error},
    map: { points: ${JSON.stringify(f.map.points)} },
  },`;
    };
    writeFileSync(OUT, `// Written by \`npm run calibrate:extraction\` (eval/extraction-calibration.eval.ts): do not edit by hand; run it again
// when the built-in extractor or the judged sets change.
//
// The built-in extractor's calibration as shipped: for each kind, the better (by cross-validated error) of Platt
// scaling and isotonic regression (src/kg/calibration.ts, fitCalibration) of "an admin keeps it" (approvable as proposed or after an edit, docs/extraction-judging.md) on the raw score, over
// the pending proposals the extractor makes on the judged corpora (${CORPORA.map((c) => `${c.name}: ${c.judged}`).join('; ')}).
// rawError is the expected calibration error (ten bins) of the raw scores on that set, error the calibrated scores'
// (cross-validated, 5 folds). A wiki with KURATE_CALIBRATION_MIN_REVIEWED reviews of its own replaces it with a fit on
// them (src/kg/kg-calibration.service.ts).
import type { CalibrationMap, CalibrationMethod } from './calibration.js';

export interface ShippedCalibration {
  fittedOn: string;
  method: CalibrationMethod;
  /** Judged proposals it was fitted on, and how many of them an admin keeps. */
  judged: number;
  kept: number;
  rawError: number;
  error: number;
  map: CalibrationMap;
}

export const BUILTIN_CALIBRATION: Record<'node' | 'edge', ShippedCalibration> = {
${entry('node')}
${entry('edge')}
};
`);
  });
});
