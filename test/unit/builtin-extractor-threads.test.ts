// @module-tag slow (compiles the extractor worker and runs it in threads): `npm run test:fast` leaves it out; docs/testing.md
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { chunkMarkdown } from '../../src/kg/chunker.js';
import { BuiltinExtractor } from '../../src/extractors/builtin/builtin.extractor.js';
import { type ExtractionRequest } from '../../src/extractors/extraction.types.js';
import { ExtractorError } from '../../src/llm-client/llm-errors.js';
import { createExtractor } from '../../src/llm/llm-backends.js';
import { BUILTIN_EXTRACTION_WORKER, ensureCompiled, filesUnder } from '../support/cli.js';
import { FOAM_DOCS } from '../support/fixtures.js';


/** Every chunk of the Foam docs as the extraction job asks for it (titles from file names, links from the text). */
function foamRequests(): ExtractionRequest[] {
  return filesUnder(FOAM_DOCS)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .flatMap((file) => {
      const pageTitle = path.basename(file, '.md');
      return chunkMarkdown(readFileSync(file, 'utf8')).map((chunk) => ({
        pageTitle,
        headingPath: chunk.headingPath,
        chunkText: chunk.text,
        linkTargets: [...chunk.text.matchAll(/\[\[([^\]|#]+)/g)].map((m) => m[1].trim()),
        knownEntities: [{ name: 'Foam', type: 'technology' as const }],
      }));
    });
}

describe('the built-in extractor in worker threads (KURATE_BUILTIN_EXTRACTOR_THREADS)', () => {
  let threaded: BuiltinExtractor;
  const requests = foamRequests();

  beforeAll(async () => {
    // The server runs the compiled worker module from dist/; the tests run TypeScript, so compile it first.
    threaded = new BuiltinExtractor({ threads: 2, workerFile: await ensureCompiled(BUILTIN_EXTRACTION_WORKER) });
  }, 120_000);
  afterAll(() => threaded?.close());

  it('gives exactly what the main thread gives, chunk for chunk, over the Foam docs', async () => {
    expect(requests.length).toBeGreaterThan(300);
    const inline = new BuiltinExtractor({ threads: 0 });
    const fromThreads = await Promise.all(requests.map((request) => threaded.extract(request)));
    const fromMain = await Promise.all(requests.map((request) => inline.extract(request)));
    expect(fromThreads).toEqual(fromMain);
    expect(fromThreads.reduce((n, r) => n + r.entities.length, 0)).toBeGreaterThan(1000);
  });

  it('refuses a cancelled job before it starts, answers the chunks in flight "cancelled" at once, then goes on working', async () => {
    await expect(threaded.extract(requests[0], AbortSignal.abort())).rejects.toMatchObject({ name: 'ExtractorError', message: 'Extraction cancelled (builtin)', retryable: true });
    const controller = new AbortController();
    setMaxListeners(50, controller.signal);
    const queued = requests.slice(0, 40).map((request) => threaded.extract(request, controller.signal));
    controller.abort();
    const outcomes = await Promise.allSettled(queued);
    expect(outcomes.map((o) => o.status)).toEqual(queued.map(() => 'rejected'));
    for (const o of outcomes) expect((o as PromiseRejectedResult).reason).toMatchObject({ name: 'ExtractorError', message: 'Extraction cancelled (builtin)' });
    // The chunks still ran in the threads; their answers are dropped without disturbing anything.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await threaded.extract(requests[1])).entities.length).toBeGreaterThan(0);
  });

  it('turns a failure inside a thread into a retryable extractor error, and the pool survives it', async () => {
    const broken = { ...requests[0], chunkText: null } as unknown as ExtractionRequest;
    const failure = await threaded.extract(broken).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExtractorError);
    expect((failure as ExtractorError).message).toMatch(/^The built-in extractor's worker thread failed: /);
    expect((failure as ExtractorError).retryable).toBe(true);
    expect(await threaded.extract(requests[2])).toEqual(await new BuiltinExtractor().extract(requests[2]));
  });

  it('is configured by KURATE_BUILTIN_EXTRACTOR_THREADS (default: 1 from 4 cores up, else 0), and says how to fix a setting it cannot run', () => {
    expect(loadConfig({}).llm.builtinThreads).toBe(availableParallelism() >= 4 ? 1 : 0);
    expect(loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '2' }).llm.builtinThreads).toBe(2);
    expect(loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '0' }).llm.builtinThreads).toBe(0);
    expect(() => loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '-1' })).toThrow(/KURATE_BUILTIN_EXTRACTOR_THREADS must not be less than 0/);
    expect(() => loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: 'two' })).toThrow(ConfigError);
    // Run from the TypeScript sources there is no compiled worker module beside src/extractors/builtin/.
    expect(() => createExtractor(loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '1' }).llm)).toThrow(/KURATE_BUILTIN_EXTRACTOR_THREADS needs the compiled worker module .*builtin-extraction\.worker\.js: build the server \(npm run build\), or set KURATE_BUILTIN_EXTRACTOR_THREADS=0\./);
    expect(createExtractor(loadConfig({ KURATE_BUILTIN_EXTRACTOR_THREADS: '0' }).llm)).toMatchObject({ name: 'builtin', threads: 0 });
  });
});
