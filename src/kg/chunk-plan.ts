import type { AnchoredChunk } from './page-chunks.js';

export interface StoredChunk {
  id: string;
  contentHash: string;
  position: number;
  anchor: string | null;
}

export interface ChunkPlan {
  /**
   * Stored chunks that stay (same content hash), with their new position and section anchor; `moved` when either
   * changed (an edit above them can renumber a repeated heading's anchor without touching their text).
   */
  keep: { id: string; position: number; anchor: string | null; moved: boolean }[];
  /** Stored chunks whose content is gone from the page. */
  remove: string[];
  /** New chunks to store. */
  add: AnchoredChunk[];
  /** The distinct content hashes among `add`: each costs one extraction call. */
  extract: string[];
}

/**
 * What a re-chunked page changes: a stored chunk whose hash is still in the page stays (only its position or anchor
 * may move); the others go; chunks whose hash is new are added, and only those are extracted. Identical chunks in
 * one page are matched one to one.
 */
export function planChunks(chunks: readonly AnchoredChunk[], stored: readonly StoredChunk[]): ChunkPlan {
  const available = new Map<string, StoredChunk[]>();
  for (const row of [...stored].sort((a, b) => a.position - b.position)) {
    const list = available.get(row.contentHash) ?? [];
    list.push(row);
    available.set(row.contentHash, list);
  }
  const keep: ChunkPlan['keep'] = [];
  const add: AnchoredChunk[] = [];
  for (const chunk of chunks) {
    const match = available.get(chunk.contentHash)?.shift();
    if (match) {
      keep.push({ id: match.id, position: chunk.position, anchor: chunk.anchor, moved: match.position !== chunk.position || match.anchor !== chunk.anchor });
    } else {
      add.push(chunk);
    }
  }
  const remove = [...available.values()].flat().map((row) => row.id);
  const extract = [...new Set(add.map((chunk) => chunk.contentHash))];
  return { keep, remove, add, extract };
}
