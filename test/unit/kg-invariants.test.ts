import { describe, expect, it } from 'vitest';
import { buildReport, describeRepair, INVARIANT_NAMES, INVARIANTS, summarise, type InvariantFinding, type InvariantName } from '../../src/consistency/kg-invariants.js';

const clean = () => Object.fromEntries(INVARIANT_NAMES.map((n) => [n, { count: 0, examples: [] }])) as Record<InvariantName, InvariantFinding>;
const meta = { embeddingModel: 'm', checkedAt: new Date('2026-01-01T00:00:00Z'), durationMs: 12 };

describe('the consistency checker’s report', () => {
  it('lists every invariant once, each with an explanation', () => {
    expect(INVARIANTS.map((i) => i.name)).toEqual([...INVARIANT_NAMES]);
    for (const i of INVARIANTS) expect(i.explanation).toMatch(/\.$/);
  });

  it('is ok with no finding', () => {
    const report = buildReport(clean(), meta);
    expect(report).toMatchObject({ ok: true, findings: 0, repairable: 0, unrepairable: 0, summary: `All ${INVARIANT_NAMES.length} invariants hold.`, checkedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('counts repairable and unrepairable findings and keeps five examples', () => {
    const found = clean();
    found.proposal_support_counts = { count: 7, examples: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] };
    found.provenance_approved = { count: 1, examples: ['x'] };
    const report = buildReport(found, meta);
    expect(report).toMatchObject({ ok: false, findings: 8, repairable: 7, unrepairable: 1 });
    expect(report.invariants.find((i) => i.name === 'proposal_support_counts')!.examples).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(report.summary).toBe(`8 findings in 2 invariants of ${INVARIANT_NAMES.length}: proposal_support_counts (7), provenance_approved (1); 7 repairable with --repair, 1 need an admin.`);
  });

  it('says when nothing or everything is repairable', () => {
    expect(summarise([{ name: 'provenance_approved', count: 1, repairable: false }])).toBe('1 finding in 1 invariant of 1: provenance_approved (1); none repairable automatically: they need an admin.');
    expect(summarise([{ name: 'chunk_counts', count: 2, repairable: true }])).toBe('2 findings in 1 invariant of 1: chunk_counts (2); all of them repairable with --repair.');
  });

  it('describes a repair in words', () => {
    expect(describeRepair({}, 0, false)).toEqual(['Nothing to repair.']);
    expect(describeRepair({ chunk_counts: 2, pending_proposals_supported: 1 }, 2, true)).toEqual([
      'Forgot the extraction record of 2 pages with misnumbered or miscounted chunks (counts taken from the rows).',
      'Enqueued the extraction of 2 pages again.',
      'Retired 1 pending proposal with no support.',
      'Enqueued the background re-embedding with the current model.',
    ]);
  });
});
