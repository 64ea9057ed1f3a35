import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What a reader's search costs in round trips to the database (issue 18 part 5: each statement costs the web process
 * and the database a fixed price, whatever it reads). The search page explains every result, and a page of results
 * may reserve slots for pages the best hits link to.
 */
describe('search: statements per search', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Lighthouse keeping', body: 'Keepers trim the lamp wick at dusk. See [[Fresnel lens]] and [[Harbour charts]].' }).expect(201);
    await author.post('/api/pages').send({ title: 'Fresnel lens', body: 'A lens of rings that throws the lamp light far out to sea.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Harbour charts', body: 'Charts of the harbour mark every reef.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Wick trimming', body: 'A trimmed wick burns without smoke; keepers trim it at dusk.' }).expect(201);
  });
  afterAll(() => t?.close());

  /** The statements one search of the reader's page sends through the data source. */
  async function statementsOf(q: string): Promise<string[]> {
    const query = vi.spyOn(t.dataSource, 'query');
    try {
      const page = await t.http.get('/search').query({ q }).expect(200);
      expect(page.text).toContain('Lighthouse keeping');
      return query.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : String((sql as { text: string }).text)).replace(/\s+/g, ' ').slice(0, 80));
    } finally {
      query.mockRestore();
    }
  }

  it('asks the words of a page the hits link to with those links, and the lexemes of known words not again', async () => {
    await statementsOf('lamp wick');
    const again = await statementsOf('lamp wick');
    // The lexical ranking, the links of the best hits (with whether their targets hold the words), the result cards.
    expect(again, again.join('\n')).toHaveLength(3);
    expect(again.some((s) => s.includes('to_tsvector') && s.includes('ORDINALITY'))).toBe(false);
  });

  it('reads a result\'s text once: the same search again reads none, and an edited page its new text', async () => {
    const cardTexts = async (q: string) => {
      const query = vi.spyOn(t.dataSource, 'query');
      try {
        const page = await t.http.get('/search').query({ q }).expect(200);
        const at = query.mock.calls.findIndex(([sql]) => String(typeof sql === 'string' ? sql : (sql as { text: string }).text).includes('AS "textKey"'));
        const rows = (await query.mock.results[at].value) as { slug: string; text: string | null }[];
        return { html: page.text, texts: new Map(rows.map((r) => [r.slug, r.text])) };
      } finally {
        query.mockRestore();
      }
    };
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Bell Buoys', body: 'Bell buoys clang with the swell off the bar.' }).expect(201);
    const first = await cardTexts('bell buoys swell');
    expect(first.texts.get('bell-buoys')).toContain('clang with the swell');
    const again = await cardTexts('bell buoys swell');
    expect(again.texts.get('bell-buoys')).toBeNull();
    // The snippet is the same, made from the sentences held since the first search.
    const snippetOf = (html: string) => html.match(/<mark>[^]*?clang[^]*?</)?.[0];
    expect(snippetOf(first.html)).toMatch(/clang/);
    expect(snippetOf(again.html)).toBe(snippetOf(first.html));
    // Another question about the same page needs its text no more: the sentences are the text's, not the words'.
    expect((await cardTexts('swell bar')).texts.get('bell-buoys')).toBeNull();

    await author.put('/api/pages/bell-buoys').send({ body: 'Bell buoys clang louder with the winter swell off the bar.', baseVersion: created.body.version }).expect(200);
    const edited = await cardTexts('bell buoys swell');
    expect(edited.texts.get('bell-buoys')).toContain('clang louder');
    expect(edited.html).toContain('louder');
  });

  it('takes the pages a query names as live from the names dictionary, which hears every trash: no statement to check', async () => {
    const sent = async (q: string, extra: Record<string, string> = {}) => {
      const query = vi.spyOn(t.dataSource, 'query');
      try {
        const page = await t.http.get('/search').query({ q, ...extra }).expect(200);
        return { html: page.text, statements: query.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : String((sql as { text: string }).text)).replace(/\s+/g, ' ')) };
      } finally {
        query.mockRestore();
      }
    };
    const livenessCheck = (statements: string[]) => statements.some((s) => s.startsWith('SELECT p.id FROM pages p WHERE p.id = ANY'));
    const author = await t.as('author');
    const created = await author.post('/api/pages').send({ title: 'Foghorn Signals', body: 'Two blasts a minute in fog.' }).expect(201);
    await sent('foghorn signals');
    const named = await sent('foghorn signals');
    expect(named.html).toContain('Foghorn Signals');
    expect(livenessCheck(named.statements), named.statements.join('\n')).toBe(false);
    // A filter is still asked of the database.
    expect(livenessCheck((await sent('foghorn signals', { tag: 'maritime' })).statements)).toBe(true);
    // Trashed, it is named no more: the dictionary heard it.
    await author.delete('/api/pages/foghorn-signals').expect(204);
    const gone = await sent('foghorn signals');
    expect(gone.html).not.toContain('Foghorn Signals');
    expect(created.body.slug).toBe('foghorn-signals');
  });

  it('explains which word each matched stem comes from, for words it has seen before and new ones alike', async () => {
    const explained = async (q: string) => (await t.http.get('/api/search').query({ q, explain: 'true' }).expect(200)).body.hits as { slug: string; explain: { terms: { term: string; lexeme: string }[] } }[];
    const first = await explained('keepers trimming');
    const second = await explained('trimming keepers lamps');
    for (const hits of [first, second]) {
      const terms = hits.flatMap((h) => h.explain.terms);
      expect(terms.length).toBeGreaterThan(0);
      for (const term of terms) expect(['keepers', 'trimming', 'lamps']).toContain(term.term);
      expect(terms.find((x) => x.lexeme === 'trim')?.term).toBe('trimming');
    }
    expect(second.flatMap((h) => h.explain.terms).some((x) => x.term === 'lamps')).toBe(true);
  });
});

describe('search: snippets mark only the words that matched', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Bracket notes', body: 'zorblax ⟦everything after this⟧⟧⟧ and ⟦⟦⟦ unclosed, with \uE000 private \uE001 marks too.' }).expect(201);
  });
  afterAll(() => t?.close());

  it('shows brackets a page writes as text, and marks the query word alone', async () => {
    const { body } = await t.http.get('/api/search').query({ q: 'zorblax' }).expect(200);
    expect(body.hits[0].snippetHtml).toBe('<mark>zorblax</mark> ⟦everything after this⟧⟧⟧ and ⟦⟦⟦ unclosed, with  private  marks too.');
    const page = await t.http.get('/search').query({ q: 'zorblax' }).expect(200);
    expect(page.text.match(/<mark>/g)).toHaveLength(1);
  });
});
