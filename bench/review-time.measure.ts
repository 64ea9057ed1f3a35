// A measurement, not a test (`npm run bench:review-time`; `npm test` does not run it: it takes about five minutes and
// its verdict is a timing). The triage journey itself is tested in test/browser/review-triage.test.ts.
// Review time per approved fact (issue 22, "Done means"): the same fixture queue reviewed twice in a real browser with
// the keyboard flow (each way twice, alternating; the second pair is compared), once one proposal at a time (j/k, a, r + Enter, the card's "Merge into" for a proposal that names
// an approved entity) and once with triage first (each group's preview, unticking what the judged set says the group
// got wrong, then its one action), the rest one at a time. The fixture queue: the Foam docs (test/fixtures/foam-docs)
// extracted by the built-in extractor, after which a product glossary (test/fixtures/review-triage/glossary.json) was
// imported as approved entities. The admin's decisions follow the judged set (test/fixtures/extraction-judged), so
// both runs decide alike. The figures go to .test-artifacts/review-time.json (docs/review.md, bench/RESULTS.md).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { entityVerdict, labelKey, relationKey, type JudgedSet } from '../eval/extraction-judging.js';
import { afterReviewAction, HAS_CHROMIUM, launchBrowser, logInThroughForm, warnWithoutChromium, type TestBrowser } from '../test/support/browser.js';
import { ARTIFACTS_DIR } from '../test/support/database.js';
import { FIXTURES_DIR } from '../test/support/fixtures.js';
import { startTestApp, type TestApp, type TestUser } from '../test/support/test-app.js';
import { foamDocsPages, importPages, setPolicy, startWorker, waitForJobs } from '../test/e2e/kg-test-helpers.js';

warnWithoutChromium('the review-time browser test');

const BASE = '/admin/knowledge-graph';
const JUDGED: JudgedSet = JSON.parse(readFileSync(path.join(FIXTURES_DIR, 'extraction-judged/foam-docs.json'), 'utf8'));
const GLOSSARY = JSON.parse(readFileSync(path.join(FIXTURES_DIR, 'review-triage/glossary.json'), 'utf8'));
/** Seconds an admin spends on one decision with the keyboard (read the card, decide, key): the figure. */
const SECONDS_PER_DECISION = 3;
/** Seconds an admin spends reading one line of a triage preview. */
const SECONDS_PER_PREVIEW_LINE = 1;

interface Row { id: string; kind: 'node' | 'edge'; name: string; type: string; source: string; predicate: string; target: string; sourceSig: string; targetSig: string }

interface Run {
  seconds: number;
  /** Decisions the admin made: one per proposal reviewed alone, one per group confirmed, one per line unticked. */
  decisions: number;
  previewLines: number;
  proposals: number;
  approvedFacts: number;
  secondsPerApprovedFact: number;
  /** The admin's time by the model: SECONDS_PER_DECISION a decision, SECONDS_PER_PREVIEW_LINE a preview line read. */
  modelledSecondsPerApprovedFact: number;
  groups: { id: string; count: number; unticked: number }[];
}

describe.skipIf(!HAS_CHROMIUM)('review time per approved fact, one at a time and with triage', () => {
  let browser: TestBrowser | undefined;
  const runs: Record<string, Run> = {};

  afterAll(async () => {
    await browser?.close();
  });

  /** The fixture queue, on a fresh app: the Foam docs extracted, then the glossary imported as approved entities. */
  async function fixtureQueue(): Promise<{ t: TestApp; admin: TestUser }> {
    const t = await startTestApp({ listen: true });
    await importPages(await t.as('author'), await foamDocsPages());
    const api = await t.as('admin');
    await startWorker(t);
    for (const cluster of ['user', 'dev']) await setPolicy(api, cluster, 'include');
    await waitForJobs(t, { timeoutMs: 300_000 });
    await api.post(`${BASE}/import`).send({ graph: GLOSSARY.graph, mode: 'approved', reason: 'the product glossary' }).expect(200);
    return { t, admin: await t.user('admin', { name: 'Reviewer' }) };
  }

  /** What the judged set says of a proposal: keep it (approve) or not (reject); what it does not hold is rejected. */
  async function keep(t: TestApp, id: string): Promise<boolean> {
    const [row]: Row[] = await t.dataSource.query(
      `SELECT id::text AS id, kind, name, node_type AS type, source_name AS source, predicate, target_name AS target,
              source_signature AS "sourceSig", target_signature AS "targetSig" FROM kg_proposals WHERE id = $1`,
      [id],
    );
    if (row.kind === 'node') return ['approvable', 'edit'].includes(entityVerdict({ name: row.name, type: row.type, confidence: 0, pages: 0 }, JUDGED.entities[labelKey(row.name)]) ?? '');
    if (!['approvable', 'edit'].includes(JUDGED.relations[relationKey(row)]?.verdict ?? '')) return false;
    // An edge whose end was rejected cannot be approved: the admin rejects it too.
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_rejections WHERE kind = 'node' AND signature = ANY($1::text[])`, [[row.sourceSig, row.targetSig]]);
    return n === 0;
  }

  const logIn = (t: TestApp, page: Page, user: TestUser) => logInThroughForm(page, t.baseUrl!, user, BASE);
  const leadsTo = afterReviewAction;

  /** Reviews every card of the queue one at a time with the keyboard; answers the decisions made. */
  async function oneAtATime(t: TestApp, page: Page): Promise<number> {
    let decisions = 0;
    for (;;) {
      const card = page.locator('.kg-card.is-current');
      if ((await page.locator('.kg-card').count()) === 0) return decisions;
      const id = (await card.getAttribute('data-proposal'))!;
      const merge = card.locator('.kg-duplicates button', { hasText: 'Merge into' });
      const exact = (await merge.count()) > 0 && (await card.locator('.kg-duplicates .muted', { hasText: 'same name' }).count()) > 0;
      if (!(await keep(t, id))) {
        await page.keyboard.press('r');
        await leadsTo(page, () => page.keyboard.press('Enter'));
      } else if (exact) {
        // It names an approved entity: the admin approves it into that one (the card's first "Merge into").
        await leadsTo(page, () => merge.first().click());
      } else {
        await leadsTo(page, () => page.keyboard.press('a'));
      }
      decisions++;
    }
  }

  async function review(mode: 'one-at-a-time' | 'triage'): Promise<Run> {
    const { t, admin } = await fixtureQueue();
    try {
      browser ??= await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
      const page = await browser.tab();
      const [{ n: proposals }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'pending'`);
      await logIn(t, page, admin);
      const started = Date.now();
      let decisions = 0;
      let previewLines = 0;
      const groups: Run['groups'] = [];
      if (mode === 'triage') {
        // Each group once (what the admin unticked stays in its group, for one-at-a-time review).
        const seen = new Set<string>();
        for (;;) {
          const present = await page.locator('.kg-triage-group').evaluateAll((chips) => chips.map((c) => c.getAttribute('data-triage') ?? ''));
          const group = present.find((g) => !seen.has(g));
          if (!group) break;
          seen.add(group);
          const chip = page.locator(`.kg-triage-group[data-triage="${group}"]`);
          await chip.click();
          await page.waitForURL((url) => url.pathname.startsWith(`${BASE}/ui/triage/`));
          const boxes = page.locator('input[name="ids"]');
          const lines = await boxes.count();
          let unticked = 0;
          for (let i = 0; i < lines; i++) {
            const box = boxes.nth(i);
            const keepIt = await keep(t, (await box.getAttribute('value'))!);
            // The group's action is right for a proposal the judged set keeps (approve groups) or drops (reject group).
            const right = group === 'generic-words' ? !keepIt : keepIt;
            if (!right) {
              await box.uncheck();
              unticked++;
            }
          }
          previewLines += lines;
          decisions += 1 + unticked;
          groups.push({ id: group, count: lines, unticked });
          if (unticked === lines) {
            // Nothing right in it: back to the queue, the proposals stay for one-at-a-time review.
            await page.getByRole('link', { name: 'Back to the queue' }).click();
            await page.waitForURL((url) => url.pathname === BASE);
            continue;
          }
          await leadsTo(page, () => page.locator('[data-triage-confirm]').click());
        }
      }
      decisions += await oneAtATime(t, page);
      const seconds = (Date.now() - started) / 1000;
      const [{ n: approvedFacts }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'approved'`);
      const [{ n: left }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'pending'`);
      expect(left).toBe(0);
      const modelled = decisions * SECONDS_PER_DECISION + previewLines * SECONDS_PER_PREVIEW_LINE;
      return {
        seconds: round(seconds), decisions, previewLines, proposals, approvedFacts,
        secondsPerApprovedFact: round(seconds / Math.max(1, approvedFacts)),
        modelledSecondsPerApprovedFact: round(modelled / Math.max(1, approvedFacts)),
        groups,
      };
    } finally {
      await t.close();
    }
  }

  // Each way twice, alternating (one at a time, triage, one at a time, triage): the first run of a process pays for
  // warming up (compiling the code paths, templates), so the second pair is the one compared.
  it('reviews the fixture queue one proposal at a time (warming up)', async () => {
    runs.oneAtATimeCold = await review('one-at-a-time');
  }, 900_000);

  it('reviews the same queue with triage first (warming up)', async () => {
    runs.triageCold = await review('triage');
  }, 900_000);

  it('reviews it one proposal at a time again', async () => {
    runs.oneAtATime = await review('one-at-a-time');
    expect(runs.oneAtATime.approvedFacts).toBeGreaterThan(0);
  }, 900_000);

  it('reviews it with triage again, and takes fewer decisions and less time per approved fact', async () => {
    runs.triage = await review('triage');
    const report = {
      date: new Date().toISOString(), cpus: (await import('node:os')).cpus()[0]?.model ?? 'unknown',
      loadAverage: (await import('node:os')).loadavg().map((l) => round(l)), ...runs,
      speedup: round(runs.oneAtATime.secondsPerApprovedFact / runs.triage.secondsPerApprovedFact),
      modelledSpeedup: round(runs.oneAtATime.modelledSecondsPerApprovedFact / runs.triage.modelledSecondsPerApprovedFact),
    };
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(path.join(ARTIFACTS_DIR, 'review-time.json'), JSON.stringify(report, null, 2));
    console.log(`\nReview time per approved fact:\n${JSON.stringify(report, null, 2)}\n`);
    expect(runs.triage.approvedFacts).toBeGreaterThan(0);
    expect(runs.triage.decisions).toBeLessThan(runs.oneAtATime.decisions);
    expect(runs.triage.secondsPerApprovedFact).toBeLessThan(runs.oneAtATime.secondsPerApprovedFact);
  }, 900_000);
});

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
