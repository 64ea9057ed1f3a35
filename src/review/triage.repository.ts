import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { withProbePlans } from '../db/probe-plans.js';

/** A pending proposal that falls into a triage group, with what the group's action would do to it. */
export interface TriageCandidate {
  proposalId: string;
  kind: 'node' | 'edge';
  name: string | null;
  type: string | null;
  sourceName: string | null;
  predicate: string | null;
  targetName: string | null;
  confidence: number;
  /** "same as an approved entity": the entity it would be approved into. */
  intoEntityId: string | null;
  intoEntityName: string | null;
  intoEntityType: string | null;
  /** How the entity matched: its name, or one of its aliases. */
  matchedBy: 'name' | 'alias' | null;
  /** "generic word": how often the wiki writes the word in lower case, and capitalised inside a sentence. */
  lower: number | null;
  capitalised: number | null;
  /** Relations: the entities at both ends (for a pending end, the name its proposal would be approved under). */
  sourceEntityName: string | null;
  targetEntityName: string | null;
  /** "stated by the wiki's own links": which ends are pending proposals that approving the relation approves too. */
  sourcePending?: boolean;
  targetPending?: boolean;
}

export interface SimilarRejections {
  proposalId: string;
  /** Rejected proposals of the same kind whose name has the same stem. */
  sameStem: number;
  /** Rejected proposals of the same type (relations: predicate) with the same signals. */
  samePattern: number;
  /** Either (each rejected proposal counted once). */
  total: number;
}

/** Signals that make a name more than a word: a link to its page, an approved entity, the page title. */
export const STRONG_SIGNALS = ['link', 'wantedLink', 'known', 'title'];

const CANDIDATE_COLUMNS = `p.id::text AS "proposalId", p.kind, p.name, p.node_type AS type, p.source_name AS "sourceName", p.predicate,
  p.target_name AS "targetName", p.confidence`;

/**
 * The SQL of triage (src/review/triage.service.ts): which pending, visible proposals fall into each group, and how many
 * rejected proposals resemble a proposal.
 */
@Injectable()
export class TriageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  reading<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    return withProbePlans(this.dataSource, work);
  }

  /**
   * Entity proposals that name an approved entity: its name, or one of its aliases, the same but for case and
   * `-`/`_`/spaces (an approved entity of the same signature would have taken the proposal's mentions instead: these
   * are other types, or proposals made before the entity was approved). Read from the entities' side, through the
   * pending-variant index of migration 0014 (the same expression). The entity of the same type is preferred, then a
   * match by name, then the oldest.
   */
  async sameAsApproved(limit: number, db: EntityManager, ids?: string[]): Promise<TriageCandidate[]> {
    return db.query(
      `WITH names AS (
         SELECT n.id, n.name, n.node_type, 'name' AS how, ${VARIANT('n.name')} AS key FROM kg_visible_nodes n
         UNION ALL
         SELECT n.id, n.name, n.node_type, 'alias', ${VARIANT('a.alias')} FROM kg_visible_nodes n CROSS JOIN unnest(n.aliases) AS a(alias)),
       matched AS (
         SELECT DISTINCT ON (p.id) ${CANDIDATE_COLUMNS}, m.id::text AS "intoEntityId", m.name AS "intoEntityName", m.node_type AS "intoEntityType",
                m.how AS "matchedBy", NULL::int AS lower, NULL::int AS capitalised, NULL AS "sourceEntityName", NULL AS "targetEntityName"
           FROM names m
           JOIN kg_proposals p ON ${VARIANT('p.name')} = m.key AND p.kind = 'node' AND p.status = 'pending'
          WHERE ($2::bigint[] IS NULL OR p.id = ANY($2::bigint[])) AND EXISTS (SELECT 1 FROM kg_visible_proposals v WHERE v.id = p.id)
          ORDER BY p.id, (m.node_type = p.node_type) DESC, (m.how = 'name') DESC, m.id)
       SELECT * FROM matched ORDER BY confidence DESC, "proposalId"::bigint LIMIT $1`,
      [limit, ids ?? null],
    );
  }

  /**
   * One-word entity proposals that nothing but the words around them supports (no link to their page, not a page
   * title, not an approved entity: none of STRONG_SIGNALS), and that the wiki writes in lower case in running text at
   * least as often as capitalised (the corpus statistics of kg_page_terms, over the word and its stem). One an approved
   * entity names is in the group before (TriageService takes each proposal once).
   */
  async genericWords(limit: number, db: EntityManager, ids?: string[]): Promise<TriageCandidate[]> {
    return db.query(
      `SELECT ${CANDIDATE_COLUMNS}, NULL AS "intoEntityId", NULL AS "intoEntityName", NULL AS "intoEntityType", NULL AS "matchedBy",
              t.lower, t.capitalised, NULL AS "sourceEntityName", NULL AS "targetEntityName"
         FROM kg_proposals p
         CROSS JOIN LATERAL (
           SELECT coalesce(sum(pt.lower), 0)::int AS lower, coalesce(sum(pt.capitalised), 0)::int AS capitalised
             FROM kg_page_terms pt WHERE pt.term IN (lower(p.name), p.name_stem)) t
        WHERE p.status = 'pending' AND p.kind = 'node' AND ($2::bigint[] IS NULL OR p.id = ANY($2::bigint[]))
          AND p.name !~ '[[:space:]_-]' AND NOT (p.signals && $3::text[])
          AND t.lower > 0 AND t.lower >= t.capitalised
          AND EXISTS (SELECT 1 FROM kg_visible_proposals v WHERE v.id = p.id)
        ORDER BY p.confidence, p.id
        LIMIT $1`,
      [limit, ids ?? null, STRONG_SIGNALS],
    );
  }

  /**
   * Relation proposals with a predicate other than related_to whose two ends are approved entities already (by their
   * signature, or one that leads to an entity after a rename or merge): approving them adds an edge and nothing else.
   */
  async typedBetweenApproved(limit: number, db: EntityManager, ids?: string[]): Promise<TriageCandidate[]> {
    return db.query(
      `SELECT ${CANDIDATE_COLUMNS}, NULL AS "intoEntityId", NULL AS "intoEntityName", NULL AS "intoEntityType", NULL AS "matchedBy",
              NULL::int AS lower, NULL::int AS capitalised, s.name AS "sourceEntityName", o.name AS "targetEntityName"
         FROM kg_proposals p
         CROSS JOIN LATERAL (${ENTITY_OF('p.source_signature')}) s
         CROSS JOIN LATERAL (${ENTITY_OF('p.target_signature')}) o
        WHERE p.status = 'pending' AND p.kind = 'edge' AND p.predicate <> 'related_to' AND s.id <> o.id
          AND ($2::bigint[] IS NULL OR p.id = ANY($2::bigint[]))
          AND EXISTS (SELECT 1 FROM kg_visible_proposals v WHERE v.id = p.id)
        ORDER BY p.confidence DESC, p.id
        LIMIT $1`,
      [limit, ids ?? null],
    );
  }

  /**
   * Relation proposals the wiki's own links state (the signals `see-also`: a "See also" link; `hierarchy`: a link
   * between a page and a page under it in the vault), whose two ends are approved entities or pending entity
   * proposals: approving one approves the pending ends with it (ReviewService). A typed relation between two approved
   * entities is in the group before.
   */
  async statedByLinks(limit: number, db: EntityManager, ids?: string[]): Promise<TriageCandidate[]> {
    return db.query(
      `SELECT ${CANDIDATE_COLUMNS}, NULL AS "intoEntityId", NULL AS "intoEntityName", NULL AS "intoEntityType", NULL AS "matchedBy",
              NULL::int AS lower, NULL::int AS capitalised,
              coalesce(s.name, ps.name) AS "sourceEntityName", coalesce(o.name, po.name) AS "targetEntityName",
              s.id IS NULL AS "sourcePending", o.id IS NULL AS "targetPending"
         FROM kg_proposals p
         LEFT JOIN LATERAL (${ENTITY_OF('p.source_signature')}) s ON true
         LEFT JOIN LATERAL (${ENTITY_OF('p.target_signature')}) o ON true
         LEFT JOIN LATERAL (${PENDING_NODE('p.source_signature')}) ps ON s.id IS NULL
         LEFT JOIN LATERAL (${PENDING_NODE('p.target_signature')}) po ON o.id IS NULL
        WHERE p.status = 'pending' AND p.kind = 'edge' AND p.signals && $3::text[]
          AND (s.id IS NOT NULL OR ps.name IS NOT NULL) AND (o.id IS NOT NULL OR po.name IS NOT NULL)
          AND (s.id IS NULL OR o.id IS NULL OR s.id <> o.id)
          AND ($2::bigint[] IS NULL OR p.id = ANY($2::bigint[]))
          AND EXISTS (SELECT 1 FROM kg_visible_proposals v WHERE v.id = p.id)
        ORDER BY p.confidence DESC, p.id
        LIMIT $1`,
      [limit, ids ?? null, LINK_SIGNALS],
    );
  }

  /**
   * How many rejected proposals resemble each of these: same kind and name stem, or same kind, type (relations:
   * predicate) and signal pattern (a proposal without recorded signals has no pattern to match).
   */
  async similarRejections(items: { proposalId: string; kind: string; stem: string | null; typeOrPredicate: string | null; pattern: string }[], db: EntityManager): Promise<SimilarRejections[]> {
    if (items.length === 0) return [];
    return db.query(
      `SELECT q.id AS "proposalId",
              (SELECT count(*) FROM kg_proposals r WHERE r.status = 'rejected' AND r.kind = q.kind AND r.name_stem = q.stem)::int AS "sameStem",
              (SELECT count(*) FROM kg_proposals r WHERE r.status = 'rejected' AND r.kind = q.kind AND q.pattern <> ''
                  AND coalesce(r.node_type, r.predicate) = q.tp AND r.signal_pattern = q.pattern)::int AS "samePattern",
              (SELECT count(*) FROM kg_proposals r WHERE r.status = 'rejected' AND r.kind = q.kind
                  AND (r.name_stem = q.stem OR (q.pattern <> '' AND coalesce(r.node_type, r.predicate) = q.tp AND r.signal_pattern = q.pattern)))::int AS total
         FROM jsonb_to_recordset($1::jsonb) AS q(id text, kind text, stem text, tp text, pattern text)`,
      [JSON.stringify(items.map((i) => ({ id: i.proposalId, kind: i.kind, stem: i.stem, tp: i.typeOrPredicate, pattern: i.pattern })))],
    );
  }
}

/** The signals of a relation the wiki's own links state (src/extractors/builtin/builtin.extractor.ts). */
export const LINK_SIGNALS = ['see-also', 'hierarchy'];

/** The pending, visible entity proposal of a signature, if any. */
const PENDING_NODE = (signature: string) => `
  SELECT q.name FROM kg_proposals q
   WHERE q.kind = 'node' AND q.status = 'pending' AND q.signature = ${signature}
     AND EXISTS (SELECT 1 FROM kg_visible_proposals v WHERE v.id = q.id)
   LIMIT 1`;

/** A name with case and runs of `-`, `_` and spaces ignored: the expression of kg_proposals_pending_variant_idx. */
const VARIANT = (column: string) => `lower(regexp_replace(${column}, '[-_[:space:]]+', ' ', 'g'))`;

/** The approved, visible entity a signature names: its own, or one that leads to it (kg_node_signatures). */
const ENTITY_OF = (signature: string) => `
  SELECT n.id, n.name FROM kg_visible_nodes n WHERE n.signature = ${signature}
  UNION ALL
  SELECT n.id, n.name FROM kg_node_signatures ns JOIN kg_visible_nodes n ON n.id = ns.node_id WHERE ns.signature = ${signature}
  LIMIT 1`;
