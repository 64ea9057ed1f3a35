// The contract between the embedders (hashing, Ollama) and those who embed: extraction (node embeddings) and search.

export interface Embedder {
  readonly name: 'builtin' | 'ollama';
  readonly model: string;
  readonly dimensions: number;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

export const EMBEDDER = Symbol('EMBEDDER');
