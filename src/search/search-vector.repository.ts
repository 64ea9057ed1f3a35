import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { visibleOnly } from './search-graph.repository.js';
import { pageFilterSql, type SearchFilters } from './search.repository.js';
import { vectorText } from '../db/vector-text.js';

export interface ChunkNeighbour {
  chunkId: string;
  pageId: string;
  similarity: number;
}

export interface EntityNeighbour {
  nodeId: string;
  similarity: number;
}

/**
 * How the HNSW graph is built: 8 neighbours per node (pgvector's default is 16) and 64 candidates while inserting.
 * Measured with bench/vector-index.mjs (14,000 Markdown paragraphs, the built-in embedder; bench/RESULTS.md,
 * 2026-11-30): inserting a vector costs 0.63 ms instead of 1.75 ms (extraction inserts every new chunk), and with
 * the wider search below (ef_search 300 instead of 60 for 60 rows) a query finds more of the true nearest chunks
 * than before (recall 0.90 instead of 0.84) for about 1.5 ms more per query.
 */
export const HNSW_BUILD = { m: 8, efConstruction: 64 } as const;

/** Candidates the HNSW scan keeps: five per wanted row, at least 300 and at most pgvector's 1,000. */
export function efSearch(limit: number): number {
  return Math.max(300, Math.min(1000, limit * 5));
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The SQL of vector search: k nearest chunks by cosine distance through a pgvector HNSW index. Vectors of any model
 * share one column of no fixed size, so each (model, dimension) gets a partial expression index of its own, created
 * once the model is known; queries name the model and size as literals so that the planner can pick that index.
 */
@Injectable()
export class SearchVectorRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The index name of one model and size (models are free text; a hash keeps the name short and safe). It names the
   * build parameters too, so that an index built with other ones is replaced (see ensureIndex).
   */
  static indexName(model: string, dims: number): string {
    return `${SearchVectorRepository.namePrefix(model, dims)}_m${HNSW_BUILD.m}_idx`;
  }

  private static namePrefix(model: string, dims: number): string {
    return `kg_content_chunks_embedding_${dims}_${createHash('sha1').update(model).digest('hex').slice(0, 10)}`;
  }

  /**
   * Creates the HNSW index for chunks embedded with this model and size, if it is missing. Several processes may
   * boot at once: an advisory lock makes them take turns, and IF NOT EXISTS makes the later ones no-ops.
   */
  async ensureIndex(model: string, dims: number): Promise<void> {
    if (!Number.isInteger(dims) || dims < 1 || dims > 16_000) throw new Error(`Cannot index ${dims}-dimensional vectors of ${model}`);
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('kurate:search-vector-index'))`);
      const name = SearchVectorRepository.indexName(model, dims);
      await tx.query(
        `CREATE INDEX IF NOT EXISTS ${name} ON kg_content_chunks
           USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) WITH (m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction})
           WHERE embedding_model = ${literal(model)} AND embedding_dims = ${dims}`,
      );
      // An index of this model and size built with earlier parameters (before 0.1: m = 16, named without `_m…`).
      const older: { name: string }[] = await tx.query(
        `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'kg_content_chunks'
            AND indexname <> $1 AND (indexname = $2 OR indexname LIKE $3)`,
        [name, `${SearchVectorRepository.namePrefix(model, dims)}_idx`, `${SearchVectorRepository.namePrefix(model, dims)}\\_m%\\_idx`],
      );
      for (const index of older) await tx.query(`DROP INDEX ${index.name}`);
    });
  }

  private iterativeScan: Promise<boolean> | null = null;

  /** pgvector 0.8 can go on scanning an HNSW index when filters drop rows; older versions reject the setting. */
  private hasIterativeScan(): Promise<boolean> {
    this.iterativeScan ??= this.dataSource
      .query(`SELECT string_to_array(extversion, '.')::int[] >= '{0,8}'::int[] AS ok FROM pg_extension WHERE extname = 'vector'`)
      .then((rows: { ok: boolean }[]) => rows[0]?.ok === true);
    return this.iterativeScan;
  }

  /** The size of the vectors stored for this model, if any chunk has one. */
  async storedDimensions(model: string): Promise<number | null> {
    const rows: { dims: number }[] = await this.dataSource.query(
      `SELECT embedding_dims AS dims FROM kg_content_chunks WHERE embedding_model = $1 AND embedding_dims IS NOT NULL LIMIT 1`,
      [model],
    );
    return rows[0]?.dims ?? null;
  }

  /**
   * The `limit` chunks closest to the vector among chunks of this model on live pages (visible ones only unless
   * `includeExcluded`), closest first. The HNSW scan is iterative (pgvector ≥ 0.8), so chunks filtered out
   * afterwards do not leave the list short.
   */
  async nearestChunks(model: string, vector: readonly number[], limit: number, filters: SearchFilters, includeExcluded: boolean): Promise<ChunkNeighbour[]> {
    const dims = vector.length;
    const chunks = includeExcluded ? 'kg_content_chunks' : 'kg_visible_chunks';
    const filter = pageFilterSql(filters, 3);
    // Asked before the transaction: the embedded database has a single connection, which the transaction holds.
    const iterative = await this.hasIterativeScan();
    return this.dataSource.transaction(async (tx) => {
      await tx.query(`SET LOCAL hnsw.ef_search = ${efSearch(limit)}`);
      if (iterative) await tx.query(`SET LOCAL hnsw.iterative_scan = strict_order`);
      const rows: ChunkNeighbour[] = await tx.query(
        `SELECT c.id::text AS "chunkId", c.page_id AS "pageId", (1 - (c.embedding::vector(${dims}) <=> $1::vector(${dims})))::float8 AS similarity
           FROM ${chunks} c
          WHERE c.embedding_model = ${literal(model)} AND c.embedding_dims = ${dims}
            AND EXISTS (SELECT 1 FROM pages p WHERE p.id = c.page_id AND p.deleted_at IS NULL AND ${filter.sql})
          ORDER BY c.embedding::vector(${dims}) <=> $1::vector(${dims})
          LIMIT $2`,
        [vectorText(vector), limit, ...filter.params],
      );
      return rows;
    });
  }

  /** Visible entities whose vector (of this model) is at least `threshold` close to the query's, closest first. */
  nearestEntities(model: string, vector: readonly number[], threshold: number, limit: number, includeExcluded: boolean): Promise<EntityNeighbour[]> {
    return this.dataSource.query(
      `SELECT s.node_id::text AS "nodeId", s.similarity FROM (
         SELECT e.node_id, (1 - (e.embedding <=> $1::vector))::float8 AS similarity
           FROM kg_node_embeddings e WHERE e.model = $2 AND e.dims = $3
          ORDER BY e.embedding <=> $1::vector LIMIT $5 * 4) s
         ${visibleOnly('kg_visible_nodes', 's.node_id', includeExcluded)}
        WHERE s.similarity >= $4
        ORDER BY s.similarity DESC, s.node_id LIMIT $5`,
      [vectorText(vector), model, vector.length, threshold, limit],
    );
  }
}
