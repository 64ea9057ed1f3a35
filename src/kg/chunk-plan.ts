import type { Chunk } from './chunker.js';

export interface StoredChunk {
  id: string;
  contentHash: string;
  position: number;
}

export interface ChunkPlan {
  /** Stored chunks that stay (same content hash), with their new position. */
  keep: { id: string; position: number; moved: boolean }[];
  /** Stored chunks whose content is gone from the page. */
  remove: string[];
  /** New chunks to store. */
  add: Chunk[];
  /** The distinct content hashes among `add`: each costs one extraction call. */
  extract: string[];
}

/**
 * What a re-chunked page changes: a stored chunk whose hash is still in the page stays (only its position may move);
 * the others go; chunks whose hash is new are added, and only those are extracted. Identical chunks in one page are
 * matched one to one.
 */
export function planChunks(chunks: readonly Chunk[], stored: readonly StoredChunk[]): ChunkPlan {
  const available = new Map<string, StoredChunk[]>();
  for (const row of [...stored].sort((a, b) => a.position - b.position)) {
    const list = available.get(row.contentHash) ?? [];
    list.push(row);
    available.set(row.contentHash, list);
  }
  const keep: ChunkPlan['keep'] = [];
  const add: Chunk[] = [];
  for (const chunk of chunks) {
    const match = available.get(chunk.contentHash)?.shift();
    if (match) keep.push({ id: match.id, position: chunk.position, moved: match.position !== chunk.position });
    else add.push(chunk);
  }
  const remove = [...available.values()].flat().map((row) => row.id);
  const extract = [...new Set(add.map((chunk) => chunk.contentHash))];
  return { keep, remove, add, extract };
}
