import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { KgProposalKind, KgProposalStatus } from '../kg-tables/kg-proposal.entity.js';
import { withProbePlans } from '../db/probe-plans.js';
import { vectorText } from '../db/vector-text.js';
import { lockEdgeSignaturesSql } from '../kg/edge-signature-locks.js';

export const QUEUE_SORTS = ['confidence', 'support', 'age'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];
export type SortDirection = 'asc' | 'desc';

export interface QueueFilter {
  status: KgProposalStatus;
  kind?: KgProposalKind;
  type?: string;
  predicate?: string;
  /** A cluster: proposals supported by a page of it or of one of its sub-clusters. */
  cluster?: string;
  /** A page slug: proposals that page supports. */
  page?: string;
  extractor?: string;
  minConfidence?: number;
  maxConfidence?: number;
  /** Words in the name (nodes) or in either endpoint's name (edges). */
  q?: string;
}

/** A position in the queue: the sort key's value and the id (the tie-breaker) of the row to continue from. */
export interface QueueCursor {
  value: number | string;
  id: string;
}

export interface QueuePageQuery {
  filter: QueueFilter;
  sort: QueueSort;
  direction: SortDirection;
  after?: QueueCursor;
  before?: QueueCursor;
  limit: number;
}

export interface ProposalRow {
  id: string;
  kind: KgProposalKind;
  signature: string;
  name: string | null;
  type: string | null;
  sourceSignature: string | null;
  sourceName: string | null;
  predicate: string | null;
  targetSignature: string | null;
  targetName: string | null;
  description: string;
  /** The chance an admin approves it: the extractor's score, calibrated (docs/extraction.md). */
  confidence: number;
  /** The extractor's own score (null for proposals made before it was kept). */
  rawConfidence: number | null;
  /** Why it was proposed: the extractor's signals for its best support. */
  signals: string[];
  signalPattern: string;
  nameStem: string | null;
  /** Nodes: other names the extractor gave it (an LLM's aliases, the chunks' other spellings); approved, they are the entity's aliases. */
  aliases: string[];
  evidenceQuote: string | null;
  supportCount: number;
  status: KgProposalStatus;
  extractor: string;
  model: string | null;
  reviewedBy: string | null;
  reviewedAt: Date | null;
  reviewNote: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The sort key as text, for the next cursor. */
  sortValue: string;
}

export interface SupportPageRow {
  proposalId: string;
  slug: string;
  title: string;
  /** Supporting passages on the page. */
  quotes: number;
  /** The page's most confident quote, and where it is. */
  bestQuote: string;
  headingPath: string[];
  anchor: string | null;
}

export interface RejectionRow {
  kind: 'node' | 'edge';
  signature: string;
  reason: string | null;
  rejectedBy: string;
  rejectedAt: Date;
  /** The latest rejected proposal of the signature (reopening it takes the rejection back), if any. */
  proposalId: string | null;
  /** That proposal's name (nodes) or "source predicate target" (edges). */
  label: string | null;
}

export interface EvidenceRow {
  proposalId: string;
  chunkId: string;
  pageId: string;
  slug: string;
  pageTitle: string;
  headingPath: string[];
  anchor: string | null;
  chunkText: string;
  quote: string;
  confidence: number | null;
  /** 1 for the best piece of evidence of a proposal, 2 for the next… */
  rank: number;
  /** How many pieces of visible evidence the proposal has in all. */
  total: number;
}

export interface EndpointRow {
  signature: string;
  nodeId: string | null;
  nodeName: string | null;
  pendingProposalId: string | null;
  rejected: boolean;
}

export interface DuplicateRow {
  proposalId: string;
  nodeId: string;
  name: string;
  type: string;
  aliases: string[];
  score: number;
  how: 'same name' | 'similar name' | 'close embedding';
}

const PROPOSAL_COLUMNS = `p.id::text AS id, p.kind, p.signature, p.name, p.node_type AS type,
  p.source_signature AS "sourceSignature", p.source_name AS "sourceName", p.predicate,
  p.target_signature AS "targetSignature", p.target_name AS "targetName", p.description, p.confidence,
  p.raw_confidence AS "rawConfidence", p.signals, p.signal_pattern AS "signalPattern", p.name_stem AS "nameStem",
  p.aliases, p.evidence_quote AS "evidenceQuote", p.support_count AS "supportCount", p.status, p.extractor, p.model,
  p.reviewed_by AS "reviewedBy", p.reviewed_at AS "reviewedAt", p.review_note AS "reviewNote",
  p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

const SORT_COLUMN: Record<QueueSort, { column: string; cast: string }> = {
  confidence: { column: 'p.confidence', cast: 'real' },
  support: { column: 'p.support_count', cast: 'integer' },
  age: { column: 'p.created_at', cast: 'timestamptz' },
};

// Pages of a cluster and its sub-clusters, as the policy module decides it (cluster-path.ts).
const IN_CLUSTER = (param: string) =>
  `EXISTS (SELECT 1 FROM unnest(pg.clusters) c WHERE c = ${param} OR left(c, length(${param}) + 1) = ${param} || '/')`;

/**
 * Reads of the review queue, over the policy-filtered views (kg_visible_*): what an excluded page alone supports is
 * never shown. Reads `pages` (slug, title, clusters) for the evidence and the cluster/page filters.
 */
@Injectable()
export class ProposalsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The reads of one queue page, planned as index probes (probe-plans.ts). */
  reading<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    return withProbePlans(this.dataSource, work);
  }

  /**
   * One page of the queue, keyset-paginated on (sort key, id): every page costs the same, however deep; and how
   * many match, counted up to `cap` (an exact count of 100,000 rows costs more than the page itself).
   */
  async page(query: QueuePageQuery, cap: number, db: EntityManager = this.dataSource.manager): Promise<{ rows: ProposalRow[]; more: boolean; total: number }> {
    const scope = await this.scopePages(query.filter, db);
    const params: unknown[] = [];
    const where = this.conditions(query.filter, scope, params);
    const countParams = [...params];
    const countWhere = [...where];
    const { column, cast } = SORT_COLUMN[query.sort];
    const backwards = query.before !== undefined;
    // Going backwards: the opposite order from the cursor, then reversed.
    const descending = (query.direction === 'desc') !== backwards;
    const cursor = query.before ?? query.after;
    if (cursor) {
      where.push(`(${column}, p.id) ${descending ? '<' : '>'} ($${params.push(cursor.value)}::${cast}, $${params.push(cursor.id)}::bigint)`);
    }
    const order = descending ? 'DESC' : 'ASC';
    params.push(query.limit + 1);
    const rows: ProposalRow[] = await db.query(
      `SELECT ${PROPOSAL_COLUMNS}, ${column}::text AS "sortValue"
         FROM kg_visible_proposals p
        WHERE ${where.join(' AND ')}
        ORDER BY ${column} ${order}, p.id ${order}
        LIMIT $${params.length}`,
      params,
    );
    countParams.push(cap);
    const counted: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM kg_visible_proposals p WHERE ${countWhere.join(' AND ')} LIMIT $${countParams.length}) m`,
      countParams,
    );
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return { rows: backwards ? page.reverse() : page, more, total: counted[0].n };
  }

  /** The ids of the pending proposals matching a filter (for a bulk action), best first, at most `limit`. */
  async matchingIds(filter: QueueFilter, limit: number, db: EntityManager): Promise<string[]> {
    const params: unknown[] = [];
    const where = this.conditions(filter, await this.scopePages(filter, db), params);
    params.push(limit);
    const rows: { id: string }[] = await db.query(
      `SELECT p.id::text AS id FROM kg_visible_proposals p WHERE ${where.join(' AND ')}
        ORDER BY p.confidence DESC, p.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => r.id);
  }

  async get(id: string, db: EntityManager = this.dataSource.manager): Promise<ProposalRow | null> {
    const rows: ProposalRow[] = await db.query(`SELECT ${PROPOSAL_COLUMNS}, p.id::text AS "sortValue" FROM kg_proposals p WHERE p.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Whether a proposal is visible under the inclusion policy (a hidden one is answered as not found). */
  async isVisible(id: string, db: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await db.query('SELECT 1 FROM kg_visible_proposals WHERE id = $1', [id]);
    return rows.length > 0;
  }

  /** Which of these proposals the inclusion policy lets an admin see. */
  async visibleIds(ids: string[], db: EntityManager = this.dataSource.manager): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows: { id: string }[] = await db.query('SELECT id::text AS id FROM kg_visible_proposals WHERE id = ANY($1::bigint[])', [ids]);
    return rows.map((r) => r.id);
  }

  /**
   * Every page that supports each of these proposals (visible ones), by title: how many passages, and the best
   * quote of the page (the most confident) with the section it is in.
   */
  async supportPages(ids: string[], db: EntityManager = this.dataSource.manager): Promise<SupportPageRow[]> {
    if (ids.length === 0) return [];
    return db.query(
      `SELECT DISTINCT ON (s.proposal_id, pg.title, pg.slug)
              s.proposal_id::text AS "proposalId", pg.slug, pg.title, count(*) OVER (PARTITION BY s.proposal_id, s.page_id)::int AS quotes,
              s.quote AS "bestQuote", c.heading_path AS "headingPath", c.anchor
         FROM kg_visible_proposal_support s JOIN pages pg ON pg.id = s.page_id JOIN kg_content_chunks c ON c.id = s.chunk_id
        WHERE s.proposal_id = ANY($1::bigint[])
        ORDER BY s.proposal_id, pg.title, pg.slug, s.confidence DESC NULLS LAST, c.position, s.chunk_id`,
      [ids],
    );
  }

  /** The visible evidence of these proposals, best first, at most `perProposal` each (with the total). */
  async evidence(proposalIds: string[], perProposal: number, db: EntityManager = this.dataSource.manager): Promise<EvidenceRow[]> {
    if (proposalIds.length === 0) return [];
    return db.query(
      `SELECT * FROM (
         SELECT s.proposal_id::text AS "proposalId", s.chunk_id::text AS "chunkId", s.page_id AS "pageId", pg.slug,
                pg.title AS "pageTitle", c.heading_path AS "headingPath", c.anchor, c.text AS "chunkText", s.quote, s.confidence,
                row_number() OVER w::int AS rank, count(*) OVER (PARTITION BY s.proposal_id)::int AS total
           FROM kg_visible_proposal_support s
           JOIN kg_content_chunks c ON c.id = s.chunk_id
           JOIN pages pg ON pg.id = s.page_id
          WHERE s.proposal_id = ANY($1::bigint[])
         WINDOW w AS (PARTITION BY s.proposal_id ORDER BY s.confidence DESC NULLS LAST, pg.title, c.position, s.chunk_id)
       ) e WHERE e.rank <= $2
       ORDER BY e."proposalId", e.rank`,
      [proposalIds, perProposal],
    );
  }

  /** What each signature is now: an entity (by its own signature or one it took over), a pending proposal, rejected. */
  async endpoints(signatures: string[], db: EntityManager = this.dataSource.manager): Promise<EndpointRow[]> {
    if (signatures.length === 0) return [];
    return db.query(
      `SELECT s.sig AS signature, n.id::text AS "nodeId", n.name AS "nodeName",
              (SELECT p.id::text FROM kg_proposals p WHERE p.kind = 'node' AND p.signature = s.sig AND p.status = 'pending') AS "pendingProposalId",
              EXISTS (SELECT 1 FROM kg_rejections r WHERE r.kind = 'node' AND r.signature = s.sig) AS rejected
         FROM unnest($1::text[]) AS s(sig)
         LEFT JOIN LATERAL (
           SELECT n.id, n.name FROM kg_nodes n
            WHERE n.signature = s.sig OR n.id = (SELECT ns.node_id FROM kg_node_signatures ns WHERE ns.signature = s.sig)
            ORDER BY (n.signature = s.sig) DESC LIMIT 1) n ON true`,
      [signatures],
    );
  }

  /**
   * Entities a node proposal may duplicate: the same normalised name (or alias), or a similar name (pg_trgm,
   * nearest first through the GiST index). `withAliases` also scans aliases (for one proposal, not a page of them).
   */
  async duplicates(items: { proposalId: string; name: string }[], perProposal: number, withAliases: boolean, db: EntityManager = this.dataSource.manager): Promise<DuplicateRow[]> {
    if (items.length === 0) return [];
    const aliasMatch = withAliases
      ? `UNION
         SELECT n.id, n.name, n.node_type, n.aliases, 1.0::real AS score FROM kg_visible_nodes n
          WHERE EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(a) = q.name)`
      : '';
    return db.query(
      `SELECT q.pid AS "proposalId", d.id::text AS "nodeId", d.name, d.node_type AS type, d.aliases, d.score,
              CASE WHEN d.score >= 1 THEN 'same name' ELSE 'similar name' END AS how
         FROM unnest($1::text[], $2::text[]) AS q(pid, name)
         CROSS JOIN LATERAL (
           SELECT * FROM (
             SELECT n.id, n.name, n.node_type, n.aliases, similarity(lower(n.name), q.name) AS score FROM (
               SELECT n.id, n.name, n.node_type, n.aliases FROM kg_visible_nodes n
                WHERE lower(n.name) % q.name ORDER BY lower(n.name) <-> q.name LIMIT $3) n
             ${aliasMatch}
           ) c ORDER BY c.score DESC, c.id LIMIT $3
         ) d
        ORDER BY q.pid, d.score DESC`,
      [items.map((i) => i.proposalId), items.map((i) => i.name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()), perProposal],
    );
  }

  /** Entities whose embedding is closest to `vector` (same model), for the "close embedding" duplicates. */
  async nearestByEmbedding(model: string, vector: number[], limit: number, minSimilarity: number, db: EntityManager = this.dataSource.manager): Promise<{ nodeId: string; name: string; type: string; aliases: string[]; score: number }[]> {
    return db.query(
      `SELECT n.id::text AS "nodeId", n.name, n.node_type AS type, n.aliases, e.score FROM (
         SELECT ne.node_id, 1 - (ne.embedding <=> $2::vector) AS score FROM kg_node_embeddings ne
          WHERE ne.model = $1 AND ne.dims = $4
          ORDER BY ne.embedding <=> $2::vector LIMIT $3) e
        JOIN kg_visible_nodes n ON n.id = e.node_id
       WHERE e.score >= $5 ORDER BY e.score DESC`,
      [model, vectorText(vector), limit, vector.length, minSimilarity],
    );
  }

  /** Pending proposals of a kind and signature (a node an edge needs), locked. */
  async pendingNodeProposalsBySignature(signatures: string[], tx: EntityManager): Promise<ProposalRow[]> {
    if (signatures.length === 0) return [];
    return tx.query(
      `SELECT ${PROPOSAL_COLUMNS}, p.id::text AS "sortValue" FROM kg_proposals p
        WHERE p.kind = 'node' AND p.status = 'pending' AND p.signature = ANY($1::text[])
        ORDER BY p.id FOR UPDATE`,
      [signatures],
    );
  }

  /**
   * Remembered rejections, newest first, each with the latest rejected proposal of its signature (none when it was
   * rejected by deleting an entity), and how many there are.
   */
  async rejections(kind: 'node' | 'edge' | undefined, limit: number, offset: number): Promise<{ items: RejectionRow[]; total: number }> {
    const rows: (RejectionRow & { total: number })[] = await this.dataSource.query(
      `SELECT r.kind, r.signature, r.reason, r.rejected_by AS "rejectedBy", r.rejected_at AS "rejectedAt",
              p.id AS "proposalId", p.label, count(*) OVER ()::int AS total
         FROM kg_rejections r
         LEFT JOIN LATERAL (
              SELECT p.id::text AS id,
                     CASE WHEN p.kind = 'node' THEN p.name ELSE concat_ws(' ', coalesce(p.source_name, p.source_signature), p.predicate,
                                                                         coalesce(p.target_name, p.target_signature)) END AS label
                FROM kg_proposals p WHERE p.kind = r.kind AND p.signature = r.signature AND p.status = 'rejected'
               ORDER BY p.reviewed_at DESC NULLS LAST, p.id DESC LIMIT 1) p ON true
        WHERE $1::text IS NULL OR r.kind = $1
        ORDER BY r.rejected_at DESC, r.kind, r.signature
        LIMIT $2 OFFSET $3`,
      [kind ?? null, limit, offset],
    );
    if (rows.length === 0 && offset > 0) {
      const count: { n: number }[] = await this.dataSource.query('SELECT count(*)::int AS n FROM kg_rejections WHERE $1::text IS NULL OR kind = $1', [kind ?? null]);
      return { items: [], total: count[0].n };
    }
    return { items: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
  }

  /** Locks a rejected proposal (null when it is not rejected, or does not exist). */
  async lockRejected(id: string, tx: EntityManager): Promise<ProposalRow | null> {
    const rows: ProposalRow[] = await tx.query(
      `SELECT ${PROPOSAL_COLUMNS}, p.id::text AS "sortValue" FROM kg_proposals p WHERE p.id = $1 AND p.status = 'rejected' FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The pending proposal with this signature, if there is one (there is at most one). */
  async pendingIdWithSignature(kind: 'node' | 'edge', signature: string, tx: EntityManager): Promise<string | null> {
    const rows: { id: string }[] = await tx.query(
      `SELECT id::text AS id FROM kg_proposals WHERE kind = $1 AND signature = $2 AND status = 'pending'`,
      [kind, signature],
    );
    return rows[0]?.id ?? null;
  }

  /** The names of entities the proposals would approve: a node's name, an edge's two ends (approved with it when pending). */
  async entityNamesOf(ids: string[], tx: EntityManager): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows: { name: string }[] = await tx.query(
      `SELECT n.name FROM kg_proposals p CROSS JOIN LATERAL unnest(ARRAY[p.name, p.source_name, p.target_name]) AS n(name)
        WHERE p.id = ANY($1::bigint[]) AND n.name IS NOT NULL`,
      [ids],
    );
    return rows.map((r) => r.name);
  }

  /**
   * Locks the proposals that are still pending among `ids`. A second admin acting on the same proposal waits here
   * for the first one's transaction, then finds it no longer pending.
   */
  async lockPending(ids: string[], tx: EntityManager): Promise<ProposalRow[]> {
    if (ids.length === 0) return [];
    // The edge proposals' signatures first, in a statement of their own (src/kg/edge-signature-locks.ts): an extraction
    // run proposing one of them waits for this action, and then sees what it decided.
    await tx.query(lockEdgeSignaturesSql(`ARRAY(SELECT p.signature FROM kg_proposals p WHERE p.id = ANY($1::bigint[]) AND p.kind = 'edge')`), [ids]);
    return tx.query(
      `SELECT ${PROPOSAL_COLUMNS}, p.id::text AS "sortValue" FROM kg_proposals p
        WHERE p.id = ANY($1::bigint[]) AND p.status = 'pending'
        ORDER BY p.id FOR UPDATE`,
      [ids],
    );
  }

  /** Pending proposals the inclusion policy lets an admin see, by kind (the review queue's size, for /metrics). */
  async pendingByKind(): Promise<{ kind: KgProposalKind; n: number }[]> {
    return this.dataSource.query(`SELECT p.kind, count(*)::int AS n FROM kg_visible_proposals p WHERE p.status = 'pending' GROUP BY 1`);
  }

  /** Pending node proposals in each type, and pending edge proposals per predicate (for the schema). */
  async pendingCounts(db: EntityManager = this.dataSource.manager): Promise<{ kind: KgProposalKind; key: string; n: number }[]> {
    return db.query(
      `SELECT p.kind, coalesce(p.node_type, p.predicate) AS key, count(*)::int AS n FROM kg_visible_proposals p
        WHERE p.status = 'pending' GROUP BY 1, 2`,
    );
  }

  /**
   * The pages a cluster or page filter stands for, looked up first: PostgreSQL then knows how few they are and reads
   * their support through kg_proposal_support's page index (null: no such filter).
   */
  private async scopePages(filter: QueueFilter, db: EntityManager): Promise<string[] | null> {
    if (!filter.cluster && !filter.page) return null;
    const params: unknown[] = [];
    const where: string[] = [];
    if (filter.cluster) where.push(IN_CLUSTER(`$${params.push(filter.cluster)}`));
    if (filter.page) where.push(`pg.slug = $${params.push(filter.page)}`);
    const rows: { id: string }[] = await db.query(`SELECT pg.id FROM pages pg WHERE ${where.join(' AND ')}`, params);
    return rows.map((r) => r.id);
  }

  private conditions(filter: QueueFilter, scope: string[] | null, params: unknown[]): string[] {
    const where = [`p.status = $${params.push(filter.status)}`];
    if (filter.kind) where.push(`p.kind = $${params.push(filter.kind)}`);
    if (filter.type) where.push(`p.kind = 'node' AND p.node_type = $${params.push(filter.type)}`);
    if (filter.predicate) where.push(`p.kind = 'edge' AND p.predicate = $${params.push(filter.predicate)}`);
    if (filter.extractor) where.push(`p.extractor = $${params.push(filter.extractor)}`);
    if (filter.minConfidence !== undefined) where.push(`p.confidence >= $${params.push(filter.minConfidence)}::real`);
    if (filter.maxConfidence !== undefined) where.push(`p.confidence <= $${params.push(filter.maxConfidence)}::real`);
    if (filter.q) {
      const like = `$${params.push(`%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
      where.push(`(p.name ILIKE ${like} OR p.source_name ILIKE ${like} OR p.target_name ILIKE ${like})`);
    }
    if (scope) {
      where.push(`p.id IN (SELECT s.proposal_id FROM kg_visible_proposal_support s WHERE s.page_id = ANY($${params.push(scope)}::uuid[]))`);
    }
    return where;
  }
}
