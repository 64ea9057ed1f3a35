import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { headingText, highlightQuote, passageHref, type Highlight } from '../pages/evidence.js';
import {
  ProposalsRepository, type DuplicateRow, type EndpointRow, type EvidenceRow, type ProposalRow, type QueueCursor,
  type QueueFilter, type QueueSort, type SortDirection,
} from './proposals.repository.js';
import { ID_PATTERN, ReviewErrors } from '../admin/review-errors.js';
import { REAL_MIN } from '../common/real-numbers.js';
import { NODE_EMBEDDING_HOOK, type NodeEmbeddingHook } from '../kg/review-hooks.js';
import { signalWeight } from '../extractors/builtin/builtin.extractor.js';
import { TriageRepository, type SimilarRejections } from './triage.repository.js';

export const DEFAULT_DIRECTION: Record<QueueSort, SortDirection> = { confidence: 'desc', support: 'desc', age: 'asc' };
export const QUEUE_COUNT_CAP = 1000;

export interface QueueQuery {
  filter: Omit<QueueFilter, 'status'> & { status?: QueueFilter['status'] };
  sort?: QueueSort;
  direction?: SortDirection;
  /** Opaque cursors from a previous page's nextCursor / prevCursor. */
  after?: string;
  before?: string;
  limit: number;
}

export interface EvidenceView {
  slug: string;
  pageTitle: string;
  /** The page, at the heading the passage sits under. */
  href: string;
  headingPath: string[];
  heading: string;
  quote: string;
  confidence: number | null;
  highlight: Highlight;
}

export interface EndpointView {
  signature: string;
  name: string;
  /** An entity already (its id), a pending node proposal (approved with the edge), or missing/rejected. */
  state: 'entity' | 'pending' | 'rejected' | 'missing';
  entityId: string | null;
  proposalId: string | null;
}

export interface ProposalView extends Omit<ProposalRow, 'sortValue'> {
  evidence: EvidenceView[];
  /** Pieces of visible evidence in all (evidence lists the best few). */
  evidenceTotal: number;
  /** Every supporting page: how many passages, and its best quote (`href` leads to that quote's section). */
  pages: { slug: string; title: string; href: string; quotes: number; bestQuote: string }[];
  endpoints: { source: EndpointView; target: EndpointView } | null;
  duplicates: Omit<DuplicateRow, 'proposalId'>[];
  /**
   * Why it was proposed: the extractor's signals with what each weighs (the built-in extractor's weights; null for a
   * signal another extractor recorded), its raw score and the calibrated confidence shown.
   */
  why: { signals: { signal: string; weight: number | null; meaning: string }[]; rawConfidence: number | null; confidence: number };
  /** Rejected proposals it resembles (same name stem, or same type and signals: docs/review.md). */
  similarRejected: Omit<SimilarRejections, 'proposalId'>;
}

export interface QueuePage {
  items: ProposalView[];
  /** How many match (counted up to 1,000: `capped` says there are at least that many). */
  total: number;
  capped: boolean;
  nextCursor: string | null;
  prevCursor: string | null;
  sort: QueueSort;
  direction: SortDirection;
}

/** Characters of the passage kept either side of a quote: in the queue's list, and on a proposal's own page. */
const QUEUE_CONTEXT_CHARS = 110;
const PAGE_CONTEXT_CHARS = 280;

/** The review queue and one proposal with its evidence, endpoints and possible duplicates. */
@Injectable()
export class ReviewQueueService {
  private readonly logger = new Logger('ReviewQueue');

  constructor(
    private readonly proposals: ProposalsRepository,
    private readonly triage: TriageRepository,
    @Optional() @Inject(NODE_EMBEDDING_HOOK) private readonly embeddings: NodeEmbeddingHook | null = null,
  ) {}

  async list(query: QueueQuery): Promise<QueuePage> {
    const sort = query.sort ?? 'confidence';
    const direction = query.direction ?? DEFAULT_DIRECTION[sort];
    const filter: QueueFilter = { ...query.filter, status: query.filter.status ?? 'pending' };
    if (query.after && query.before) throw ReviewErrors.invalid('Give either after or before, not both.');
    const after = query.after ? decodeCursor(query.after, sort) : undefined;
    const before = query.before ? decodeCursor(query.before, sort) : undefined;
    return this.proposals.reading(async (db) => {
      const { rows, more, total } = await this.proposals.page({ filter, sort, direction, after, before, limit: query.limit }, QUEUE_COUNT_CAP, db);
      // Shorter context around each quote in the list: the queue shows many proposals at once, the proposal page all of it.
      const items = await this.views(rows, 3, false, db, QUEUE_CONTEXT_CHARS);
      const first = rows[0];
      const last = rows.at(-1);
      const backwards = before !== undefined;
      return {
        items,
        total,
        capped: total >= QUEUE_COUNT_CAP,
        nextCursor: last && (backwards || more) ? encodeCursor(last) : null,
        prevCursor: first && (backwards ? more : after !== undefined) ? encodeCursor(first) : null,
        sort,
        direction,
      };
    });
  }

  async get(id: string): Promise<ProposalView> {
    const { row, view } = await this.proposals.reading(async (db) => {
      const found = await this.proposals.get(id, db);
      if (!found || !(await this.proposals.isVisible(id, db))) throw ReviewErrors.notFound(`Proposal ${id}`);
      return { row: found, view: (await this.views([found], 50, true, db))[0] };
    });
    if (row.kind === 'node' && row.status === 'pending') view.duplicates = await this.withEmbeddingDuplicates(row, view.duplicates);
    return view;
  }

  private async views(rows: ProposalRow[], evidencePerProposal: number, thorough: boolean, db: EntityManager, contextChars = PAGE_CONTEXT_CHARS): Promise<ProposalView[]> {
    const ids = rows.map((r) => r.id);
    const evidence = await this.proposals.evidence(ids, evidencePerProposal, db);
    const pages = await this.proposals.supportPages(ids, db);
    const edges = rows.filter((r) => r.kind === 'edge');
    const endpoints = new Map<string, EndpointRow>(
      (await this.proposals.endpoints([...new Set(edges.flatMap((e) => [e.sourceSignature!, e.targetSignature!]))], db)).map((e) => [e.signature, e]),
    );
    const pendingNodes = rows.filter((r) => r.kind === 'node' && r.status === 'pending');
    const duplicates = await this.proposals.duplicates(pendingNodes.map((r) => ({ proposalId: r.id, name: r.name! })), thorough ? 8 : 3, thorough, db);
    const similar = new Map((await this.triage.similarRejections(rows.map((r) => ({
      proposalId: r.id, kind: r.kind, stem: r.nameStem, typeOrPredicate: r.kind === 'node' ? r.type : r.predicate, pattern: r.signalPattern,
    })), db)).map((x) => [x.proposalId, x]));
    return rows.map(({ sortValue: _s, ...row }) => {
      const mine = evidence.filter((e) => e.proposalId === row.id);
      const visibleSupport = mine[0]?.total ?? 0;
      return {
        ...row,
        // The name itself in another case is no other name (it became the name when its spelling scored best).
        aliases: row.aliases.filter((a) => a.toLowerCase() !== row.name?.toLowerCase()),
        // What the admin can see: support from a page in the trash or softly excluded is not counted while hidden.
        supportCount: visibleSupport,
        evidence: mine.map((e) => evidenceView(e, contextChars)),
        evidenceTotal: visibleSupport,
        pages: pages.filter((p) => p.proposalId === row.id).map((p) => ({ slug: p.slug, title: p.title, href: passageHref(p.slug, p), quotes: p.quotes, bestQuote: p.bestQuote })),
        endpoints: row.kind === 'edge'
          ? { source: endpointView(row.sourceSignature!, row.sourceName, endpoints), target: endpointView(row.targetSignature!, row.targetName, endpoints) }
          : null,
        duplicates: duplicates.filter((d) => d.proposalId === row.id).map(({ proposalId: _p, ...d }) => d),
        why: {
          signals: row.signals.map((signal) => (row.extractor === 'builtin' ? signalWeight(signal) : { signal, weight: null, meaning: 'recorded by the extractor' })),
          rawConfidence: row.rawConfidence,
          confidence: row.confidence,
        },
        similarRejected: (({ proposalId: _p, ...counts }) => counts)(similar.get(row.id) ?? { proposalId: row.id, sameStem: 0, samePattern: 0, total: 0 }),
      };
    });
  }

  /** Adds entities whose embedding is close to the proposal's name (the embedder is called outside any transaction). */
  private async withEmbeddingDuplicates(row: ProposalRow, found: ProposalView['duplicates']): Promise<ProposalView['duplicates']> {
    if (!this.embeddings?.embedName) return found;
    try {
      const embedded = await this.embeddings.embedName(row.name!, row.type!);
      if (!embedded) return found;
      const near = await this.proposals.nearestByEmbedding(embedded.model, embedded.vector, 5, 0.85);
      const known = new Set(found.map((d) => d.nodeId));
      return [...found, ...near.filter((n) => !known.has(n.nodeId)).map((n) => ({ ...n, how: 'close embedding' as const }))];
    } catch (error) {
      // A slow or absent embedding backend must not cost the admin the proposal page.
      this.logger.warn(`Embedding duplicates for proposal ${row.id} skipped: ${error instanceof Error ? error.message : String(error)}`);
      return found;
    }
  }
}

function evidenceView(e: EvidenceRow, contextChars: number): EvidenceView {
  return {
    slug: e.slug,
    pageTitle: e.pageTitle,
    href: passageHref(e.slug, e),
    headingPath: e.headingPath,
    heading: headingText(e.headingPath),
    quote: e.quote,
    confidence: e.confidence,
    highlight: highlightQuote(e.chunkText, e.quote, contextChars),
  };
}

function endpointView(signature: string, name: string | null, rows: Map<string, EndpointRow>): EndpointView {
  const row = rows.get(signature);
  const state = row?.nodeId ? 'entity' : row?.pendingProposalId ? 'pending' : row?.rejected ? 'rejected' : 'missing';
  return { signature, name: row?.nodeName ?? name ?? signature, state, entityId: row?.nodeId ?? null, proposalId: row?.pendingProposalId ?? null };
}

export function encodeCursor(row: ProposalRow): string {
  return Buffer.from(JSON.stringify([row.sortValue, row.id])).toString('base64url');
}

/** A timestamp PostgreSQL reads as written: every field in its range (Date.parse rolls 2026-02-30 over to March). */
function validTimestamp(value: string): boolean {
  const [date, time] = value.split(/[ T]/);
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi, s] = time.slice(0, 8).split(':').map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  // PostgreSQL reads offsets up to ±15:59 (a cursor of this server carries its own, +00).
  const offset = /([+-])(\d{2}):?(\d{2})?$/.exec(time.slice(8));
  const offsetOk = !offset || (Number(offset[2]) <= 15 && Number(offset[3] ?? 0) <= 59);
  return y >= 1 && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h <= 23 && mi <= 59 && s <= 59 && offsetOk;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)?$/;

/** A cursor must come from this sort (a cursor is opaque, but a hand-edited one gets a 400, never a 500). */
export function decodeCursor(text: string, sort: QueueSort): QueueCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const bad = ReviewErrors.invalid('That page cursor is not valid for this sort (start again from the first page).');
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== 'string' || !ID_PATTERN.test(parsed[1])) throw bad;
  const value = parsed[0];
  if (typeof value !== 'string') throw bad;
  if (sort === 'age' ? !TIMESTAMP.test(value) : !/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(value)) throw bad;
  if (sort === 'support' && !/^-?\d{1,9}$/.test(value)) throw bad;
  // The shape is not enough: PostgreSQL casts the value (::real, ::timestamptz) and refuses 1e99 or month 13.
  if (sort === 'age' && !validTimestamp(value)) throw bad;
  if (sort === 'confidence' && !(Number(value) === 0 || (Number(value) >= REAL_MIN && Number(value) <= 1))) throw bad;
  return { value, id: parsed[1] };
}
