import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, rollback } from '../../src/db/migration-runner.js';
import { parseSearchQuery } from '../../src/search/search-query.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const migrationsAfter0030 = () => readdirSync(path.resolve(import.meta.dirname, '../../migrations')).filter((f) => /^\d{4}_.*\.sql$/.test(f) && f > '0030_search_camel_case_names.sql').length;

// A title, alias or tag written as a lowerCamelCase identifier (a setting: `templateHierarchy`) is searchable by its
// words as well as whole (migration 0030, docs/search.md); a product name (`GitHub`) is not split.
describe('lowerCamelCase names, searchable by their words', () => {
  let t: TestApp;
  const slugs = async (q: string) => ((await t.http.get('/api/search').query({ q }).expect(200)).body.hits as { slug: string }[]).map((r) => r.slug);

  beforeAll(async () => {
    t = await startTestApp();
    const author = await t.as('author');
    // Saved before migration 0030, as on a wiki that upgrades: the migration rewrites their search text.
    expect((await rollback(t.dataSource, migrationsAfter0030() + 1)).at(-1)).toBe('0030_search_camel_case_names');
    await author.post('/api/pages').send({ title: 'templateHierarchy', body: 'The default for new notes.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Copy settings', body: '---\naliases: [aliasMode]\n---\nHow links are written.' }).expect(201);
    await author.post('/api/pages').send({ title: 'GitHub', body: 'Where the code lives.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Git', body: 'Version control.' }).expect(201);
    await migrate(t.dataSource);
    await author.post('/api/pages').send({ title: 'enableSmartRefs', body: 'Turns on references.' }).expect(201);
  });
  afterAll(() => t?.close());

  it('finds a setting by its words, whole or apart, saved before the migration or after', async () => {
    expect((await slugs('which hierarchy are templates in'))[0]).toBe('templatehierarchy');
    expect((await slugs('templateHierarchy'))[0]).toBe('templatehierarchy');
    expect((await slugs('alias mode'))[0]).toBe('copy-settings');
    expect((await slugs('smart refs'))[0]).toBe('enablesmartrefs');
  });

  it('leaves product names whole', async () => {
    const vector = async (slug: string) => ((await t.dataSource.query('SELECT search::text AS v FROM pages WHERE slug = $1', [slug])) as { v: string }[])[0].v;
    expect(await vector('github')).not.toMatch(/'hub'/);
    expect(await vector('templatehierarchy')).toMatch(/'hierarchi':\d+A/);
    expect((await slugs('git'))[0]).toBe('git');
  });

  it('reads such a word in the query as its words too', () => {
    expect(parseSearchQuery('todoIntegration').words).toBe('todoIntegration todo Integration');
    expect(parseSearchQuery('GitHub KaTeX iPhone macOS').words).toBe('GitHub KaTeX iPhone macOS');
    expect(parseSearchQuery('Plugins/Backlinks').words).toBe('Plugins/Backlinks Plugins Backlinks');
  });
});
