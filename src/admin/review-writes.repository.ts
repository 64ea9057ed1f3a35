import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { KgOrigin } from '../kg-tables/kg-origin.js';
import { StaleReviewRead, type ActionJournal } from './review-journal.repository.js';
import { returnedRows } from '../db/sql-rows.js';

/** One proposal of an approval or rejection, with the admin's edits already applied. */
export interface BatchItem {
  proposalId: string;
  kind: 'node' | 'edge';
  /** Approved because an edge of the same action needed it. */
  cascade: boolean;
  /** What the extractor proposed (kept as an alias and a signature of the node when the admin renamed it). */
  origSignature: string;
  origName: string | null;
  /** Nodes: what the node will be. */
  signature: string | null;
  name: string | null;
  type: string | null;
  description: string;
  /** Nodes: approve into this existing entity ("merge into"). */
  intoNodeId: string | null;
  /** Edges, after the admin's edits (direction swapped, predicate changed). */
  sourceSignature: string | null;
  predicate: string | null;
  targetSignature: string | null;
}

export interface BatchOutcome {
  proposalId: string;
  kind: 'node' | 'edge';
  cascade: boolean;
  nodeId: string | null;
  edgeId: string | null;
  sourceNodeId: string | null;
  targetNodeId: string | null;
}

// The node a signature leads to: the one that carries it, else the one that took it over (rename, merge).
const RESOLVE = (sig: string) =>
  `coalesce((SELECT n.id FROM kg_nodes n WHERE n.signature = ${sig}), (SELECT ns.node_id FROM kg_node_signatures ns WHERE ns.signature = ${sig}))`;

const BATCH_NODES = `SELECT node_id FROM kg_review_batch WHERE kind = 'node'`;

/**
 * Set-based SQL of approval and rejection, over a temporary table of the action's proposals (kg_review_batch):
 * a thousand proposals cost a handful of statements. Every statement records the rows it may change in the
 * action's journal first (before-images), and the rows it creates after.
 */
@Injectable()
export class ReviewWritesRepository {
  async loadBatch(items: BatchItem[], tx: EntityManager): Promise<void> {
    await tx.query('DROP TABLE IF EXISTS pg_temp.kg_review_batch');
    await tx.query(
      `CREATE TEMP TABLE kg_review_batch (
         proposal_id bigint PRIMARY KEY, kind text NOT NULL, cascade boolean NOT NULL,
         orig_signature text NOT NULL, orig_name text, signature text, name text, node_type text, description text,
         into_node_id bigint, source_signature text, predicate text, target_signature text,
         node_id bigint, edge_id bigint, source_node_id bigint, target_node_id bigint) ON COMMIT DROP`,
    );
    const column = <K extends keyof BatchItem>(key: K) => items.map((i) => i[key]);
    await tx.query(
      `INSERT INTO kg_review_batch (proposal_id, kind, cascade, orig_signature, orig_name, signature, name, node_type,
                                    description, into_node_id, source_signature, predicate, target_signature)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[], $13::text[])`,
      [
        column('proposalId'), column('kind'), column('cascade'), column('origSignature'), column('origName'), column('signature'),
        column('name'), column('type'), column('description'), column('intoNodeId'), column('sourceSignature'), column('predicate'),
        column('targetSignature'),
      ],
    );
  }

  /** Marks the batch's proposals reviewed; only pending ones change (they are locked already). */
  async markReviewed(j: ActionJournal, status: 'approved' | 'rejected', reviewer: string, note: string | null): Promise<number> {
    await j.before('kg_proposals', 't.id IN (SELECT proposal_id FROM kg_review_batch)');
    const rows = returnedRows(await j.tx.query(
      `UPDATE kg_proposals p SET status = $1, reviewed_by = $2, reviewed_at = now(), review_note = $3, updated_at = now()
         FROM kg_review_batch b WHERE p.id = b.proposal_id AND p.status = 'pending' RETURNING p.id`,
      [status, reviewer, note],
    ));
    return rows.length;
  }

  /** Remembers rejected signatures (kg_rejections), so extraction does not propose them again. */
  async rememberRejections(j: ActionJournal, rejectedBy: string, reason: string | null): Promise<void> {
    const scope = '(t.kind, t.signature) IN (SELECT kind, orig_signature FROM kg_review_batch)';
    await j.before('kg_rejections', scope);
    await j.tx.query(
      `INSERT INTO kg_rejections (kind, signature, reason, rejected_by)
       SELECT b.kind, b.orig_signature, $2, $1 FROM kg_review_batch b
       ON CONFLICT (kind, signature) DO UPDATE SET reason = EXCLUDED.reason, rejected_by = EXCLUDED.rejected_by, rejected_at = now()`,
      [rejectedBy, reason],
    );
    await j.created('kg_rejections', scope);
  }

  /**
   * A rejected proposal goes back to the queue, as if never reviewed: pending while a page still supports it, else
   * retired (extraction proposes it again when a page says it). Returns the status it got.
   */
  async reopenProposal(j: ActionJournal, proposalId: string): Promise<'pending' | 'retired'> {
    await j.before('kg_proposals', 't.id = $1', [proposalId]);
    const rows = returnedRows<{ status: 'pending' | 'retired' }>(await j.tx.query(
      `UPDATE kg_proposals p
          SET status = CASE WHEN EXISTS (SELECT 1 FROM kg_proposal_support s WHERE s.proposal_id = p.id) THEN 'pending' ELSE 'retired' END,
              reviewed_by = NULL, reviewed_at = NULL, review_note = NULL, updated_at = now()
        WHERE p.id = $1 AND p.status = 'rejected' RETURNING p.status`,
      [proposalId],
    ));
    return rows[0].status;
  }

  /** Forgets a rejected signature: extraction may propose it again. Returns whether there was one. */
  async forgetRejection(j: ActionJournal, kind: 'node' | 'edge', signature: string): Promise<boolean> {
    await j.before('kg_rejections', 't.kind = $1 AND t.signature = $2', [kind, signature]);
    const rows = returnedRows(await j.tx.query('DELETE FROM kg_rejections WHERE kind = $1 AND signature = $2 RETURNING 1', [kind, signature]));
    return rows.length > 0;
  }

  /**
   * Node proposals become entities: the one they are approved into, an existing one with their signature, or a new
   * one. Then provenance, the original name as an alias (when renamed), mentions linked, co-mention edges derived.
   * Returns the ids of the nodes it created.
   */
  async approveNodes(j: ActionJournal, approver: string, origin: KgOrigin): Promise<string[]> {
    const { tx } = j;
    await tx.query(
      `UPDATE kg_review_batch b SET node_id = coalesce(b.into_node_id, ${RESOLVE('b.signature')}) WHERE b.kind = 'node'`,
    );
    const created: { id: string }[] = await tx.query(
      `INSERT INTO kg_nodes (signature, name, node_type, description, origin, created_by)
       SELECT DISTINCT ON (b.signature) b.signature, b.name, b.node_type, coalesce(b.description, ''), $2, $1
         FROM kg_review_batch b WHERE b.kind = 'node' AND b.node_id IS NULL
        ORDER BY b.signature, b.cascade, b.proposal_id
       ON CONFLICT (signature) DO NOTHING RETURNING id::text AS id`,
      [approver, origin],
    );
    const createdIds = created.map((r) => r.id);
    await j.created('kg_nodes', 't.id = ANY($1::bigint[])', [createdIds]);
    await tx.query(`UPDATE kg_review_batch b SET node_id = n.id FROM kg_nodes n WHERE b.kind = 'node' AND b.node_id IS NULL AND n.signature = b.signature`);
    // The entities joined are recorded once they are known, not before the insert: one that another action created
    // while this one read the signature free (its insert then found the row and did nothing) is joined too, and its
    // aliases change below. The nodes created here are journaled as created already, and keep that record.
    await j.before('kg_nodes', `t.id IN (${BATCH_NODES} AND node_id IS NOT NULL)`);

    // The extractor's name stays findable: as an alias, and its signature leads to the node. So do the other spellings
    // the pages used for it (the mentions' surfaces: `tags`, `Tag`, `web-clipper`) and the other names the extractor
    // gave it (the proposal's aliases: `transclusion` for Embeds), one alias per spelling.
    await tx.query(
      `UPDATE kg_nodes n SET aliases = n.aliases || a.names, updated_at = now()
         FROM (SELECT v.node_id, array_agg(v.name ORDER BY v.name) AS names
                 FROM (SELECT DISTINCT ON (s.node_id, lower(s.name)) s.node_id, s.name
                         FROM (SELECT b.node_id, b.orig_name AS name FROM kg_review_batch b WHERE b.kind = 'node' AND b.orig_name IS NOT NULL
                               UNION ALL
                               SELECT b.node_id, m.surface FROM kg_review_batch b JOIN kg_mentions m ON m.signature = b.orig_signature
                                WHERE b.kind = 'node' AND m.surface IS NOT NULL
                               UNION ALL
                               SELECT b.node_id, a.name FROM kg_review_batch b JOIN kg_proposals p ON p.id = b.proposal_id
                                CROSS JOIN LATERAL unnest(p.aliases) AS a(name) WHERE b.kind = 'node') s
                         JOIN kg_nodes x ON x.id = s.node_id
                        WHERE lower(s.name) <> lower(x.name) AND NOT lower(s.name) = ANY (SELECT lower(a) FROM unnest(x.aliases) a)
                        ORDER BY s.node_id, lower(s.name), s.name) v
                GROUP BY v.node_id) a
        WHERE n.id = a.node_id`,
    );
    const signatures = `t.signature IN (SELECT orig_signature FROM kg_review_batch WHERE kind = 'node')`;
    await j.before('kg_node_signatures', signatures);
    await tx.query(
      `INSERT INTO kg_node_signatures (signature, node_id, reason)
       SELECT b.orig_signature, b.node_id, 'approved_as' FROM kg_review_batch b JOIN kg_nodes n ON n.id = b.node_id
        WHERE b.kind = 'node' AND n.signature <> b.orig_signature
       ON CONFLICT (signature) DO NOTHING`,
    );
    await j.created('kg_node_signatures', signatures);

    const provenance = `t.proposal_id IN (SELECT proposal_id FROM kg_review_batch WHERE kind = 'node')`;
    await j.before('kg_node_provenance', provenance);
    await tx.query(
      `INSERT INTO kg_node_provenance (node_id, proposal_id, approved_by)
       SELECT b.node_id, b.proposal_id, $1 FROM kg_review_batch b WHERE b.kind = 'node'
       ON CONFLICT DO NOTHING`,
      [approver],
    );
    await j.created('kg_node_provenance', provenance);

    // Every mention of the proposal's signature, and one per supporting chunk, now names the node.
    const mentions = `t.signature IN (SELECT orig_signature FROM kg_review_batch WHERE kind = 'node'
                                      UNION SELECT signature FROM kg_review_batch WHERE kind = 'node')`;
    await j.before('kg_mentions', mentions);
    await tx.query(
      `UPDATE kg_mentions m SET node_id = b.node_id FROM kg_review_batch b
        WHERE b.kind = 'node' AND m.node_id IS NULL AND (m.signature = b.orig_signature OR m.signature = b.signature)`,
    );
    await tx.query(
      `INSERT INTO kg_mentions (chunk_id, signature, node_id, surface, confidence)
       SELECT s.chunk_id, b.orig_signature, b.node_id, coalesce(b.orig_name, b.name), s.confidence
         FROM kg_proposal_support s JOIN kg_review_batch b ON b.proposal_id = s.proposal_id WHERE b.kind = 'node'
       ON CONFLICT (chunk_id, signature) DO NOTHING`,
    );
    await j.created('kg_mentions', mentions);

    await this.deriveCoMentions(j, approver, BATCH_NODES);
    return createdIds;
  }

  /**
   * Co-mention edges of the given nodes with every other entity that shares a chunk with them: one edge per pair
   * (source id < target id), weighted by the number of shared chunks.
   */
  async deriveCoMentions(j: ActionJournal, actor: string, nodesSql: string, params: unknown[] = []): Promise<void> {
    const n = params.length;
    // The chunks that mention the nodes are locked first (in id order, a statement of its own): two approvals of
    // entities that share a chunk each saw only their own mentions there, and neither made the pair's edge. The
    // second now waits for the first, and its next statement sees the first one's mentions.
    await j.tx.query(
      `SELECT count(*) FROM (SELECT c.id FROM kg_content_chunks c
                              WHERE c.id IN (SELECT m.chunk_id FROM kg_mentions m WHERE m.node_id IN (${nodesSql}))
                              ORDER BY c.id FOR NO KEY UPDATE OF c) locked`,
      params,
    );
    const scope = `t.kind = 'co_mention' AND (t.source_node_id IN (${nodesSql}) OR t.target_node_id IN (${nodesSql}))`;
    await j.before('kg_edges', scope, params);
    await j.tx.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT least(a.node_id, o.node_id), greatest(a.node_id, o.node_id), 'co_mention', 'co_mention',
              count(DISTINCT a.chunk_id), 'extracted', $${n + 1}
         FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id AND o.node_id IS NOT NULL AND o.node_id <> a.node_id
        WHERE a.node_id IN (${nodesSql})
        GROUP BY 1, 2
       ON CONFLICT (source_node_id, target_node_id, kind, predicate)
       DO UPDATE SET weight = EXCLUDED.weight, updated_at = now() WHERE kg_edges.weight IS DISTINCT FROM EXCLUDED.weight`,
      [...params, actor],
    );
    await j.created('kg_edges', scope, params);
  }

  /** Resolves each edge proposal's endpoints to nodes (after the node proposals of the batch became nodes). */
  async resolveEdgeEndpoints(tx: EntityManager): Promise<{ proposalId: string; sourceNodeId: string | null; targetNodeId: string | null }[]> {
    return returnedRows(await tx.query(
      `UPDATE kg_review_batch b SET source_node_id = ${RESOLVE('b.source_signature')}, target_node_id = ${RESOLVE('b.target_signature')}
        WHERE b.kind = 'edge'
       RETURNING b.proposal_id::text AS "proposalId", b.source_node_id::text AS "sourceNodeId", b.target_node_id::text AS "targetNodeId"`,
    ));
  }

  /** Edge proposals become typed edges (or add provenance to the same edge already there). */
  async approveEdges(j: ActionJournal, approver: string, origin: KgOrigin): Promise<void> {
    const { tx } = j;
    const edges = `t.kind = 'typed' AND (t.source_node_id, t.target_node_id, t.predicate) IN
                   (SELECT source_node_id, target_node_id, predicate FROM kg_review_batch WHERE kind = 'edge')`;
    await j.before('kg_edges', edges);
    await tx.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT DISTINCT ON (b.source_node_id, b.target_node_id, b.predicate) b.source_node_id, b.target_node_id, 'typed', b.predicate, 1, $2, $1
         FROM kg_review_batch b WHERE b.kind = 'edge'
        ORDER BY b.source_node_id, b.target_node_id, b.predicate, b.proposal_id
       ON CONFLICT (source_node_id, target_node_id, kind, predicate) DO NOTHING`,
      [approver, origin],
    );
    await j.created('kg_edges', edges);
    await tx.query(
      `UPDATE kg_review_batch b SET edge_id = e.id FROM kg_edges e
        WHERE b.kind = 'edge' AND e.source_node_id = b.source_node_id AND e.target_node_id = b.target_node_id
          AND e.kind = 'typed' AND e.predicate = b.predicate`,
    );
    const provenance = `t.proposal_id IN (SELECT proposal_id FROM kg_review_batch WHERE kind = 'edge')`;
    await j.before('kg_edge_provenance', provenance);
    await tx.query(
      `INSERT INTO kg_edge_provenance (edge_id, proposal_id, approved_by)
       SELECT b.edge_id, b.proposal_id, $1 FROM kg_review_batch b WHERE b.kind = 'edge' ON CONFLICT DO NOTHING`,
      [approver],
    );
    await j.created('kg_edge_provenance', provenance);
  }

  async outcomes(tx: EntityManager): Promise<BatchOutcome[]> {
    return tx.query(
      `SELECT proposal_id::text AS "proposalId", kind, cascade, node_id::text AS "nodeId", edge_id::text AS "edgeId",
              source_node_id::text AS "sourceNodeId", target_node_id::text AS "targetNodeId"
         FROM kg_review_batch ORDER BY cascade, proposal_id`,
    );
  }

  /** Which of these signatures lead to a node now (own signature first, then one it took over). */
  async resolveSignatures(signatures: string[], tx: EntityManager): Promise<Map<string, string>> {
    if (signatures.length === 0) return new Map();
    const rows: { sig: string; id: string | null }[] = await tx.query(
      `SELECT s.sig, (${RESOLVE('s.sig')})::text AS id FROM unnest($1::text[]) AS s(sig)`,
      [signatures],
    );
    return new Map(rows.filter((r) => r.id !== null).map((r) => [r.sig, r.id!]));
  }

  /**
   * Which of these signatures lead to a node now, with those nodes locked (FOR KEY SHARE) until the action ends. A merge
   * or a delete of one of them (each locks its entities FOR UPDATE first) then waits for this action, so the nodes an
   * approval checks an edge's ends against (two different ones) are the nodes it writes the edge between: read without
   * the lock, a merge of one end into the other that committed in between made the edge a self-loop (“B uses B”). A
   * node merged away or deleted before its lock was granted is gone once it is, and an undo may have moved a
   * signature meanwhile: the signatures are read again until every node they lead to is locked and they still lead
   * there.
   */
  async lockResolvedSignatures(signatures: string[], tx: EntityManager): Promise<Map<string, string>> {
    for (let round = 1; ; round++) {
      const resolved = await this.resolveSignatures(signatures, tx);
      const ids = [...new Set(resolved.values())];
      const locked: { id: string }[] = ids.length === 0 ? [] : await tx.query('SELECT id FROM kg_nodes WHERE id = ANY($1::bigint[]) ORDER BY id FOR KEY SHARE', [ids]);
      if (locked.length === ids.length) {
        const now = await this.resolveSignatures(signatures, tx);
        if (now.size === resolved.size && [...now].every(([sig, id]) => resolved.get(sig) === id)) return now;
      }
      if (round >= 5) throw new StaleReviewRead(`the nodes of signatures ${signatures.join(', ')} kept changing while they were locked`);
    }
  }

  async rejectedSignatures(kind: 'node' | 'edge', signatures: string[], tx: EntityManager): Promise<Set<string>> {
    if (signatures.length === 0) return new Set();
    const rows: { signature: string }[] = await tx.query(
      'SELECT signature FROM kg_rejections WHERE kind = $1 AND signature = ANY($2::text[])',
      [kind, signatures],
    );
    return new Set(rows.map((r) => r.signature));
  }
}
