import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchVectorRepository } from '../../src/search/search-vector.repository.js';
import { HASHING_EMBEDDER_DIMENSIONS, HASHING_EMBEDDER_MODEL } from '../../src/embedders/hashing.embedder.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { count, setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

interface Hit {
  slug: string;
  sectionUrl: string;
  section: string[];
  snippetHtml: string;
  explain: {
    source: string;
    rank: number;
    lists: Record<'lexical' | 'vector' | 'graph', { rank: number; score: number } | null>;
    entities: { name: string; type: string; hops: number }[];
  };
}
interface Body {
  hits: Hit[];
  total: number;
  lists: string[];
  notices: { code: string; message: string }[];
  relatedEntities: { name: string; hops: number | null }[];
}

/**
 * Hybrid search over pages extracted by the built-in pipeline (hashing embedder): vector kNN through the HNSW
 * index, fusion, deep links, filters, the graph list, and the soft exclusion of knowledge-graph signals.
 */
describe('hybrid search: lexical + vector + graph', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let reader: supertest.Agent;
  let author: supertest.Agent;
  let kg: KgFactory;
  const search = async (agent: supertest.Agent, params: Record<string, string>, status = 200) =>
    (await agent.get(`/api/search?${new URLSearchParams({ explain: 'true', ...params })}`).expect(status)).body as Body;
  const slugs = (body: Body) => body.hits.map((h) => h.slug);
  const create = (title: string, cluster: string, body: string, extra = '') =>
    author.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n${extra}---\n${body}\n` }).expect(201);

  beforeAll(async () => {
    // Vector and graph lists are off by default (see bench/RESULTS.md); this file turns them on to test them.
    // No similarity floor: a one-word query is far from any whole chunk under the hashing embedder.
    t = await startTestApp({ env: { KURATE_SEARCH_WEIGHT_VECTOR: '1', KURATE_SEARCH_WEIGHT_GRAPH: '1', KURATE_SEARCH_VECTOR_MIN_SIMILARITY: '-1' } });
    admin = await t.as('admin');
    reader = await t.as('reader');
    author = await t.as('author');
    kg = await KgFactory.for(t);
    await startWorker(t);
    // Sections long enough to be chunks of their own (the chunker merges small ones).
    const filler = (topic: string) => Array.from({ length: 30 }, (_, i) => `Sentence ${i} says more about ${topic} here.`).join(' ');
    await create('Camera Hobby', 'garden', `# Camera Hobby\n\nIntro text about a hobby. ${filler('the hobby')}\n\n## Lenses\n\nPhotography with wide lenses and long exposures at night. ${filler('optics')}`, 'tags: [pictures]\ntype: guide\n');
    await create('Tomato Beds', 'garden', 'Raised beds for tomatoes, with compost and mulch.');
    await create('Watering Schedule', 'garden', 'Water the raised beds each morning in summer.');
    await create('Kitchen Notes', 'house', 'Recipes with tomatoes from the beds.');
    await setPolicy(admin, 'garden', 'include');
    await setPolicy(admin, 'house', 'include');
    await waitForJobs(t, { timeoutMs: 60_000 });
  }, 120_000);
  afterAll(() => t?.close());

  it('embeds chunks with the built-in embedder and builds the HNSW index for its model at boot', async () => {
    expect(await count(t, `SELECT count(*) FROM kg_content_chunks WHERE embedding_model = $1`, [HASHING_EMBEDDER_MODEL])).toBeGreaterThanOrEqual(4);
    const name = SearchVectorRepository.indexName(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS);
    const rows: { indexdef: string }[] = await t.dataSource.query(`SELECT indexdef FROM pg_indexes WHERE indexname = $1`, [name]);
    expect(rows[0].indexdef).toMatch(/USING hnsw .*vector\(384\).*vector_cosine_ops.*WITH \(m='8', ef_construction='64'\).*WHERE/);
    // Idempotent: a second process booting (or this one again) changes nothing.
    await t.app.get(SearchVectorRepository).ensureIndex(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS);
    expect(await count(t, `SELECT count(*) FROM pg_indexes WHERE indexname = $1`, [name])).toBe(1);
  });

  it('replaces an index of the same model built with the earlier parameters, and leaves other models\' alone', async () => {
    const hnswIndexes = async () =>
      ((await t.dataSource.query(`SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%' AND tablename = 'kg_content_chunks' ORDER BY indexname`)) as { indexname: string }[]).map((r) => r.indexname);
    const current = SearchVectorRepository.indexName(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS);
    const legacy = current.replace(/_m\d+_idx$/, '_idx'); // the name before the build parameters were chosen
    const otherModel = SearchVectorRepository.indexName('some-other-model', 384);
    await t.dataSource.query(`DROP INDEX ${current}`);
    await t.dataSource.query(`CREATE INDEX ${legacy} ON kg_content_chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops)
                                WHERE embedding_model = '${HASHING_EMBEDDER_MODEL}' AND embedding_dims = 384`);
    await t.dataSource.query(`CREATE INDEX ${otherModel} ON kg_content_chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops)
                                WHERE embedding_model = 'some-other-model' AND embedding_dims = 384`);
    try {
      await t.app.get(SearchVectorRepository).ensureIndex(HASHING_EMBEDDER_MODEL, HASHING_EMBEDDER_DIMENSIONS);
      expect(await hnswIndexes()).toEqual([current, otherModel].sort());
    } finally {
      await t.dataSource.query(`DROP INDEX IF EXISTS ${otherModel}`);
    }
  });

  it('finds a page by meaning when no word matches (vector), with a deep link to the section', async () => {
    // "photographic" stems to `photograph`, the page's "photography" to `photographi`: no lexeme in common.
    const body = await search(reader, { q: 'photographic' });
    expect(body.lists).toEqual(['lexical', 'vector', 'graph']);
    const hit = body.hits.find((h) => h.slug === 'camera-hobby')!;
    expect(hit.explain.lists.lexical).toBeNull();
    expect(hit.explain.lists.vector!.rank).toBe(1);
    expect(hit.explain.source).toBe('vector');
    expect(hit.section).toEqual(['Camera Hobby', 'Lenses']);
    expect(hit.sectionUrl).toBe('/page/camera-hobby#lenses');
    const html = await t.http.get('/page/camera-hobby').set('Accept', 'text/html').expect(200);
    expect(html.text).toContain('id="lenses"');
  });

  it('fuses the lists: a page both find outranks pages only one finds, and each rank is explained', async () => {
    const body = await search(reader, { q: 'raised tomato beds' });
    expect(body.hits[0].slug).toBe('tomato-beds');
    expect(body.hits[0].explain.lists.lexical!.rank).toBe(1);
    expect(body.hits[0].explain.lists.vector!.rank).toBe(1);
    expect(body.hits[0].snippetHtml).toContain('<mark>');
  });

  it('filters by cluster, tag and type, in the API and the page form', async () => {
    expect(slugs(await search(reader, { q: 'tomatoes beds' })).sort()).toEqual(expect.arrayContaining(['kitchen-notes', 'tomato-beds']));
    expect(slugs(await search(reader, { q: 'tomatoes beds', cluster: 'house' }))).toEqual(['kitchen-notes']);
    expect(slugs(await search(reader, { q: 'photography lenses', tag: 'pictures' }))).toEqual(['camera-hobby']);
    expect(slugs(await search(reader, { q: 'photography lenses', type: 'recipe' }))).toEqual([]);
    const page = await t.http.get('/search?q=tomatoes&cluster=house').set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('value="house"');
    expect(page.text).toContain('href="/page/kitchen-notes"');
    expect(page.text).not.toContain('href="/page/tomato-beds"');
  });

  it('ranks pages that mention entities near the query’s (graph), explains hops, and lists related entities', async () => {
    const [lenses] = await t.dataSource.query(`SELECT c.id::text AS id FROM kg_content_chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = 'watering-schedule' LIMIT 1`);
    const zeiss = await kg.node({ name: 'Zeiss Optics', type: 'organization' });
    const irrigation = await kg.node({ name: 'Drip Irrigation', type: 'concept', aliases: ['trickle watering'], origin: 'extracted' });
    await kg.edge(zeiss, irrigation, 'related_to');
    await kg.mention(lenses.id, 'sig-irrigation', 'irrigation', irrigation);
    // The query names Zeiss Optics; no page says it, but Watering Schedule mentions an entity one edge away.
    const body = await search(reader, { q: 'zeiss optics' });
    const hit = body.hits.find((h) => h.slug === 'watering-schedule')!;
    expect(hit.explain.lists.graph!.rank).toBe(1);
    expect(hit.explain.entities).toEqual([{ name: 'Drip Irrigation', type: 'concept', hops: 1 }]);
    expect(body.relatedEntities.map((e) => [e.name, e.hops])).toEqual([['Zeiss Optics', 0], ['Drip Irrigation', 1]]);
    // An alias names the entity too (hop 0).
    const alias = await search(reader, { q: 'trickle watering' });
    expect(alias.hits.find((h) => h.slug === 'watering-schedule')!.explain.entities).toEqual([{ name: 'Drip Irrigation', type: 'concept', hops: 0 }]);
    const page = await t.http.get('/search?q=zeiss%20optics').set('Accept', 'text/html').expect(200);
    expect(page.text).toMatch(/Related entities[\s\S]*Zeiss Optics[\s\S]*Drip Irrigation/);
    expect(page.text).toMatch(/<details class="why-result">\s*<summary>Why this result<\/summary>[\s\S]*Drip Irrigation \(concept, 1 hop away\)/);
  });

  it('never lets soft-excluded pages feed vector or graph signals; pages stay findable by their words; admins may bypass explicitly', async () => {
    await setPolicy(admin, 'garden', 'exclude');
    const vector = await search(reader, { q: 'photographic' });
    expect(slugs(vector)).not.toContain('camera-hobby');
    const graph = await search(reader, { q: 'zeiss optics' });
    expect(slugs(graph)).not.toContain('watering-schedule');
    expect(graph.relatedEntities.map((e) => e.name)).not.toContain('Drip Irrigation');
    // The wiki page itself is still searchable by its words, without a section from its (hidden) chunks.
    const words = await search(reader, { q: 'photography lenses' });
    const hit = words.hits.find((h) => h.slug === 'camera-hobby')!;
    expect(hit.explain.lists).toMatchObject({ vector: null, graph: null });
    expect(hit.sectionUrl).toBe('/page/camera-hobby');
    await search(reader, { q: 'photographic', includeExcluded: 'true' }, 403);
    await search(author, { q: 'photographic', includeExcluded: 'true' }, 403);
    const bypass = await search(admin, { q: 'photographic', includeExcluded: 'true' });
    expect(bypass.hits.find((h) => h.slug === 'camera-hobby')!.explain.lists.vector!.rank).toBe(1);
    await setPolicy(admin, 'garden', 'include');
    expect(slugs(await search(reader, { q: 'photographic' }))).toContain('camera-hobby');
  });

  it('pages through fused results without repeating a page', async () => {
    const first = await search(reader, { q: 'beds tomatoes water summer', perPage: '2' });
    const second = await search(reader, { q: 'beds tomatoes water summer', perPage: '2', page: '2' });
    expect(first.total).toBeGreaterThanOrEqual(3);
    expect(second.hits.length).toBeGreaterThan(0);
    expect(second.hits[0].explain.rank).toBe(3);
    expect(slugs(first).filter((s) => slugs(second).includes(s))).toEqual([]);
  });
});
