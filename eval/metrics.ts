/** Retrieval metrics over one ranked list of slugs and the set judged relevant (binary relevance). */
export interface QueryScores {
  recall: number;
  mrr: number;
  ndcg: number;
  zeroResults: boolean;
}

export function scoreRanking(ranked: string[], relevant: string[], k = 10): QueryScores {
  const judged = new Set(relevant);
  const top = ranked.slice(0, k);
  const hits = top.filter((slug) => judged.has(slug)).length;
  const firstHit = top.findIndex((slug) => judged.has(slug));
  const dcg = top.reduce((sum, slug, i) => sum + (judged.has(slug) ? 1 / Math.log2(i + 2) : 0), 0);
  let ideal = 0;
  for (let i = 0; i < Math.min(judged.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return {
    recall: judged.size === 0 ? 0 : hits / judged.size,
    mrr: firstHit < 0 ? 0 : 1 / (firstHit + 1),
    ndcg: ideal === 0 ? 0 : dcg / ideal,
    zeroResults: ranked.length === 0,
  };
}

export interface Summary {
  queries: number;
  recall: number;
  mrr: number;
  ndcg: number;
  zeroRate: number;
}

export function summarise(scores: QueryScores[]): Summary {
  const n = scores.length || 1;
  const mean = (pick: (s: QueryScores) => number) => scores.reduce((sum, s) => sum + pick(s), 0) / n;
  return {
    queries: scores.length,
    recall: mean((s) => s.recall),
    mrr: mean((s) => s.mrr),
    ndcg: mean((s) => s.ndcg),
    zeroRate: mean((s) => (s.zeroResults ? 1 : 0)),
  };
}

/** The p-th percentile (nearest rank) of some timings; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One configuration measured in one state of the knowledge graph: overall, per kind of query, and its latency. */
export interface MeasuredRow {
  config: string;
  graph: string;
  all: Summary;
  byKind: { kind: string; summary: Summary }[];
  p95Ms: number;
}

/** A Markdown table with one row per configuration and graph state: recall@10 and nDCG@10 overall and per kind, p95. */
export function markdownTable(rows: MeasuredRow[]): string {
  const f = (x: number) => x.toFixed(3);
  const kinds = rows[0]?.byKind.map((k) => `${k.kind} (${k.summary.queries})`) ?? [];
  const header = ['configuration', 'knowledge graph', `all (${rows[0]?.all.queries ?? 0}) R@10`, 'nDCG@10', ...kinds.flatMap((k) => [`${k} R@10`, 'nDCG@10']), 'p95 ms'];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${[r.config, r.graph, f(r.all.recall), f(r.all.ndcg), ...r.byKind.flatMap((k) => [f(k.summary.recall), f(k.summary.ndcg)]), r.p95Ms.toFixed(1)].join(' | ')} |`),
  ].join('\n');
}

/** nDCG@10 of the default configuration, per corpus, without and with the knowledge graph (eval/floors.json). */
export interface Floors {
  tolerance: number;
  corpora: Record<string, Record<string, number>>;
}

/**
 * The floors a measurement breaks: each recorded nDCG@10 the measured one falls more than `tolerance` below, and
 * each recorded floor that was not measured at all (a corpus or graph state silently dropped must fail too).
 */
export function floorBreaches(floors: Floors, measured: Record<string, Record<string, number>>, corporaRun: string[]): string[] {
  const breaches: string[] = [];
  for (const corpus of corporaRun) {
    const recorded = floors.corpora[corpus];
    if (!recorded) {
      breaches.push(`${corpus}: no floor recorded in eval/floors.json`);
      continue;
    }
    for (const [state, floor] of Object.entries(recorded)) {
      const value = measured[corpus]?.[state];
      if (value === undefined) breaches.push(`${corpus}, ${state}: not measured (floor ${floor.toFixed(3)})`);
      // A small epsilon keeps a value printed as exactly floor − tolerance from failing on rounding.
      else if (value < floor - floors.tolerance - 1e-9) {
        breaches.push(`${corpus}, ${state}: nDCG@10 ${value.toFixed(3)} is more than ${floors.tolerance} below the floor ${floor.toFixed(3)}`);
      }
    }
  }
  return breaches;
}
