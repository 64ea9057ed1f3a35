import type { ExtractionSource } from './extraction-source.js';

export interface ExtractionState {
  record: { sourceHash: string; chunkCount: number; embeddingModel: string | null } | null;
  /** Does the page have any chunk stored? */
  hasChunks: boolean;
}

/**
 * Why a page is (re)extracted:
 * - `save`: a page was written; rows that exist without an extraction record (made before extraction existed, or by
 *   hand) are taken to reflect the previous version, so only a change of what extraction reads counts;
 * - `inclusion`: the page was just included; a page whose rows are still there (soft-excluded) needs nothing;
 * - `request`: an admin asked (`kurate kg extract`); pages without a record are read again.
 */
export type ExtractionTrigger = { kind: 'save'; previousSourceHash: string | null } | { kind: 'inclusion' } | { kind: 'request' };

/** Does this page need an extraction job? (Whether it is included is decided before, by the policy.) */
export function needsExtraction(state: ExtractionState, source: ExtractionSource, embeddingModel: string, trigger: ExtractionTrigger): boolean {
  const { record, hasChunks } = state;
  if (record) {
    return (
      record.sourceHash !== source.sourceHash ||
      // Its rows were purged (a hard exclude) since: it must be read again.
      (record.chunkCount > 0 && !hasChunks) ||
      // The embedding model changed while the page was excluded: its chunks need new vectors (no extraction call).
      (record.chunkCount > 0 && record.embeddingModel !== embeddingModel)
    );
  }
  if (!hasChunks) return true;
  switch (trigger.kind) {
    case 'save':
      return trigger.previousSourceHash !== null && trigger.previousSourceHash !== source.sourceHash;
    case 'inclusion':
      return false;
    case 'request':
      return true;
  }
}
