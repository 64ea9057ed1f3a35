import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EMBEDDER, type Embedder } from '../embedders/embedder.js';
import { chunkEmbeddingText, nodeEmbeddingText } from './extraction-source.js';
import { KgEmbeddingRepository } from './kg-embedding.repository.js';

const BATCH = 64;

export interface ReembedOutcome {
  model: string;
  chunks: number;
  nodes: number;
  droppedOldNodeVectors: number;
}

/**
 * Vectors for entities (on approval) and the background re-embedding after the embedding model changed. Each vector
 * records its model and dimension; chunks are embedded by extraction itself (PageExtractionService).
 */
@Injectable()
export class KgEmbeddingService {
  private readonly logger = new Logger('Embeddings');

  constructor(
    private readonly repository: KgEmbeddingRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  get model(): string {
    return this.embedder.model;
  }

  /**
   * Embeds these approved nodes with the current model and stores the vectors. With `tx` (the approval's
   * transaction) the rows are written there, so they commit or roll back with the approval; without, in a
   * transaction of their own.
   */
  async embedNodes(nodeIds: string[], tx?: EntityManager): Promise<void> {
    if (nodeIds.length === 0) return;
    const nodes = await this.repository.nodes(nodeIds, tx);
    for (let i = 0; i < nodes.length; i += BATCH) {
      const batch = nodes.slice(i, i + BATCH);
      const vectors = await this.embedder.embed(batch.map((n) => nodeEmbeddingText(n)));
      const rows = batch.map((n, k) => ({ nodeId: n.id, model: this.embedder.model, embedding: vectors[k] }));
      if (tx) await this.repository.saveNodeEmbeddings(rows, tx);
      else await this.repository.transaction((own) => this.repository.saveNodeEmbeddings(rows, own));
    }
  }

  /** The vector of an entity name in the model nodes are embedded with (for "close embedding" duplicates). */
  async embedName(name: string, type: string): Promise<{ model: string; vector: number[] }> {
    const [vector] = await this.embedder.embed([nodeEmbeddingText({ name, type })]);
    return { model: this.embedder.model, vector };
  }

  needsReembedding(): Promise<boolean> {
    return this.repository.needsReembedding(this.embedder.model);
  }

  /** Brings every chunk of an included page and every node to the current model, batch by batch (each batch commits). */
  async reembedAll(signal?: AbortSignal): Promise<ReembedOutcome> {
    const model = this.embedder.model;
    let chunks = 0;
    for (let after = '0'; ; ) {
      signal?.throwIfAborted();
      const batch = await this.repository.chunksToReembed(model, after, BATCH);
      if (batch.length === 0) break;
      const vectors = await this.embedder.embed(batch.map((c) => chunkEmbeddingText(c, c.text)), signal);
      await this.repository.saveChunkEmbeddings(batch.map((c, k) => ({ id: c.id, embedding: vectors[k] })), model);
      chunks += batch.length;
      after = batch[batch.length - 1].id;
    }
    let nodes = 0;
    for (let after = '0'; ; ) {
      signal?.throwIfAborted();
      const ids = await this.repository.nodesToReembed(model, after, BATCH);
      if (ids.length === 0) break;
      await this.embedNodes(ids);
      nodes += ids.length;
      after = ids[ids.length - 1];
    }
    const droppedOldNodeVectors = await this.repository.dropOtherModels(model);
    this.logger.log(`Re-embedded ${chunks} chunks and ${nodes} entities with ${model}; removed ${droppedOldNodeVectors} vectors of older models`);
    return { model, chunks, nodes, droppedOldNodeVectors };
  }
}
