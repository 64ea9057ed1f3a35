import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { KgOrigin } from '../kg-tables/kg-origin.js';
import type { ActionJournal } from '../admin/review-journal.repository.js';

export interface ExportProvenance {
  proposalId: string;
  approvedBy: string;
  approvedAt: string;
  extractor: string;
  model: string | null;
  confidence: number;
}

export interface ExportNodeRow {
  id: string;
  signature: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
  origin: KgOrigin;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  proposals: ExportProvenance[];
  pages: string[];
  mentions: number;
}

export interface ExportEdgeRow {
  id: string;
  source: string;
  target: string;
  kind: 'typed' | 'co_mention';
  predicate: string;
  weight: number;
  origin: KgOrigin;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  proposals: ExportProvenance[];
  pages: string[];
}

export interface ImportProposalRow {
  kind: 'node' | 'edge';
  signature: string;
  name: string | null;
  type: string | null;
  sourceSignature: string | null;
  sourceName: string | null;
  predicate: string | null;
  targetSignature: string | null;
  targetName: string | null;
  description: string;
  confidence: number;
}

export interface ImportNodeRow {
  key: string;
  signature: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
}

// Timestamps as PostgreSQL writes them in JSON (microseconds kept), so that an export is exact and repeatable.
const TS = (column: string) => `to_json(${column}) #>> '{}'`;
const PROVENANCE = (table: string, column: string, id: string) =>
  `coalesce((SELECT json_agg(json_build_object('proposalId', x.proposal_id::text, 'approvedBy', x.approved_by,
                    'approvedAt', ${TS('x.approved_at')}, 'extractor', p.extractor, 'model', p.model, 'confidence', p.confidence)
                    ORDER BY x.proposal_id)
               FROM ${table} x JOIN kg_proposals p ON p.id = x.proposal_id WHERE x.${column} = ${id}), '[]'::json)`;

/** SQL of export (the visible approved graph, ordered by id, so two exports of the same rows are byte-identical) and import. */
@Injectable()
export class GraphTransferRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async exportNodes(db: EntityManager = this.dataSource.manager): Promise<ExportNodeRow[]> {
    return db.query(
      `SELECT n.id::text AS id, n.signature, n.name, n.node_type AS type, n.aliases, n.description, n.origin,
              n.created_by AS "createdBy", ${TS('n.created_at')} AS "createdAt", ${TS('n.updated_at')} AS "updatedAt",
              ${PROVENANCE('kg_node_provenance', 'node_id', 'n.id')} AS proposals,
              coalesce((SELECT array_agg(DISTINCT pg.slug ORDER BY pg.slug) FROM kg_node_support_pages sp
                          JOIN kg_visible_pages pg ON pg.id = sp.page_id WHERE sp.node_id = n.id), '{}') AS pages,
              (SELECT count(*) FROM kg_visible_mentions m WHERE m.node_id = n.id)::int AS mentions
         FROM kg_visible_nodes n ORDER BY n.id`,
    );
  }

  async exportEdges(db: EntityManager = this.dataSource.manager): Promise<ExportEdgeRow[]> {
    return db.query(
      `SELECT e.id::text AS id, e.source_node_id::text AS source, e.target_node_id::text AS target, e.kind, e.predicate,
              e.weight, e.origin, e.created_by AS "createdBy", ${TS('e.created_at')} AS "createdAt", ${TS('e.updated_at')} AS "updatedAt",
              ${PROVENANCE('kg_edge_provenance', 'edge_id', 'e.id')} AS proposals,
              coalesce((SELECT array_agg(DISTINCT pg.slug ORDER BY pg.slug) FROM kg_edge_provenance x
                          JOIN kg_proposal_support s ON s.proposal_id = x.proposal_id
                          JOIN kg_visible_pages pg ON pg.id = s.page_id WHERE x.edge_id = e.id), '{}') AS pages
         FROM kg_visible_edges e ORDER BY e.id`,
    );
  }

  /** Signatures that are already a node, a pending proposal, or rejected. */
  async signatureStates(kind: 'node' | 'edge', signatures: string[], db: EntityManager): Promise<Map<string, 'node' | 'pending' | 'rejected'>> {
    const states = new Map<string, 'node' | 'pending' | 'rejected'>();
    if (signatures.length === 0) return states;
    const rows: { sig: string; state: 'node' | 'pending' | 'rejected' }[] = await db.query(
      `SELECT s.sig,
              CASE WHEN $1 = 'node' AND (EXISTS (SELECT 1 FROM kg_nodes n WHERE n.signature = s.sig)
                                         OR EXISTS (SELECT 1 FROM kg_node_signatures ns WHERE ns.signature = s.sig)) THEN 'node'
                   WHEN EXISTS (SELECT 1 FROM kg_proposals p WHERE p.kind = $1 AND p.signature = s.sig AND p.status = 'pending') THEN 'pending'
                   WHEN EXISTS (SELECT 1 FROM kg_rejections r WHERE r.kind = $1 AND r.signature = s.sig) THEN 'rejected'
              END AS state
         FROM unnest($2::text[]) AS s(sig)`,
      [kind, signatures],
    );
    for (const row of rows) if (row.state) states.set(row.sig, row.state);
    return states;
  }

  /** The node each of these signatures leads to (its own, or one it was merged into or renamed to), where one does. */
  async nodeIdsOf(signatures: string[], db: EntityManager): Promise<Map<string, string>> {
    if (signatures.length === 0) return new Map();
    const rows: { signature: string; id: string | null }[] = await db.query(
      `SELECT s.sig AS signature, coalesce((SELECT n.id FROM kg_nodes n WHERE n.signature = s.sig),
                                           (SELECT ns.node_id FROM kg_node_signatures ns WHERE ns.signature = s.sig))::text AS id
         FROM unnest($1::text[]) AS s(sig)`,
      [signatures],
    );
    return new Map(rows.filter((r) => r.id !== null).map((r) => [r.signature, r.id!]));
  }

  /** Inserts pending proposals (no page support: they came from a file); a signature already pending is skipped. */
  async insertProposals(j: ActionJournal, rows: ImportProposalRow[], extractor: string): Promise<number> {
    if (rows.length === 0) return 0;
    const created: { id: string }[] = await j.tx.query(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, source_signature, source_name, predicate, target_signature,
                                 target_name, description, confidence, extractor)
       SELECT x.kind, x.signature, x.name, x.type, x."sourceSignature", x."sourceName", x.predicate, x."targetSignature",
              x."targetName", x.description, x.confidence, $2
         FROM jsonb_to_recordset($1::jsonb) AS x(kind text, signature text, name text, type text, "sourceSignature" text,
              "sourceName" text, predicate text, "targetSignature" text, "targetName" text, description text, confidence real)
       ON CONFLICT (kind, signature) WHERE status = 'pending' DO NOTHING
       RETURNING id::text AS id`,
      [JSON.stringify(rows), extractor],
    );
    await j.created('kg_proposals', 't.id = ANY($1::bigint[])', [created.map((r) => r.id)]);
    return created.length;
  }

  /** Inserts approved nodes (origin import); returns the node each of `signatures` leads to, new or already there. */
  async insertNodes(j: ActionJournal, rows: ImportNodeRow[], signatures: string[], createdBy: string): Promise<Map<string, string>> {
    const created: { id: string }[] = await j.tx.query(
      `INSERT INTO kg_nodes (signature, name, node_type, aliases, description, origin, created_by)
       SELECT x.signature, x.name, x.type, x.aliases, x.description, 'import', $2
         FROM jsonb_to_recordset($1::jsonb) AS x(signature text, name text, type text, aliases text[], description text)
       ON CONFLICT (signature) DO NOTHING
       RETURNING id::text AS id`,
      [JSON.stringify(rows), createdBy],
    );
    await j.created('kg_nodes', 't.id = ANY($1::bigint[])', [created.map((r) => r.id)]);
    return this.nodeIdsOf(signatures, j.tx);
  }

  /** Inserts approved typed edges (origin import); an edge already there is kept. Returns how many were new. */
  async insertEdges(j: ActionJournal, rows: { source: string; target: string; predicate: string; weight: number }[], createdBy: string): Promise<number> {
    if (rows.length === 0) return 0;
    const created: { id: string }[] = await j.tx.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT x.source, x.target, 'typed', x.predicate, x.weight, 'import', $2
         FROM jsonb_to_recordset($1::jsonb) AS x(source bigint, target bigint, predicate text, weight real)
       ON CONFLICT (source_node_id, target_node_id, kind, predicate) DO NOTHING
       RETURNING id::text AS id`,
      [JSON.stringify(rows), createdBy],
    );
    await j.created('kg_edges', 't.id = ANY($1::bigint[])', [created.map((r) => r.id)]);
    return created.length;
  }
}
