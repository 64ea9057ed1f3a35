/**
 * The invariants the knowledge graph relies on (docs/data-integrity.md), as `kurate kg check` reports them. Each has
 * a name (stable: scripts and monitoring key on it), a one-line explanation, and how `--repair` mends it, if it can.
 */
export const INVARIANT_NAMES = [
  'restore_finished',
  'chunk_positions',
  'chunk_counts',
  'proposal_support_counts',
  'pending_proposals_supported',
  'provenance_approved',
  'derived_rows_grounded',
  'edges_to_merged_or_retired_nodes',
  'edges_without_self_loops',
  'mentions_named',
  'co_mention_weights',
  'purged_cluster_rows',
  'chunk_embeddings',
  'node_embeddings',
] as const;
export type InvariantName = (typeof INVARIANT_NAMES)[number];

export interface InvariantDefinition {
  name: InvariantName;
  /** What holds, in one line. */
  explanation: string;
  /** What --repair does about a finding; null: it needs an admin's decision (nothing approved is ever deleted to repair). */
  repair: string | null;
}

export const INVARIANTS: readonly InvariantDefinition[] = [
  {
    name: 'restore_finished',
    explanation:
      'No restore is half done: one whose load committed has rebuilt what derives from it (links, search, the policy’s decisions, extraction). A server finishes an owed rebuild when it starts; one already running when the restore was cut short does not, and the other invariants may fail until it is finished.',
    repair: null,
  },
  {
    name: 'chunk_positions',
    explanation: 'A page’s chunks are numbered 0 … n−1, each place once.',
    repair: 'the page is extracted again (its record forgotten): kept chunks move into place, missing ones are added',
  },
  {
    name: 'chunk_counts',
    explanation: 'A page’s extraction record counts its chunk rows (an included page with a count has its rows).',
    repair: 'the count is taken from the rows and the page is extracted again',
  },
  {
    name: 'proposal_support_counts',
    explanation: 'A proposal’s support_count equals its support rows.',
    repair: 'recounted from the rows',
  },
  {
    name: 'pending_proposals_supported',
    explanation: 'An extracted pending proposal has at least one supporting chunk (extraction retires those left with none); one from a graph file or an agent has none by nature and is left to review.',
    repair: 'retired, as extraction does (it is proposed again when a page says it)',
  },
  {
    name: 'provenance_approved',
    explanation: 'Every node and edge provenance row names an approved proposal of its own kind.',
    repair: null,
  },
  {
    name: 'derived_rows_grounded',
    explanation: 'Every extracted node is reachable from its provenance (an approved proposal) or a mention; every extracted typed edge from an approved proposal.',
    repair: null,
  },
  {
    name: 'edges_to_merged_or_retired_nodes',
    explanation: 'No edge touches a node that was merged into another, or an extracted node that stands on nothing.',
    repair: null,
  },
  {
    name: 'edges_without_self_loops',
    explanation: 'No edge joins a node to itself (a typed one would say “B uses B”; the schema refuses one since migration 0032).',
    repair: null,
  },
  {
    name: 'mentions_named',
    explanation:
      'A mention that names an approved entity (its only holder) or a pending proposal by a variant of its name (case, plural, hyphens, another type) is linked to the entity, or carries the proposal’s signature.',
    repair: 'linked to the entity, or given the proposal’s signature, as extraction does (then co-mention edges are weighed again)',
  },
  {
    name: 'co_mention_weights',
    explanation: 'Two approved nodes mentioned in one chunk have one co-mention edge, weighted by their shared chunks; none without one.',
    repair: 'weighed again from the mentions; missing edges added, edges with no shared chunk removed (derived rows, never approved ones)',
  },
  {
    name: 'purged_cluster_rows',
    explanation: 'No chunk or proposal support derives from an excluded page of a cluster whose last policy event is a purge.',
    repair: null,
  },
  {
    name: 'chunk_embeddings',
    explanation: 'Every chunk of an included page has a vector from the current embedding model.',
    repair: 'the background re-embedding is enqueued',
  },
  {
    name: 'node_embeddings',
    explanation: 'Every entity has a vector from the current embedding model.',
    repair: 'the background re-embedding is enqueued',
  },
];

/** What one invariant's check found: how many rows break it, and a few of them in words. */
export interface InvariantFinding {
  count: number;
  examples: string[];
}

export interface InvariantResult extends InvariantFinding {
  name: InvariantName;
  explanation: string;
  repairable: boolean;
  repair: string | null;
  ok: boolean;
}

export interface CheckReport {
  /** True when no invariant has a finding. */
  ok: boolean;
  findings: number;
  /** Findings --repair could mend, and those that need an admin. */
  repairable: number;
  unrepairable: number;
  embeddingModel: string;
  checkedAt: string;
  durationMs: number;
  invariants: InvariantResult[];
  summary: string;
}

/** Examples shown per invariant. */
export const EXAMPLES_SHOWN = 5;

/** The report from each invariant's finding (in the catalogue's order). */
export function buildReport(
  found: Record<InvariantName, InvariantFinding>,
  meta: { embeddingModel: string; checkedAt: Date; durationMs: number },
): CheckReport {
  const invariants = INVARIANTS.map((def) => {
    const finding = found[def.name];
    return {
      name: def.name,
      explanation: def.explanation,
      repairable: def.repair !== null,
      repair: def.repair,
      count: finding.count,
      examples: finding.examples.slice(0, EXAMPLES_SHOWN),
      ok: finding.count === 0,
    };
  });
  const findings = invariants.reduce((sum, i) => sum + i.count, 0);
  const repairable = invariants.filter((i) => i.repairable).reduce((sum, i) => sum + i.count, 0);
  return {
    ok: findings === 0,
    findings,
    repairable,
    unrepairable: findings - repairable,
    embeddingModel: meta.embeddingModel,
    checkedAt: meta.checkedAt.toISOString(),
    durationMs: meta.durationMs,
    invariants,
    summary: summarise(invariants),
  };
}

export function summarise(invariants: Pick<InvariantResult, 'name' | 'count' | 'repairable'>[]): string {
  const broken = invariants.filter((i) => i.count > 0);
  if (broken.length === 0) return `All ${invariants.length} invariants hold.`;
  const total = broken.reduce((sum, i) => sum + i.count, 0);
  const repairable = broken.filter((i) => i.repairable).reduce((sum, i) => sum + i.count, 0);
  const which = broken.map((i) => `${i.name} (${i.count})`).join(', ');
  const fix =
    repairable === total ? 'all of them repairable with --repair'
    : repairable === 0 ? 'none repairable automatically: they need an admin'
    : `${repairable} repairable with --repair, ${total - repairable} need an admin`;
  return `${plural(total, 'finding')} in ${plural(broken.length, 'invariant')} of ${invariants.length}: ${which}; ${fix}.`;
}

/** What a repair did, per invariant, in rows (or jobs) it changed. */
export interface RepairOutcome {
  repaired: Partial<Record<InvariantName, number>>;
  /** Pages whose extraction was enqueued again. */
  pagesEnqueued: number;
  /** Whether the background re-embedding was enqueued. */
  reembedEnqueued: boolean;
  /** In words, one line per thing done. */
  actions: string[];
}

export function describeRepair(repaired: Partial<Record<InvariantName, number>>, pagesEnqueued: number, reembedEnqueued: boolean): string[] {
  const lines: string[] = [];
  const n = (name: InvariantName) => repaired[name] ?? 0;
  if (n('chunk_positions') + n('chunk_counts') > 0) {
    lines.push(`Forgot the extraction record of ${plural(n('chunk_positions') + n('chunk_counts'), 'page')} with misnumbered or miscounted chunks (counts taken from the rows).`);
  }
  if (pagesEnqueued > 0) lines.push(`Enqueued the extraction of ${plural(pagesEnqueued, 'page')} again.`);
  if (n('proposal_support_counts') > 0) lines.push(`Recounted the support of ${plural(n('proposal_support_counts'), 'proposal')}.`);
  if (n('pending_proposals_supported') > 0) lines.push(`Retired ${plural(n('pending_proposals_supported'), 'pending proposal')} with no support.`);
  if (n('mentions_named') > 0) lines.push(`Linked ${plural(n('mentions_named'), 'mention')} to the entity or proposal a variant of whose name it is.`);
  if (n('co_mention_weights') > 0) lines.push(`Brought ${plural(n('co_mention_weights'), 'co-mention edge')} in step with the mentions.`);
  if (reembedEnqueued) lines.push('Enqueued the background re-embedding with the current model.');
  if (lines.length === 0) lines.push('Nothing to repair.');
  return lines;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
