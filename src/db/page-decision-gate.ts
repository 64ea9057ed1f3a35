import type { EntityManager } from 'typeorm';

// One advisory lock between the decisions taken about pages and the rules they are taken by: the knowledge graph's
// inclusion policy. Every page write holds it shared from the first statement of its transaction (the write's
// listeners decide about the page in it: PageLinksRepository.lockKeys takes it), and so does every other decision
// (a reconciliation, a purge): they never wait for each other. A change of the rules holds it alone
// (ClusterPolicyRepository.writeTransaction): it waits for the writes and decisions under way to commit, and holds
// new ones off until it has committed, so that each decides either before the change (and the change's
// reconciliation then sees the page where the write left it) or after it, on the new rules.
//
// Taken first, before any page row or link key: a write waiting here holds nothing another one could wait for, so
// writes and a change of the rules never wait on each other crosswise. It replaced `LOCK TABLE kg_cluster_policy`,
// which a save took in a round trip of its own, after it had written its page.
export const PAGE_DECISION_GATE_KEY = `hashtextextended('kurate.page-decision-gate', 0)`;

/** SQL that takes the gate shared (its value is void): for the first statement of a page write. */
export const SHARE_PAGE_DECISION_GATE_SQL = `pg_advisory_xact_lock_shared(${PAGE_DECISION_GATE_KEY})`;

/** For a decision outside a page write: taken in a statement of its own, before what it guards reads. */
export async function sharePageDecisionGate(tx: EntityManager): Promise<void> {
  await tx.query(`SELECT ${SHARE_PAGE_DECISION_GATE_SQL}`);
}

/** For a change of the rules: waits for the writes and decisions under way, and holds new ones off until it ends. */
export async function holdPageDecisionGateAlone(tx: EntityManager): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${PAGE_DECISION_GATE_KEY})`);
}
