import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { KgOrigin } from '../kg-tables/kg-origin.js';
import type { ActionJournal } from './review-journal.repository.js';
import { returnedRows } from '../db/sql-rows.js';
import { ENTITY_TYPES } from '../extractors/extraction.types.js';
import { mentionForms } from '../kg/mention-forms.js';

export interface LockedNode {
  id: string;
  signature: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
  origin: KgOrigin;
}

export interface LockedEdge {
  id: string;
  sourceNodeId: string;
  targetNodeId: string;
  kind: 'typed' | 'co_mention';
  predicate: string;
  weight: number;
  sourceSignature: string;
  targetSignature: string;
}

export interface NodeWrite {
  signature: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
}

export interface DeleteImpact {
  typedEdges: number;
  coMentionEdges: number;
  mentions: number;
  approvedProposals: number;
}

const NODE_COLUMNS = `n.id::text AS id, n.signature, n.name, n.node_type AS type, n.aliases, n.description, n.origin`;
const EDGE_COLUMNS = `e.id::text AS id, e.source_node_id::text AS "sourceNodeId", e.target_node_id::text AS "targetNodeId",
  e.kind, e.predicate, e.weight, s.signature AS "sourceSignature", t.signature AS "targetSignature"`;

/**
 * Set-based SQL of curation: create, edit, delete and merge entities; create, edit and delete edges. Every statement
 * records the rows it may change in the action's journal first, and the rows it creates after.
 */
@Injectable()
export class CurationWritesRepository {
  async lockNodes(ids: string[], tx: EntityManager): Promise<LockedNode[]> {
    return tx.query(`SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.id = ANY($1::bigint[]) ORDER BY n.id FOR UPDATE`, [ids]);
  }

  async nodeIdBySignature(signature: string, tx: EntityManager): Promise<string | null> {
    const rows: { id: string }[] = await tx.query('SELECT id::text AS id FROM kg_nodes WHERE signature = $1', [signature]);
    return rows[0]?.id ?? null;
  }

  async lockEdge(id: string, tx: EntityManager): Promise<LockedEdge | null> {
    const rows: LockedEdge[] = await tx.query(
      `SELECT ${EDGE_COLUMNS} FROM kg_edges e JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
        WHERE e.id = $1 FOR UPDATE OF e`,
      [id],
    );
    return rows[0] ?? null;
  }

  async edgeIdByKey(sourceId: string, targetId: string, kind: string, predicate: string, tx: EntityManager): Promise<string | null> {
    const rows: { id: string }[] = await tx.query(
      'SELECT id::text AS id FROM kg_edges WHERE source_node_id = $1 AND target_node_id = $2 AND kind = $3 AND predicate = $4',
      [sourceId, targetId, kind, predicate],
    );
    return rows[0]?.id ?? null;
  }

  async createNode(j: ActionJournal, node: NodeWrite, origin: KgOrigin, createdBy: string): Promise<string> {
    const rows: { id: string }[] = await j.tx.query(
      `INSERT INTO kg_nodes (signature, name, node_type, aliases, description, origin, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
      [node.signature, node.name, node.type, node.aliases, node.description, origin, createdBy],
    );
    await j.created('kg_nodes', 't.id = $1', [rows[0].id]);
    return rows[0].id;
  }

  /**
   * Links the unlinked mentions that name the entity by a form of its name or of a synonym (case, plural, hyphens,
   * any type), as extraction links a new page's mentions and `kurate kg check` expects; a form another entity holds
   * too links nothing. Journaled: undoing the act that named the entity unlinks them again. Returns how many.
   * Several entities at once (an import) read the forms once.
   */
  async linkMentionsNamed(j: ActionJournal, nodeIds: string | readonly string[]): Promise<number> {
    const wanted = new Set(typeof nodeIds === 'string' ? [nodeIds] : nodeIds);
    if (wanted.size === 0) return 0;
    const forms = await mentionForms(j.tx);
    const signatures: string[] = [];
    const nodes: string[] = [];
    forms.forms.forEach((form, i) => {
      const node = forms.nodes[i];
      if (node === null || !wanted.has(node)) return;
      for (const type of ENTITY_TYPES) {
        signatures.push(`${form}|${type}`);
        nodes.push(node);
      }
    });
    if (signatures.length === 0) return 0;
    const named = 't.node_id IS NULL AND t.signature = ANY($1::text[])';
    await j.before('kg_mentions', named, [signatures]);
    return returnedRows(
      await j.tx.query(
        `UPDATE kg_mentions t SET node_id = x.node_id FROM unnest($1::text[], $2::bigint[]) AS x(signature, node_id)
          WHERE t.node_id IS NULL AND t.signature = x.signature RETURNING 1`,
        [signatures, nodes],
      ),
    ).length;
  }

  /** Edits an entity; a new signature leaves the old one leading to it (reason `renamed`). */
  async updateNode(j: ActionJournal, current: LockedNode, next: NodeWrite): Promise<void> {
    const { tx } = j;
    await j.before('kg_nodes', 't.id = $1', [current.id]);
    await tx.query(
      `UPDATE kg_nodes SET signature = $2, name = $3, node_type = $4, aliases = $5, description = $6, updated_at = now() WHERE id = $1`,
      [current.id, next.signature, next.name, next.type, next.aliases, next.description],
    );
    if (next.signature === current.signature) return;
    const scope = 't.signature IN ($1, $2)';
    await j.before('kg_node_signatures', scope, [current.signature, next.signature]);
    await tx.query('DELETE FROM kg_node_signatures WHERE signature = $1 AND node_id = $2', [next.signature, current.id]);
    await tx.query(
      `INSERT INTO kg_node_signatures (signature, node_id, reason) VALUES ($1, $2, 'renamed')
       ON CONFLICT (signature) DO UPDATE SET node_id = EXCLUDED.node_id, reason = EXCLUDED.reason, created_at = now()`,
      [current.signature, current.id],
    );
    await j.created('kg_node_signatures', scope, [current.signature, next.signature]);
  }

  async deleteImpact(nodeId: string, tx: EntityManager): Promise<DeleteImpact> {
    const rows: DeleteImpact[] = await tx.query(
      `SELECT (SELECT count(*) FROM kg_edges e WHERE e.kind = 'typed' AND (e.source_node_id = $1 OR e.target_node_id = $1))::int AS "typedEdges",
              (SELECT count(*) FROM kg_edges e WHERE e.kind = 'co_mention' AND (e.source_node_id = $1 OR e.target_node_id = $1))::int AS "coMentionEdges",
              (SELECT count(*) FROM kg_mentions m WHERE m.node_id = $1)::int AS mentions,
              (SELECT count(*) FROM kg_node_provenance p WHERE p.node_id = $1)::int AS "approvedProposals"`,
      [nodeId],
    );
    return rows[0];
  }

  /** Records everything that hangs off these nodes, before a delete or a merge changes it. */
  async journalNodeNeighbourhood(j: ActionJournal, nodeIds: string[]): Promise<void> {
    const p = [nodeIds];
    await j.before('kg_nodes', 't.id = ANY($1::bigint[])', p);
    await j.before('kg_node_signatures', 't.node_id = ANY($1::bigint[]) OR t.signature IN (SELECT signature FROM kg_nodes WHERE id = ANY($1::bigint[]))', p);
    await j.before('kg_node_embeddings', 't.node_id = ANY($1::bigint[])', p);
    await j.before('kg_node_provenance', 't.node_id = ANY($1::bigint[])', p);
    await j.before('kg_edges', 't.source_node_id = ANY($1::bigint[]) OR t.target_node_id = ANY($1::bigint[])', p);
    await j.before(
      'kg_edge_provenance',
      't.edge_id IN (SELECT id FROM kg_edges WHERE source_node_id = ANY($1::bigint[]) OR target_node_id = ANY($1::bigint[]))',
      p,
    );
    await j.before('kg_mentions', 't.node_id = ANY($1::bigint[])', p);
  }

  /** Deletes a node: its edges, provenance, embeddings and signatures go with it; its mentions stay, unlinked. */
  async deleteNode(j: ActionJournal, nodeId: string): Promise<void> {
    await this.journalNodeNeighbourhood(j, [nodeId]);
    await j.tx.query('DELETE FROM kg_nodes WHERE id = $1', [nodeId]);
  }

  /**
   * Merges `from` into `into`: aliases and description given by the caller; signatures, provenance and mentions
   * move; edges are re-pointed, and those that would duplicate an edge of `into` (or join it to itself) collapse
   * into it (their provenance moves to the edge that stays). The caller then recomputes `into`'s co-mentions.
   */
  async mergeNodes(j: ActionJournal, from: LockedNode, into: LockedNode, aliases: string[], description: string): Promise<{ edgesRepointed: number; edgesCollapsed: number; mentionsMoved: number }> {
    const { tx } = j;
    const ids = [from.id, into.id];
    // Their edges are locked first (a statement of its own, in id order): a merge of the entity at an edge's other end,
    // or a swap of its direction, that commits meanwhile is then what this merge reads and copies, never overwritten
    // with the end it had before.
    await tx.query(
      `SELECT count(*) FROM (SELECT e.id FROM kg_edges e WHERE e.source_node_id = ANY($1::bigint[]) OR e.target_node_id = ANY($1::bigint[])
                              ORDER BY e.id FOR UPDATE) locked`,
      [ids],
    );
    await this.journalNodeNeighbourhood(j, ids);
    await tx.query('UPDATE kg_nodes SET aliases = $2, description = $3, updated_at = now() WHERE id = $1', [into.id, aliases, description]);
    await tx.query(`UPDATE kg_node_signatures SET node_id = $2, reason = 'merged' WHERE node_id = $1`, [from.id, into.id]);
    await tx.query(
      `INSERT INTO kg_node_signatures (signature, node_id, reason) VALUES ($1, $2, 'merged')
       ON CONFLICT (signature) DO UPDATE SET node_id = EXCLUDED.node_id, reason = EXCLUDED.reason`,
      [from.signature, into.id],
    );
    await tx.query(
      `INSERT INTO kg_node_provenance (node_id, proposal_id, approved_by, approved_at)
       SELECT $2, proposal_id, approved_by, approved_at FROM kg_node_provenance WHERE node_id = $1 ON CONFLICT DO NOTHING`,
      ids,
    );
    const moved = returnedRows(await tx.query('UPDATE kg_mentions SET node_id = $2 WHERE node_id = $1 RETURNING 1', ids));

    await tx.query('DROP TABLE IF EXISTS pg_temp.kg_merge_edges');
    await tx.query(
      `CREATE TEMP TABLE kg_merge_edges ON COMMIT DROP AS
         SELECT e.id, e.kind, e.predicate, e.weight,
                CASE WHEN e.source_node_id = $1 THEN $2 ELSE e.source_node_id END AS s,
                CASE WHEN e.target_node_id = $1 THEN $2 ELSE e.target_node_id END AS t
           FROM kg_edges e WHERE e.source_node_id = $1 OR e.target_node_id = $1`,
      ids,
    );
    // A co-mention runs from the smaller id to the larger.
    await tx.query(`UPDATE kg_merge_edges SET s = least(s, t), t = greatest(s, t) WHERE kind = 'co_mention'`);
    const survivor = `x.source_node_id = m.s AND x.target_node_id = m.t AND x.kind = m.kind AND x.predicate = m.predicate AND x.id <> m.id`;
    await tx.query(
      `INSERT INTO kg_edge_provenance (edge_id, proposal_id, approved_by, approved_at)
       SELECT x.id, p.proposal_id, p.approved_by, p.approved_at
         FROM kg_merge_edges m JOIN kg_edges x ON ${survivor} JOIN kg_edge_provenance p ON p.edge_id = m.id
       ON CONFLICT DO NOTHING`,
    );
    await tx.query(
      `UPDATE kg_edges x SET weight = m.weight, updated_at = now()
         FROM kg_merge_edges m WHERE m.kind = 'typed' AND ${survivor} AND m.weight > x.weight`,
    );
    const collapsed = returnedRows(await tx.query(
      `DELETE FROM kg_edges e USING kg_merge_edges m
        WHERE e.id = m.id AND (m.s = m.t OR EXISTS (SELECT 1 FROM kg_edges x WHERE ${survivor}))
       RETURNING 1`,
    ));
    const repointed = returnedRows(await tx.query(
      `UPDATE kg_edges e SET source_node_id = m.s, target_node_id = m.t, updated_at = now()
         FROM kg_merge_edges m WHERE e.id = m.id RETURNING 1`,
    ));
    await tx.query('DELETE FROM kg_nodes WHERE id = $1', [from.id]);
    // Rows the merge created (provenance and signatures moved to `into`) are journaled as created.
    await j.created('kg_node_signatures', 't.node_id = $1', [into.id]);
    await j.created('kg_node_provenance', 't.node_id = $1', [into.id]);
    await j.created('kg_edge_provenance', 't.edge_id IN (SELECT id FROM kg_edges WHERE source_node_id = $1 OR target_node_id = $1)', [into.id]);
    return { edgesRepointed: repointed.length, edgesCollapsed: collapsed.length, mentionsMoved: moved.length };
  }

  async createEdge(j: ActionJournal, sourceId: string, targetId: string, predicate: string, origin: KgOrigin, createdBy: string, weight = 1): Promise<string> {
    const rows: { id: string }[] = await j.tx.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       VALUES ($1, $2, 'typed', $3, $4, $5, $6) RETURNING id::text AS id`,
      [sourceId, targetId, predicate, weight, origin, createdBy],
    );
    await j.created('kg_edges', 't.id = $1', [rows[0].id]);
    return rows[0].id;
  }

  async updateEdge(j: ActionJournal, id: string, next: { sourceNodeId: string; targetNodeId: string; predicate: string; weight: number }): Promise<void> {
    await j.before('kg_edges', 't.id = $1', [id]);
    await j.tx.query(
      'UPDATE kg_edges SET source_node_id = $2, target_node_id = $3, predicate = $4, weight = $5, updated_at = now() WHERE id = $1',
      [id, next.sourceNodeId, next.targetNodeId, next.predicate, next.weight],
    );
  }

  async deleteEdge(j: ActionJournal, id: string): Promise<void> {
    await j.before('kg_edges', 't.id = $1', [id]);
    await j.before('kg_edge_provenance', 't.edge_id = $1', [id]);
    await j.tx.query('DELETE FROM kg_edges WHERE id = $1', [id]);
  }

  async rememberRejection(j: ActionJournal, kind: 'node' | 'edge', signature: string, reason: string | null, rejectedBy: string): Promise<void> {
    const scope = 't.kind = $1 AND t.signature = $2';
    await j.before('kg_rejections', scope, [kind, signature]);
    await j.tx.query(
      `INSERT INTO kg_rejections (kind, signature, reason, rejected_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, signature) DO UPDATE SET reason = EXCLUDED.reason, rejected_by = EXCLUDED.rejected_by, rejected_at = now()`,
      [kind, signature, reason, rejectedBy],
    );
    await j.created('kg_rejections', scope, [kind, signature]);
  }

  /** Records the embeddings of these nodes before an embedding hook writes them, and after. */
  async journalEmbeddings(j: ActionJournal, nodeIds: string[], write: () => Promise<void>): Promise<void> {
    const scope = 't.node_id = ANY($1::bigint[])';
    await j.before('kg_node_embeddings', scope, [nodeIds]);
    await write();
    await j.created('kg_node_embeddings', scope, [nodeIds]);
  }
}
