// The module a worker thread of the built-in extractor loads (BuiltinExtractor with KURATE_BUILTIN_EXTRACTOR_THREADS
// above 0): the pool calls its default export once per chunk.
import type { ExtractionRequest, ExtractionResult } from '../extraction.types.js';
import { runBuiltinExtraction } from './builtin.extractor.js';

export default function extractInWorker(request: ExtractionRequest): ExtractionResult {
  return runBuiltinExtraction(request);
}
