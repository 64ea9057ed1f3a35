// `npm run eval:extraction`: the built-in extractor's proposals on every corpus of eval/corpora.ts (the Foam docs and
// the Dendron docs, vendored in test/fixtures/), through the whole application (import, inclusion policy, extraction
// jobs, the pending queue), judged against each corpus's judged set (test/fixtures/extraction-judged/<corpus>.json,
// rubric in docs/extraction-judging.md). Per corpus it prints precision, approvable yield per page, file names, twins,
// typed relations, calibration and review time, and fails when a precision (or the entities' strict precision) falls more than 0.05 below the corpus's
// floor (eval/extraction-floor.json) or a file name is proposed. A judged set may hold a random sample of the queue
// (its `sample`): precision is then over the sampled proposals, and the report says how many of the run's proposals
// were outside the judged set.
// KURATE_EVAL_CORPORA=dendron-site runs one corpus. KURATE_EVAL_DUMP=file writes each corpus's queue (with the current
// verdicts) as JSON, to judge what is not judged yet: file.json becomes file.<corpus>.json. With it,
// KURATE_EVAL_DRAW=seed:entities:relations marks the proposals a seeded random draw of that size picks (`sampled`).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../test/support/database.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { importPages, setPolicy, startWorker, waitForJobs } from '../test/e2e/kg-test-helpers.js';
import { corpora, corpusPages } from './corpora.js';
import {
  drawSample, entityVerdict, expectedCalibrationError, figures, isFileName, keptEstimate, labelKey, relationKey, twinKey, twinRate,
  type JudgedSet, type ProposedEntity, type ProposedRelation,
} from './extraction-judging.js';

const FLOOR_FILE = path.resolve(REPO_ROOT, 'eval/extraction-floor.json');
/** Seconds an admin spends on one proposal with the keyboard flow (read, decide, key). */
const SECONDS_PER_PROPOSAL = 3;

interface Floor {
  entityPrecision: number;
  relationPrecision: number;
  /** Entities approvable as proposed, with no edit (absent: not held). */
  entityStrictPrecision?: number;
  /** The share of kept relations (approvable or after an edit) whose predicate is not `related_to` (absent: not held). */
  typedShareOfKeptRelations?: number;
}

interface Floors {
  about?: string;
  /** A precision may fall this much below its floor before the run fails. */
  allowedDrop: number;
  corpora: Record<string, Floor & { about?: string }>;
}

const floors: Floors = JSON.parse(readFileSync(FLOOR_FILE, 'utf8'));

for (const corpus of corpora()) {
  describe(`extraction evaluation over ${corpus.name}`, () => {
    const judgedFile = path.resolve(REPO_ROOT, 'test/fixtures/extraction-judged', `${corpus.name}.json`);
    const judged: JudgedSet = JSON.parse(readFileSync(judgedFile, 'utf8'));
    if (!Array.isArray(judged.clusters) || judged.clusters.length === 0) {
      throw new Error(`${judgedFile} names no clusters to include ("clusters": [...]): its verdicts hold for the queue of those pages`);
    }
    const floor = floors.corpora[corpus.name];
    let t: TestApp;
    let entities: ProposedEntity[] = [];
    let relations: ProposedRelation[] = [];
    let pagesExtracted = 0;
    let seconds = 0;

    beforeAll(async () => {
      t = await startTestApp();
      await importPages(await t.as('author'), await corpusPages(corpus.root));
      const admin = await t.as('admin');
      await startWorker(t);
      const started = Date.now();
      for (const cluster of judged.clusters) await setPolicy(admin, cluster, 'include');
      await waitForJobs(t, { timeoutMs: 600_000 });
      seconds = (Date.now() - started) / 1000;
      [{ n: pagesExtracted }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_page_extractions`);
      entities = await t.dataSource.query(
        `SELECT p.name, p.node_type AS type, p.confidence, p.raw_confidence AS raw, count(DISTINCT s.page_id)::int AS pages, p.evidence_quote AS quote, p.signal_pattern AS signals
           FROM kg_proposals p LEFT JOIN kg_proposal_support s ON s.proposal_id = p.id
          WHERE p.status = 'pending' AND p.kind = 'node' GROUP BY p.id ORDER BY p.name`,
      );
      relations = await t.dataSource.query(
        `SELECT source_name AS source, predicate, target_name AS target, confidence, raw_confidence AS raw, evidence_quote AS quote, signal_pattern AS signals
           FROM kg_proposals WHERE status = 'pending' AND kind = 'edge' ORDER BY source_name, target_name`,
      );
    }, 900_000);

    afterAll(async () => {
      await t?.close();
    });

    it('reports the figures and holds the precision floor', () => {
      const sampled = judged.sample !== undefined;
      const entityVerdicts = new Map(entities.map((e) => [labelKey(e.name), entityVerdict(e, judged.entities[labelKey(e.name)])]));
      const relationVerdict = (x: ProposedRelation) => judged.relations[relationKey(x)]?.verdict ?? null;
      const e = figures(entities.map((x) => labelKey(x.name)), (key) => entityVerdicts.get(key) ?? null);
      const r = figures(relations.map(relationKey), (key) => judged.relations[key]?.verdict ?? null);
      const twins = twinRate(entities.map((x) => x.name));
      const fileNames = entities.filter((x) => isFileName(x.name));
      const typed = relations.filter((x) => x.predicate !== 'related_to');
      const keptRelations = relations.filter((x) => ['approvable', 'edit'].includes(relationVerdict(x) ?? ''));
      const typedKept = keptRelations.filter((x) => x.predicate !== 'related_to');
      const reviewSeconds = (entities.length + relations.length) * SECONDS_PER_PROPOSAL;
      // Over a sample, what the admin keeps of the whole queue is estimated from the sample's shares.
      const kept = keptEstimate(e.approvable + e.edit, e.judged, e.proposals, sampled) + keptEstimate(r.approvable + r.edit, r.judged, r.proposals, sampled);
      const judgedEntities = entities.filter((x) => entityVerdicts.get(labelKey(x.name)));
      const entityYield = (test: (entity: ProposedEntity) => boolean) =>
        keptEstimate(distinct(judgedEntities, test), distinct(judgedEntities, () => true), distinct(entities, () => true), sampled) / Math.max(1, pagesExtracted);
      // Calibration error of the confidence the queue shows (calibrated by src/kg/calibration-builtin.ts, which was fitted
      // on these judged sets: in-sample; its cross-validated error is in that file) and of the extractor's raw score.
      const calibrationOf = (score: (x: { confidence: number; raw?: number }) => number) => expectedCalibrationError([
        ...entities.flatMap((x) => {
          const v = entityVerdicts.get(labelKey(x.name));
          return v ? [{ confidence: score(x), approved: v !== 'noise' }] : [];
        }),
        ...relations.flatMap((x) => {
          const v = relationVerdict(x);
          return v ? [{ confidence: score(x), approved: v !== 'noise' }] : [];
        }),
      ]);
      const calibration = calibrationOf((x) => x.confidence);
      const rawCalibration = calibrationOf((x) => Number(x.raw));
      const report = {
        pagesExtracted,
        extractionSeconds: Math.round(seconds * 10) / 10,
        judgedSet: sampled ? `random sample (seed ${judged.sample?.seed}): precision over the sampled proposals, yields estimated from them` : 'the whole queue',
        entities: { ...e, unjudged: e.unjudged.length },
        relations: { ...r, unjudged: r.unjudged.length },
        proposalsOutsideJudgedSet: e.unjudged.length + r.unjudged.length,
        // Yield counts distinct entities: twins (one thing under two spellings) count once.
        approvableEntitiesPerPage: round(entityYield((x) => entityVerdicts.get(labelKey(x.name)) === 'approvable')),
        keptEntitiesPerPage: round(entityYield((x) => ['approvable', 'edit'].includes(entityVerdicts.get(labelKey(x.name)) ?? ''))),
        fileNameProposals: fileNames.map((x) => x.name),
        twinRate: twins.rate,
        twinGroups: twins.groups.slice(0, 10),
        typedRelationShare: round(typed.length / Math.max(1, relations.length)),
        typedShareOfKeptRelations: round(typedKept.length / Math.max(1, keptRelations.length)),
        expectedCalibrationError: calibration,
        rawExpectedCalibrationError: rawCalibration,
        reviewMinutes: round(reviewSeconds / 60),
        reviewSecondsPerKeptFact: round(reviewSeconds / Math.max(1, kept)),
      };
      console.log(`\nExtraction evaluation (built-in extractor, ${corpus.name}, clusters ${judged.clusters.join(', ')}):\n${JSON.stringify(report, null, 2)}\n`);
      if (!sampled && e.unjudged.length + r.unjudged.length > 0) {
        console.log(`Not judged yet: ${[...e.unjudged.map((k) => `entity ${k}`), ...r.unjudged.map((k) => `relation ${k}`)].slice(0, 40).join('; ')}`);
      }
      const dump = process.env.KURATE_EVAL_DUMP;
      if (dump) writeFileSync(dumpFile(dump, corpus.name), JSON.stringify(dumped(entities, relations, judged, entityVerdicts), null, 2));
      expect(floor, `eval/extraction-floor.json has no floor for ${corpus.name}`).toBeDefined();
      expect(e.precision, 'entity precision fell more than the allowed drop below its floor').toBeGreaterThanOrEqual(floor.entityPrecision - floors.allowedDrop);
      expect(r.precision, 'relation precision fell more than the allowed drop below its floor').toBeGreaterThanOrEqual(floor.relationPrecision - floors.allowedDrop);
      if (floor.entityStrictPrecision !== undefined) {
        expect(e.strictPrecision, 'entity strict precision (approvable as proposed) fell more than the allowed drop below its floor').toBeGreaterThanOrEqual(floor.entityStrictPrecision - floors.allowedDrop);
      }
      if (floor.typedShareOfKeptRelations !== undefined) {
        expect(report.typedShareOfKeptRelations, 'the share of kept relations with a typed predicate fell more than the allowed drop below its floor').toBeGreaterThanOrEqual(floor.typedShareOfKeptRelations - floors.allowedDrop);
      }
      expect(fileNames).toEqual([]);
    });
  });
}

/** `queue.json` → `queue.<corpus>.json`: one dump per corpus. */
function dumpFile(file: string, corpus: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${corpus}${ext || '.json'}`;
}

/** The queue with its verdicts; with KURATE_EVAL_DRAW=seed:entities:relations, the proposals that draw picks. */
function dumped(entities: ProposedEntity[], relations: ProposedRelation[], judged: JudgedSet, entityVerdicts: Map<string, string | null>) {
  const draw = process.env.KURATE_EVAL_DRAW;
  let pickedEntities = new Set<string>();
  let pickedRelations = new Set<string>();
  if (draw) {
    const [seed, entityCount, relationCount] = draw.split(':').map(Number);
    if (![seed, entityCount, relationCount].every(Number.isInteger)) throw new Error(`KURATE_EVAL_DRAW is seed:entities:relations (integers), not ${draw}`);
    pickedEntities = new Set(drawSample(entities.map((x) => labelKey(x.name)), entityCount, seed));
    pickedRelations = new Set(drawSample(relations.map(relationKey), relationCount, seed));
  }
  return {
    ...(draw ? { draw, drawnFrom: { entities: new Set(entities.map((x) => labelKey(x.name))).size, relations: new Set(relations.map(relationKey)).size } } : {}),
    entities: entities.map((x) => ({
      ...x, key: labelKey(x.name), verdict: entityVerdicts.get(labelKey(x.name)) ?? null, ...(draw ? { sampled: pickedEntities.has(labelKey(x.name)) } : {}),
    })),
    relations: relations.map((x) => ({
      ...x, key: relationKey(x), verdict: judged.relations[relationKey(x)]?.verdict ?? null, ...(draw ? { sampled: pickedRelations.has(relationKey(x)) } : {}),
    })),
  };
}

/** Distinct entities (by twin key) among the proposals that pass the test. */
function distinct(entities: ProposedEntity[], test: (entity: ProposedEntity) => boolean): number {
  return new Set(entities.filter(test).map((x) => twinKey(x.name))).size;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
