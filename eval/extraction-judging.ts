// Pure helpers of the extraction evaluation (eval/extraction.eval.ts): the keys proposals are judged by, the
// judged set's shape, and the figures computed from a queue of proposals and the judgments (docs/extraction-judging.md).

export type Verdict = 'approvable' | 'edit' | 'noise';

/** One judgment. For an entity, `types` lists the types an admin would accept; another type makes it an `edit`. */
export interface Judgment {
  verdict: Verdict;
  /** Entities: acceptable types (empty for noise). */
  types?: string[];
  /** Why, in a few words (the rubric's category for noise: file name, generic word, fragment, how-to title, …). */
  note?: string;
  /** When it was judged: `before` tuning (the sample drawn first) or `after` (a new proposal judged later). */
  round: 'before' | 'after';
}

export interface JudgedSet {
  corpus: string;
  rubric: string;
  /** The clusters an admin includes before extraction: the verdicts hold for the queue of these pages. */
  clusters: string[];
  /** How and when the proposals were drawn and judged. */
  judged?: string;
  /** Present when only a random sample of the queue was judged (absent: the whole queue was). */
  sample?: SampleDraw;
  entities: Record<string, Judgment>;
  relations: Record<string, Judgment>;
}

/** A seeded random draw from one run's pending queue (drawSample), written into the judged set. */
export interface SampleDraw {
  seed: number;
  /** The queue it was drawn from: distinct entity labels and relation keys of that run. */
  drawnFrom: { entities: number; relations: number };
  /** How many were drawn: every relation when there were few. */
  drawn: { entities: number; relations: number };
}

export interface ProposedEntity {
  name: string;
  type: string;
  confidence: number;
  /** The extractor's raw score (confidence is it calibrated). */
  raw?: number;
  pages: number;
  quote?: string;
}

export interface ProposedRelation {
  source: string;
  predicate: string;
  target: string;
  confidence: number;
  raw?: number;
  quote?: string;
}

/** NFKC, lower case, whitespace collapsed: the label an entity is judged by (its type is judged apart). */
export function labelKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

export function relationKey(r: { source: string; predicate: string; target: string }): string {
  return `${labelKey(r.source)}|${r.predicate}|${labelKey(r.target)}`;
}

/** The label without case and a plural `s`/`es`/`ies` on its last word: two proposals with one twin key are twins. */
export function twinKey(name: string): string {
  const words = labelKey(name).replace(/[-_]/g, ' ').split(' ');
  const last = words.pop() ?? '';
  const singular = last.length > 4 && last.endsWith('ies') ? `${last.slice(0, -3)}y` : last.length > 3 && /[^s]s$/.test(last) ? last.slice(0, -1) : last;
  return [...words, singular].join(' ');
}

const FILE_NAME = /\.(?:png|jpe?g|gif|svg|webp|bmp|ico|tiff?|avif|heic|pdf|mp3|wav|ogg|m4a|flac|mp4|webm|mov|mkv|avi|zip|gz|tar|csv|xlsx?|docx?|pptx?|canvas|excalidraw)\b/i;

export function isFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** The verdict of an entity as proposed: its label's verdict, demoted to `edit` when its type is not an acceptable one. */
export function entityVerdict(entity: ProposedEntity, judgment: Judgment | undefined): Verdict | null {
  if (!judgment) return null;
  if (judgment.verdict === 'approvable' && judgment.types && !judgment.types.includes(entity.type)) return 'edit';
  return judgment.verdict;
}

export interface Figures {
  proposals: number;
  judged: number;
  unjudged: string[];
  approvable: number;
  edit: number;
  noise: number;
  /** Approvable as proposed, over the judged. */
  strictPrecision: number;
  /** Approvable as proposed or after an edit (not noise), over the judged. */
  precision: number;
}

export function figures(keys: string[], verdictOf: (key: string) => Verdict | null): Figures {
  const unjudged: string[] = [];
  let approvable = 0;
  let edit = 0;
  let noise = 0;
  for (const key of keys) {
    const verdict = verdictOf(key);
    if (verdict === null) unjudged.push(key);
    else if (verdict === 'approvable') approvable++;
    else if (verdict === 'edit') edit++;
    else noise++;
  }
  const judged = approvable + edit + noise;
  return {
    proposals: keys.length, judged, unjudged, approvable, edit, noise,
    strictPrecision: judged === 0 ? 0 : round(approvable / judged),
    precision: judged === 0 ? 0 : round((approvable + edit) / judged),
  };
}

/** Proposals that share a twin key with another proposal (case or plural variants), over all proposals. */
export function twinRate(names: string[]): { twins: number; rate: number; groups: string[][] } {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const key = twinKey(name);
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  const twinGroups = [...groups.values()].filter((g) => g.length > 1);
  const twins = twinGroups.reduce((n, g) => n + g.length, 0);
  return { twins, rate: names.length === 0 ? 0 : round(twins / names.length), groups: twinGroups };
}

/**
 * Expected calibration error: proposals binned by confidence (ten equal-width bins), the gap between each bin's mean
 * confidence and its share of approvals (as proposed or after an edit), weighted by the bin's size.
 */
export function expectedCalibrationError(points: { confidence: number; approved: boolean }[], bins = 10): number {
  if (points.length === 0) return 0;
  let total = 0;
  for (let b = 0; b < bins; b++) {
    const inBin = points.filter((p) => Math.min(bins - 1, Math.floor(p.confidence * bins)) === b);
    if (inBin.length === 0) continue;
    const meanConfidence = inBin.reduce((s, p) => s + p.confidence, 0) / inBin.length;
    const rate = inBin.filter((p) => p.approved).length / inBin.length;
    total += (inBin.length / points.length) * Math.abs(meanConfidence - rate);
  }
  return round(total);
}

/**
 * `size` keys drawn at random from `keys` with a fixed seed: the distinct keys sorted (so the draw does not depend on the
 * order the queue was read in), shuffled by Fisher–Yates with mulberry32, the first `size` kept, returned sorted.
 * The same queue and seed always give the same sample.
 */
export function drawSample(keys: string[], size: number, seed: number): string[] {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`The seed must be an integer from 0 to 2^32-1, not ${seed}`);
  const pool = [...new Set(keys)].sort();
  const random = mulberry32(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, Math.max(0, size)).sort();
}

/** mulberry32: a 32-bit seeded generator, uniform in [0, 1). Written out so a recorded seed draws the same forever. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * How many of `total` proposals an admin keeps (or approves), from the judged ones: the count itself when the whole
 * queue was judged, else the judged share scaled to the queue (a random sample estimates the queue's share).
 */
export function keptEstimate(kept: number, judged: number, total: number, sampled: boolean): number {
  if (!sampled) return kept;
  return judged === 0 ? 0 : (kept * total) / judged;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
