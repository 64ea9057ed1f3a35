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

/** A Markdown table: one row per configuration and kind (and "all"). */
export function markdownTable(rows: { config: string; kind: string; summary: Summary }[]): string {
  const f = (x: number) => x.toFixed(3);
  return [
    '| configuration | kind | n | recall@10 | MRR@10 | nDCG@10 | zero-result rate |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map(({ config, kind, summary: s }) => `| ${config} | ${kind} | ${s.queries} | ${f(s.recall)} | ${f(s.mrr)} | ${f(s.ndcg)} | ${f(s.zeroRate)} |`),
  ].join('\n');
}
