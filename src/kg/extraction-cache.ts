import type { ExtractionResult } from '../extractors/extraction.types.js';

/**
 * Extraction results of recent chunks, by chunk hash, page title and backend model. A job that failed after some of
 * its calls succeeded writes nothing (all or none), so its retry would pay for those calls again; with this cache
 * (per process, least recently used first out) it only repeats the calls that failed.
 */
export class ExtractionCache {
  private readonly entries = new Map<string, ExtractionResult>();

  constructor(private readonly capacity = 5000) {}

  static key(parts: { extractor: string; model: string; pageTitle: string; contentHash: string }): string {
    return `${parts.extractor}\u0000${parts.model}\u0000${parts.pageTitle}\u0000${parts.contentHash}`;
  }

  get(key: string): ExtractionResult | undefined {
    const found = this.entries.get(key);
    if (found) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(key: string, result: ExtractionResult): void {
    this.entries.delete(key);
    this.entries.set(key, result);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Written rows are in the database now; their cached results are no longer needed. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
