import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SearchRepository } from '../../src/search/search.repository.js';
import { nodesOf, planOf, statementSentBy, type PlanNode } from '../support/query-plans.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { foamDocsCopies, foamDocsPages, importPages } from './kg-test-helpers.js';

/**
 * How PostgreSQL plans the lexical ranker once the table has statistics (ANALYZE, as autovacuum or a restore gives
 * it). With them the planner used to read a candidate page's term by walking every page of the term in the impact
 * index and filtering the page out (8 ms a search at 1,000 pages, instead of under 1 ms): every read of
 * page_search_terms that knows the page must find it through an index condition, never a filter.
 */
describe('search: the lexical ranker probes a page term by its key once the table has statistics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    // Four copies of the Foam docs (344 pages): common words are on hundreds of pages, as in a real wiki.
    await importPages(await t.as('author'), await foamDocsCopies(4));
    await t.dataSource.query('VACUUM ANALYZE page_search_terms');
  });
  afterAll(() => t?.close());

  it.each(['daily notes', 'graph view of my notes', 'templates'])('plans "%s" with index probes by page', async (words) => {
    const plan = await planOf(t, await statementSentBy(t, 'per_term AS MATERIALIZED', async () => {
      const result = await t.app.get(SearchRepository).lexicalSearch(words, '', 50);
      expect(result.hits.length).toBeGreaterThan(0);
    }));
    const reads = nodesOf(plan).filter((n) => n['Relation Name'] === 'page_search_terms' || n['Index Name']?.startsWith('page_search_terms'));
    expect(reads.length).toBeGreaterThan(0);
    const filteredByPage = reads.filter((n) => /page_id = /.test(n.Filter ?? ''));
    expect(filteredByPage.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}: ${n['Index Cond'] ?? ''} / filter ${n.Filter}`)).toEqual([]);
  });

  // A `-word` keeps out the pages that hold it: one probe per candidate page and unwanted word. Unfenced, PostgreSQL
  // hashed every term of every page for it (a sequential scan of page_search_terms, six times the search's time).
  it.each(['daily notes -graph', 'templates -daily -notes'])('plans "%s" without reading every page\'s terms', async (query) => {
    const [words, ...unwanted] = query.split(' -');
    const statement = await statementSentBy(t, 'per_term AS MATERIALIZED', async () => {
      const result = await t.app.get(SearchRepository).lexicalSearch(words, unwanted.join(' '), 50);
      expect(result.hits.length).toBeGreaterThan(0);
    });
    const generic = ['text', 'text', 'int', 'float8', 'float8', 'float8', 'float8', 'int', 'jsonb'];
    for (const plan of [await planOf(t, statement), await planOf(t, statement, generic)]) {
      const scans = nodesOf(plan).filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
      expect(scans).not.toContain('page_search_terms');
    }
  });

  // Each term's head holds its highest-impact pages (300 by default, 40 here so that common words overflow it at 344
  // pages); a word in more pages than that is probed for the candidates outside its head. Whichever way a term's
  // frequency is read, a hit's score is its full BM25 over every query term, and the hits are the same.
  it.each(['daily notes', 'graph view of my notes', 'templates'])('scores the hits of "%s" exactly, words in more pages than a head holds included', async (words) => {
    const [{ common }] = await t.dataSource.query(
      `SELECT count(*) FILTER (WHERE df > 40)::int AS common FROM (
         SELECT count(*) AS df FROM page_search_terms WHERE lexeme IN (SELECT unnest(tsvector_to_array(to_tsvector('english', $1)))) GROUP BY lexeme) d`,
      [words],
    );
    expect(common).toBeGreaterThan(0);
    const { hits } = await t.app.get(SearchRepository).lexicalSearch(words, '', 50, {}, undefined, [], 40);
    // BM25 as docs/search.md gives it (k1 1.2, b 0.75, title ×3, aliases and tags ×2), over all of each page's terms.
    const exact: { id: string; score: number }[] = await t.dataSource.query(
      `WITH c AS (SELECT count(*) AS n, avg(length) AS avgdl FROM page_search_stats),
            q AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme),
            df AS (SELECT d.lexeme, count(*) AS df FROM page_search_terms d JOIN q ON q.lexeme = d.lexeme GROUP BY d.lexeme)
       SELECT pt.page_id::text AS id,
              sum(ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5)) * (pt.tf_a * 3 + pt.tf_b * 2 + pt.tf_c) * 2.2
                  / ((pt.tf_a * 3 + pt.tf_b * 2 + pt.tf_c) + 1.2 * (0.25 + 0.75 * pt.length / c.avgdl)))::float8 AS score
         FROM page_search_terms pt JOIN df ON df.lexeme = pt.lexeme CROSS JOIN c
        WHERE pt.page_id = ANY($2::uuid[]) GROUP BY pt.page_id`,
      [words, hits.map((h) => h.pageId)],
    );
    const exactById = new Map(exact.map((e) => [e.id, e.score]));
    expect(hits.length).toBeGreaterThan(10);
    for (const hit of hits) expect(hit.score, hit.pageId).toBeCloseTo(exactById.get(hit.pageId)!, 9);
  });

  // The total is read from the heads when they hold every page of every term, else counted by lexeme: either way it
  // is every live page holding a query term and none of the `-words`. Each hit's terms come most weighty first.
  it.each([['daily notes', ''], ['templates', ''], ['graph view', 'daily'], ['zettelkasten method', '']])('counts the pages of "%s -%s" whether or not the heads hold them all', async (words, unwanted) => {
    const [{ pages }] = await t.dataSource.query(
      `SELECT count(DISTINCT d.page_id)::int AS pages FROM page_search_terms d
        WHERE d.lexeme IN (SELECT unnest(tsvector_to_array(to_tsvector('english', $1))))
          AND NOT EXISTS (SELECT 1 FROM page_search_terms x WHERE x.page_id = d.page_id AND x.lexeme IN (SELECT unnest(tsvector_to_array(to_tsvector('english', $2)))))`,
      [words, unwanted],
    );
    expect(pages).toBeGreaterThan(0);
    for (const headSize of [5, 40, 2000]) {
      const { total, hits } = await t.app.get(SearchRepository).lexicalSearch(words, unwanted, 20, {}, undefined, [], headSize);
      expect(total, `head of ${headSize}`).toBe(pages);
      for (const hit of hits) expect(hit.terms.map((term) => term.contribution)).toEqual([...hit.terms.map((term) => term.contribution)].sort((a, b) => b - a));
    }
  });
});

/**
 * A result card reads its page by key: the cards' pages come as a JSON list, which PostgreSQL takes for 100 rows, and
 * it hashed them against a scan of every page (2 ms a search at 1,000 pages, growing with the wiki).
 */
describe('search: result cards and the best hits\' links read their pages by key, not by a scan of every page', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await importPages(await t.as('author'), await foamDocsCopies(3));
    await t.dataSource.query('VACUUM ANALYZE pages, page_links, page_search_terms');
  });
  afterAll(() => t?.close());

  it('plans the cards of a page of results with the pages primary key', async () => {
    const ids: { id: string }[] = await t.dataSource.query(`SELECT id FROM pages ORDER BY slug LIMIT 20`);
    const plan = await planOf(t, await statementSentBy(t, 'wanted AS', async () => {
      const cards = await t.app.get(SearchRepository).pageCards(ids.map((r) => ({ pageId: r.id, chunkId: null })), 'daily notes', false);
      expect(cards).toHaveLength(20);
    }));
    const pageReads = nodesOf(plan).filter((n) => n['Relation Name'] === 'pages');
    expect(pageReads.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(pageReads.length).toBeGreaterThan(0);
  });

  // The links of the best hits (linked slots) are read by the linking pages' keys, in the one plan a prepared
  // statement keeps: its generic plan hashed a scan of every link against a scan of every page (2.7 ms a search at
  // 1,000 pages, growing with the wiki).
  it('plans the best hits\' links with the link and page keys, also in its generic plan', async () => {
    // The copies' titles are numbered, so their own links resolve nowhere: three hubs link to imported pages.
    const targets: { title: string }[] = await t.dataSource.query(`SELECT title FROM pages ORDER BY slug LIMIT 6`);
    const author = await t.as('author');
    const hubs: string[] = [];
    for (const hub of ['Hub one', 'Hub two', 'Hub three']) {
      const body = `---\ntitle: ${hub}\n---\n${targets.map((target) => `See [[${target.title}]].`).join('\n')}\n`;
      hubs.push((await author.post('/api/pages').send({ body }).expect(201)).body.id);
    }
    const statement = await statementSentBy(t, 'links AS MATERIALIZED', async () => {
      const links = await t.app.get(SearchRepository).linksFrom(hubs, {}, 'daily notes');
      expect(links).toHaveLength(18);
    });
    // The filters read the targets' own cluster, tags and type.
    const [{ cluster }] = await t.dataSource.query(`SELECT cluster FROM pages WHERE title = ANY($1::text[]) AND cluster IS NOT NULL ORDER BY slug LIMIT 1`, [targets.map((x) => x.title)]);
    const inCluster = await t.app.get(SearchRepository).linksFrom(hubs, { cluster }, 'daily notes');
    expect(inCluster.length).toBeGreaterThan(0);
    const clusters: { cluster: string }[] = await t.dataSource.query(`SELECT cluster FROM pages WHERE id = ANY($1::uuid[])`, [inCluster.map((l) => l.toId)]);
    expect(new Set(clusters.map((c) => c.cluster))).toEqual(new Set([cluster]));
    expect(await t.app.get(SearchRepository).linksFrom(hubs, { cluster, tag: 'no-such-tag', type: 'no-such-type' }, 'daily notes')).toEqual([]);
    for (const plan of [await planOf(t, statement), await planOf(t, statement, ['uuid[]', 'text', 'text'])]) {
      const scans = nodesOf(plan).filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
      expect(scans).not.toContain('page_links');
      expect(scans).not.toContain('pages');
      // Whether a target holds a query word: a probe by page and word. Read by page alone and hashed against the
      // words, a hit linking to a hundred pages read all 12,000 of their terms (8 of 9 ms of the statement).
      const termReads = nodesOf(plan).filter((n) => n['Relation Name'] === 'page_search_terms' || n['Index Name']?.startsWith('page_search_terms'));
      expect(termReads.length).toBeGreaterThan(0);
      const byPageAlone = termReads.filter((n) => /page_id = /.test(n['Index Cond'] ?? '') && !/lexeme = /.test(n['Index Cond'] ?? ''));
      expect(byPageAlone.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}: ${n['Index Cond'] ?? ''}`)).toEqual([]);
    }
  });
});

/**
 * "Did you mean" and the fuzzy-title fallback (SearchRepository.similarTitles) used to score every live page's title
 * and aliases: a scan of the table, 68 ms a query at 10,000 pages. Their condition must be one the trigram indexes of
 * migration 0028 can answer. With sequential scans priced out, a condition no index can answer still plans as a
 * Seq Scan of pages; an indexable one plans as a bitmap scan of both indexes.
 */
describe('search: similar titles are found through trigram indexes, not a scan of every page', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await importPages(await t.as('author'), await foamDocsPages());
    await t.dataSource.query('ANALYZE pages');
  });
  afterAll(() => t?.close());

  it('plans the typo lookup with the title and alias trigram indexes', async () => {
    const query = vi.spyOn(t.dataSource, 'transaction');
    let sql: string | undefined;
    let values: unknown[] | undefined;
    try {
      // The statement as the repository sends it: caught on its way through the transaction's manager.
      query.mockImplementationOnce(((run: (db: { query: (s: string, v?: unknown[]) => Promise<unknown> }) => Promise<unknown>) =>
        run({
          query: async (s: string, v?: unknown[]) => {
            if (s.includes('word_similarity(')) [sql, values] = [s, v];
            return [];
          },
        })) as never);
      await t.app.get(SearchRepository).similarTitles('graph veiw', 5);
    } finally {
      query.mockRestore();
    }
    expect(sql).toBeDefined();
    const plan = await t.dataSource.transaction(async (db) => {
      await db.query('SET LOCAL enable_seqscan = off');
      const [row] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
      return (typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'])[0].Plan as PlanNode;
    });
    const nodes = nodesOf(plan);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'pages')).toEqual([]);
    expect(nodes.map((n) => n['Index Name']).filter(Boolean).sort()).toEqual(['pages_aliases_trgm_idx', 'pages_title_trgm_idx']);
    // And it finds what the exact score keeps: the title with two letters swapped.
    expect((await t.app.get(SearchRepository).similarTitles('graph veiw', 5)).map((p) => p.slug)).toContain('graph-view');
  });
});
