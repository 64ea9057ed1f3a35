import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { vectorText } from '../db/vector-text.js';

export interface NodeToEmbed {
  id: string;
  name: string;
  type: string;
  description: string;
  aliases: string[];
}

export interface ChunkToEmbed {
  id: string;
  title: string;
  cluster: string | null;
  headingPath: string[];
  text: string;
}

/** SQL of embeddings: entity vectors (kg_node_embeddings) and re-embedding chunks after the embedding model changed. */
@Injectable()
export class KgEmbeddingRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  nodes(ids: string[], db: EntityManager = this.dataSource.manager): Promise<NodeToEmbed[]> {
    return db.query(
      `SELECT id::text AS id, name, node_type AS type, description, aliases FROM kg_nodes WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
  }

  async saveNodeEmbeddings(rows: { nodeId: string; model: string; embedding: number[] }[], db: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO kg_node_embeddings (node_id, model, dims, embedding)
       SELECT x.node_id, x.model, vector_dims(x.embedding::vector), x.embedding::vector
         FROM jsonb_to_recordset($1::jsonb) AS x(node_id bigint, model text, embedding text)
        WHERE EXISTS (SELECT 1 FROM kg_nodes n WHERE n.id = x.node_id)
       ON CONFLICT (node_id, model) DO UPDATE SET dims = EXCLUDED.dims, embedding = EXCLUDED.embedding, created_at = now()`,
      [JSON.stringify(rows.map((r) => ({ node_id: r.nodeId, model: r.model, embedding: vectorText(r.embedding) })))],
    );
  }

  async saveChunkEmbeddings(rows: { id: string; embedding: number[] }[], model: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE kg_content_chunks c SET embedding = x.embedding::vector, embedding_model = $2, embedding_dims = vector_dims(x.embedding::vector),
              updated_at = now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, embedding text) WHERE c.id = x.id`,
      [JSON.stringify(rows.map((r) => ({ id: r.id, embedding: vectorText(r.embedding) }))), model],
    );
  }

  /** Chunks of included pages whose vector is missing or from another model, in id order after `afterId`. */
  chunksToReembed(model: string, afterId: string, limit: number): Promise<ChunkToEmbed[]> {
    return this.dataSource.query(
      `SELECT c.id::text AS id, p.title, p.cluster, c.heading_path AS "headingPath", c.text
         FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id
        WHERE c.id > $2 AND c.embedding_model IS DISTINCT FROM $1
          AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id)
        ORDER BY c.id LIMIT $3`,
      [model, afterId, limit],
    );
  }

  /** Nodes with no vector from this model, in id order after `afterId`. */
  async nodesToReembed(model: string, afterId: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT n.id::text AS id FROM kg_nodes n
        WHERE n.id > $2 AND NOT EXISTS (SELECT 1 FROM kg_node_embeddings e WHERE e.node_id = n.id AND e.model = $1)
        ORDER BY n.id LIMIT $3`,
      [model, afterId, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Once every node has a vector from the current model, the older models' vectors go. */
  async dropOtherModels(model: string): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM kg_node_embeddings e WHERE e.model <> $1
            AND NOT EXISTS (SELECT 1 FROM kg_nodes n WHERE NOT EXISTS (SELECT 1 FROM kg_node_embeddings c WHERE c.node_id = n.id AND c.model = $1))
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [model],
    );
    return rows[0].n;
  }

  /** Is anything embedded with another model (or not at all)? */
  async needsReembedding(model: string): Promise<boolean> {
    const rows: { needed: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.embedding_model IS DISTINCT FROM $1
                         AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages x WHERE x.page_id = c.page_id))
           OR EXISTS (SELECT 1 FROM kg_nodes n WHERE NOT EXISTS (SELECT 1 FROM kg_node_embeddings e WHERE e.node_id = n.id AND e.model = $1))
           OR EXISTS (SELECT 1 FROM kg_node_embeddings e WHERE e.model <> $1) AS needed`,
      [model],
    );
    return rows[0].needed;
  }
}
