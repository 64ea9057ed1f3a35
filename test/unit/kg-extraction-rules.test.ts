import { describe, expect, it } from 'vitest';
import { edgeSignature as reviewEdgeSignature, nodeSignature as reviewNodeSignature } from '../../src/admin/review-signature.js';
import { planChunks } from '../../src/kg/chunk-plan.js';
import { ExtractionCache } from '../../src/kg/extraction-cache.js';
import { chunkPage, type AnchoredChunk } from '../../src/kg/page-chunks.js';
import { needsExtraction, type ExtractionState } from '../../src/kg/extraction-decision.js';
import { chunkEmbeddingText, extractionSourceOf, nodeEmbeddingText } from '../../src/kg/extraction-source.js';
import { edgeSignature, nodeSignature, normaliseName } from '../../src/kg/signatures.js';
import type { ExtractionResult } from '../../src/extractors/extraction.types.js';

const chunk = (position: number, hash: string, anchor: string | null = null): AnchoredChunk => ({
  position, headingPath: anchor ? [anchor] : [], text: hash, tokenEstimate: 1, contentHash: hash, headingLine: anchor ? 0 : null, anchor,
});
const stored = (id: string, position: number, hash: string, anchor: string | null = null) => ({ id, position, contentHash: hash, anchor });

describe('planChunks: what a re-chunked page changes', () => {
  it('keeps chunks whose hash is still there (moving them if needed), removes the others, extracts only new hashes', () => {
    const plan = planChunks([chunk(0, 'new'), chunk(1, 'a'), chunk(2, 'b')], [stored('1', 0, 'a'), stored('2', 1, 'gone'), stored('3', 2, 'b')]);
    expect(plan.keep).toEqual([{ id: '1', position: 1, anchor: null, moved: true }, { id: '3', position: 2, anchor: null, moved: false }]);
    expect(plan.remove).toEqual(['2']);
    expect(plan.add.map((c) => c.contentHash)).toEqual(['new']);
    expect(plan.extract).toEqual(['new']);
  });

  it('matches identical chunks one to one, and extracts a repeated new hash once', () => {
    const plan = planChunks([chunk(0, 'x'), chunk(1, 'x'), chunk(2, 'y'), chunk(3, 'y')], [stored('1', 0, 'x')]);
    expect(plan.keep).toEqual([{ id: '1', position: 0, anchor: null, moved: false }]);
    expect(plan.add.map((c) => c.position)).toEqual([1, 2, 3]);
    expect(plan.extract).toEqual(['x', 'y']);
    expect(planChunks([], [stored('1', 0, 'x'), stored('2', 1, 'x')]).remove).toEqual(['1', '2']);
  });

  it('on an unchanged page: keeps everything and extracts nothing', () => {
    const words = 'Enough words in this paragraph to make a section that stands alone as one chunk. '.repeat(4);
    const chunks = chunkPage(`# A\n\n${words}\n\n# B\n\n${words}`);
    expect(chunks.map((c) => c.anchor)).toEqual(['a', 'b']);
    const plan = planChunks(chunks, chunks.map((c, i) => stored(String(i + 1), c.position, c.contentHash, c.anchor)));
    expect(plan).toEqual({ keep: chunks.map((c, i) => ({ id: String(i + 1), position: c.position, anchor: c.anchor, moved: false })), remove: [], add: [], extract: [] });
  });

  it('updates a kept chunk whose section anchor changed though its text did not (a repeated heading renumbered)', () => {
    const plan = planChunks([chunk(0, 'new', 'setup'), chunk(1, 'a', 'setup-2')], [stored('1', 1, 'a', 'setup')]);
    expect(plan.keep).toEqual([{ id: '1', position: 1, anchor: 'setup-2', moved: true }]);
    expect(plan.extract).toEqual(['new']);
  });
});

describe('needsExtraction: when a page gets a job', () => {
  const source = extractionSourceOf({ title: 'T', cluster: 'c', body: 'Text.' });
  const record = (over: Partial<NonNullable<ExtractionState['record']>> = {}) => ({ sourceHash: source.sourceHash, chunkCount: 1, embeddingModel: 'm', ...over });
  const ask = (state: ExtractionState, trigger: Parameters<typeof needsExtraction>[3]) => needsExtraction(state, source, 'm', trigger);

  it('never extracted (no record, no chunk): always', () => {
    for (const trigger of [{ kind: 'save', previousSourceHash: null }, { kind: 'inclusion' }, { kind: 'request' }] as const) {
      expect(ask({ record: null, hasChunks: false }, trigger)).toBe(true);
    }
  });

  it('extracted: only when its source changed, its rows were purged, or its vectors are from another model', () => {
    const trigger = { kind: 'inclusion' } as const;
    expect(ask({ record: record(), hasChunks: true }, trigger)).toBe(false);
    expect(ask({ record: record({ sourceHash: 'old' }), hasChunks: true }, trigger)).toBe(true);
    expect(ask({ record: record(), hasChunks: false }, trigger)).toBe(true);
    expect(ask({ record: record({ chunkCount: 0 }), hasChunks: false }, trigger)).toBe(false);
    expect(ask({ record: record({ embeddingModel: 'older' }), hasChunks: true }, trigger)).toBe(true);
    expect(ask({ record: record({ chunkCount: 0, embeddingModel: null }), hasChunks: false }, trigger)).toBe(false);
  });

  it('rows without a record (made by hand, or before extraction existed): a save reads it only if its text changed; an inclusion never; a request always', () => {
    const state = { record: null, hasChunks: true };
    expect(ask(state, { kind: 'save', previousSourceHash: source.sourceHash })).toBe(false);
    expect(ask(state, { kind: 'save', previousSourceHash: 'different' })).toBe(true);
    expect(ask(state, { kind: 'save', previousSourceHash: null })).toBe(false);
    expect(ask(state, { kind: 'inclusion' })).toBe(false);
    expect(ask(state, { kind: 'request' })).toBe(true);
  });
});

describe('extraction sources', () => {
  it('hashes title, primary cluster and the Markdown body; other frontmatter (tags, overrides) does not count', () => {
    const base = extractionSourceOf({ title: 'Setup', cluster: 'docs', body: '---\ncluster: docs\n---\n# Setup\n\nText.\n' });
    expect(base.markdown).toBe('# Setup\n\nText.\n');
    expect(extractionSourceOf({ title: 'Setup', cluster: 'docs', body: '---\ncluster: docs\ntags: [a]\nkg_include: true\n---\n# Setup\n\nText.\n' }).sourceHash).toBe(base.sourceHash);
    expect(extractionSourceOf({ title: 'Setup 2', cluster: 'docs', body: '---\ncluster: docs\n---\n# Setup\n\nText.\n' }).sourceHash).not.toBe(base.sourceHash);
    expect(extractionSourceOf({ title: 'Setup', cluster: 'ops', body: '---\ncluster: docs\n---\n# Setup\n\nText.\n' }).sourceHash).not.toBe(base.sourceHash);
    expect(extractionSourceOf({ title: 'Setup', cluster: 'docs', body: '---\ncluster: docs\n---\n# Setup\n\nText!\n' }).sourceHash).not.toBe(base.sourceHash);
    // The context (title and cluster) has its own hash: a rename re-embeds chunks without re-extracting them.
    expect(extractionSourceOf({ title: 'Setup', cluster: 'docs', body: 'Other text.' }).contextHash).toBe(base.contextHash);
    expect(extractionSourceOf({ title: 'Install', cluster: 'docs', body: 'Other text.' }).contextHash).not.toBe(base.contextHash);
  });

  it('embeds a chunk with its page title, cluster and heading path, and an entity with its type, names and description', () => {
    expect(chunkEmbeddingText({ title: 'Foam', cluster: 'user/features', headingPath: ['Setup', 'Linux'] }, 'Install it.')).toBe(
      'Foam\nCluster: user/features\nSection: Setup › Linux\n\nInstall it.',
    );
    expect(chunkEmbeddingText({ title: 'Foam', cluster: null, headingPath: [] }, 'Text.')).toBe('Foam\n\nText.');
    expect(nodeEmbeddingText({ name: 'PostgreSQL', type: 'technology', aliases: ['Postgres'], description: 'A database.' })).toBe(
      'PostgreSQL (technology)\nAlso known as: Postgres\nA database.',
    );
  });
});

describe('signatures', () => {
  it('normalise names (NFKC, case, whitespace) and join name and type; edges join their endpoints and predicate', () => {
    expect(normaliseName('  PostgreSQL\u00a0 15 ')).toBe('postgresql 15');
    expect(normaliseName('ＦＯＡＭ')).toBe('foam');
    expect(nodeSignature('Visual  Studio Code', 'product')).toBe('visual studio code|product');
    expect(edgeSignature('foam|product', 'uses', 'markdown|technology')).toBe('foam|product|uses|markdown|technology');
  });

  it('are the same as the review module computes (src/admin), so approvals and extraction meet', () => {
    for (const [name, type] of [['Foam', 'product'], ['  Ａda  Lovelace ', 'person'], ['GitHub\tActions', 'technology'], ['Ç̧a', 'concept']]) {
      expect(nodeSignature(name, type)).toBe(reviewNodeSignature(name, type));
    }
    expect(edgeSignature('a|x', 'uses', 'b|y')).toBe(reviewEdgeSignature('a|x', 'uses', 'b|y'));
  });
});

describe('ExtractionCache', () => {
  const result = (model: string): ExtractionResult => ({ entities: [], relations: [], extractor: 'ollama', model, dropped: [] });

  it('keys results by backend, model, page title and chunk hash, and forgets the least recently used', () => {
    const cache = new ExtractionCache(2);
    const key = (hash: string) => ExtractionCache.key({ extractor: 'ollama', model: 'm', pageTitle: 'T', contentHash: hash });
    expect(key('a')).not.toBe(ExtractionCache.key({ extractor: 'ollama', model: 'other', pageTitle: 'T', contentHash: 'a' }));
    cache.set(key('a'), result('a'));
    cache.set(key('b'), result('b'));
    expect(cache.get(key('a'))?.model).toBe('a');
    cache.set(key('c'), result('c'));
    expect(cache.get(key('b'))).toBeUndefined();
    expect(cache.get(key('a'))?.model).toBe('a');
    cache.delete(key('a'));
    expect(cache.size).toBe(1);
  });
});
