import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BuiltinExtractor, cleanMarkdown, confidence, MAX_CONFIDENCE, withoutMenuPaths } from '../../src/extractors/builtin/builtin.extractor.js';
import { ChunkText } from '../../src/extractors/evidence-matcher.js';
import { PREDICATES, type ExtractionRequest } from '../../src/extractors/extraction.types.js';
import { FOAM_DOCS } from '../support/fixtures.js';

const CORPUS = FOAM_DOCS;
const OBSIDIAN_PAGE = readFileSync(`${CORPUS}/user/recipes/migrating-from-obsidian.md`, 'utf8');
// The page up to its "Related" list: about one chunk of prose, a table of wikilinks, and a list.
const OBSIDIAN_CHUNK = OBSIDIAN_PAGE.slice(0, OBSIDIAN_PAGE.indexOf('## Related'));

const REQUEST: ExtractionRequest = {
  pageTitle: 'Coming from Obsidian',
  headingPath: [],
  chunkText: OBSIDIAN_CHUNK,
  knownEntities: [{ name: 'Markdown', type: 'technology' }],
  linkTargets: ['Wikilinks', 'Embeds', 'Block Anchors', 'Backlinks', 'Graph Visualization', 'Templates', 'Tags', 'Recommended Extensions'],
};

const extractor = new BuiltinExtractor();

describe('the built-in extractor on a foam-docs page', () => {
  it('is deterministic: the same input gives the same output', async () => {
    const first = await extractor.extract(REQUEST);
    const second = await new BuiltinExtractor().extract(structuredClone(REQUEST));
    expect(second).toEqual(first);
    expect(first).toMatchObject({ extractor: 'builtin', model: 'kurate-builtin-v9' });
  });

  it('finds the wikilink targets, by title or by the slug the link is written with', async () => {
    const { entities } = await extractor.extract(REQUEST);
    const names = entities.map((e) => e.name);
    for (const title of ['Wikilinks', 'Embeds', 'Block Anchors', 'Backlinks', 'Templates', 'Tags', 'Recommended Extensions']) {
      expect(names).toContain(title);
    }
    // Every link target is at least at the link signal's weight. Types come from evidence, no longer a default of
    // `concept` (issue 22): with no page type and no pattern around it, a title of words of the language is a
    // `concept` however capitalised (`Block Anchors`, `Recommended Extensions`), and a coined one (`Wikilinks`) is
    // `other`, for the admin to type.
    for (const e of entities.filter((e) => REQUEST.linkTargets.includes(e.name))) {
      expect(e.confidence).toBeGreaterThanOrEqual(0.6);
      expect([e.name, e.type]).toEqual([e.name, e.name === 'Wikilinks' ? 'other' : 'concept']);
      expect(e.signals).toContain('link');
    }
    expect(entities.find((e) => e.name === 'Block Anchors')?.evidence).toContain('[[block-anchors]]');
  });

  it('reports a link target it cannot place in the text instead of inventing evidence', async () => {
    const { entities, dropped } = await extractor.extract(REQUEST);
    expect(entities.map((e) => e.name)).not.toContain('Graph Visualization');
    expect(dropped).toContainEqual({ item: 'link target "Graph Visualization"', reason: 'not found in the chunk text' });
  });

  it('finds proper nouns, with confidence growing with mentions', async () => {
    const { entities } = await extractor.extract(REQUEST);
    const byName = new Map(entities.map((e) => [e.name, e]));
    // Typed by the words around them ("Obsidian plugin syntax", "the wider VS Code extension ecosystem"), no longer `other`.
    for (const name of ['Obsidian', 'Foam', 'VS Code']) expect(['product', 'technology']).toContain(byName.get(name)?.type);
    // Obsidian: in the title and in five sentences; Foam: in many sentences; WYSIWYG: once.
    expect(byName.get('Obsidian')!.confidence).toBeGreaterThan(byName.get('Foam')!.confidence);
    expect(byName.get('Foam')!.confidence).toBeGreaterThanOrEqual(0.6);
    expect(byName.get('WYSIWYG')!.confidence).toBe(0.3);
    // A known entity keeps its approved type.
    expect(byName.get('Markdown')).toMatchObject({ type: 'technology' });
    expect(byName.get('Markdown')!.confidence).toBeGreaterThanOrEqual(0.5);
    // Capitalised common words at the start of list items are not names.
    for (const word of ['Try', 'Leave', 'Search', 'Community', 'Canvas', "That's"]) expect(byName.has(word)).toBe(false);
  });

  it('finds noun phrases, at low confidence unless they recur or head the page', async () => {
    const { entities } = await extractor.extract(REQUEST);
    const phrases = entities.filter((e) => e.type === 'concept' && e.name === e.name.toLowerCase());
    expect(phrases.map((e) => e.name)).toEqual(expect.arrayContaining(['preview pane', 'extension ecosystem', 'comparison table']));
    expect(phrases.every((e) => e.confidence < 0.6)).toBe(true);
  });

  it('quotes whole sentences verbatim from the chunk, for every entity and relation', async () => {
    const { entities, relations } = await extractor.extract(REQUEST);
    for (const item of [...entities, ...relations]) {
      expect(OBSIDIAN_CHUNK).toContain(item.evidence);
      expect(new ChunkText(OBSIDIAN_CHUNK).find(item.evidence)?.kind).toBe('verbatim');
    }
    expect(entities.find((e) => e.name === 'Obsidian')?.evidence).toBe(
      'Good news: an Obsidian vault is, for the most part, already a Foam workspace.',
    );
  });

  it('relates names that share a sentence: typed where the words between them say how, else related_to, ordered by name', async () => {
    const { entities, relations } = await extractor.extract(REQUEST);
    expect(relations.length).toBeGreaterThan(0);
    const names = new Set(entities.map((e) => e.name));
    // "Foam uses VS Code's standard split editor": the sentence states the predicate.
    expect(relations).toContainEqual(expect.objectContaining({ source: 'Foam', predicate: 'uses', target: 'VS Code', signals: ['sentence-pattern'] }));
    for (const relation of relations) {
      expect(PREDICATES).toContain(relation.predicate);
      expect(names.has(relation.source) && names.has(relation.target)).toBe(true);
      if (relation.predicate !== 'related_to') continue;
      expect(relation.signals).toEqual(['co-occurrence']);
      expect(relation.source.localeCompare(relation.target, 'en')).toBeLessThan(0);
      const quote = relation.evidence.toLowerCase();
      expect(quote.includes(relation.source.toLowerCase().split(' ')[0]) || quote.includes(relation.target.toLowerCase().split(' ')[0])).toBe(true);
    }
    expect(relations).toContainEqual(expect.objectContaining({ source: 'Foam', target: 'Obsidian' }));
    expect(PREDICATES).toContain('related_to');
  });

  it('keeps at most 30 entities and 30 relations per chunk, saying how many it left out', async () => {
    const { entities, relations } = await extractor.extract(REQUEST);
    expect(entities.length).toBeLessThanOrEqual(30);
    expect(relations.length).toBeLessThanOrEqual(30);
    // Ten linked names in one sentence make 45 pairs.
    const targets = Array.from({ length: 10 }, (_, i) => `Topic ${String.fromCharCode(65 + i)}`);
    const crowded = await extractor.extract({
      ...REQUEST,
      chunkText: `See ${targets.map((t) => `[[${t}]]`).join(', ')} for more.`,
      linkTargets: targets,
    });
    expect(crowded.entities).toHaveLength(10);
    expect(crowded.relations).toHaveLength(30);
    expect(crowded.dropped).toContainEqual({ item: '15 more co-occurrences', reason: 'only the 30 strongest relations of a chunk are kept' });
  });
});

describe('the built-in extractor on small inputs', () => {
  const request = (chunkText: string, overrides: Partial<ExtractionRequest> = {}): ExtractionRequest => ({
    pageTitle: 'Notes',
    headingPath: [],
    chunkText,
    knownEntities: [],
    linkTargets: [],
    ...overrides,
  });

  it('types people, places and organisations where the lexicon knows them', async () => {
    const { entities } = await extractor.extract(
      request('Tim Berners-Lee invented the web at CERN in Geneva. Later the Apache Software Foundation and Microsoft adopted it.'),
    );
    const types = Object.fromEntries(entities.map((e) => [e.name, e.type]));
    expect(types).toMatchObject({
      'Tim Berners-Lee': 'person',
      Geneva: 'place',
      'Apache Software Foundation': 'organization',
      Microsoft: 'organization',
    });
  });

  it('uses the page title and the heading path as evidence of importance', async () => {
    const text = 'Zettelkasten is a method for notes. The slip box holds cards.';
    const plain = await extractor.extract(request(text));
    const titled = await extractor.extract(request(text, { pageTitle: 'Zettelkasten', headingPath: ['Slip box'] }));
    const score = (r: typeof plain, name: string) => r.entities.find((e) => e.name.toLowerCase() === name)?.confidence ?? 0;
    expect(score(titled, 'zettelkasten')).toBeGreaterThan(score(plain, 'zettelkasten'));
    expect(score(titled, 'slip box')).toBeGreaterThan(score(plain, 'slip box'));
  });

  it('ignores fenced code and inline code', async () => {
    const { entities } = await extractor.extract(
      request('Use the CLI.\n\n```bash\nexport GITHUB_TOKEN=Secret Value\nRun Docker Compose\n```\n\nSet `MyVariable` once.'),
    );
    const names = entities.map((e) => e.name);
    expect(names).not.toContain('Docker Compose');
    expect(names).not.toContain('Secret Value');
    expect(names).not.toContain('MyVariable');
  });

  it('takes no name from an identifier, a dotted path or a word that only says where a link points', async () => {
    const { entities } = await extractor.extract(
      request(
        'The snippet inserts TM_CURRENT_LINE and TM_SELECTED_TEXT for Visual Studio Code users. See [[Sample Note|dendron.topic.note-reference.sample]] ' +
          'and read the parameters [here](https://example.com/fuse.ts). Here the Fuse Library matches names.',
        { linkTargets: ['dendron.topic.note-reference.sample'], wantedTargets: [] },
      ),
    );
    const names = entities.map((e) => e.name.toLowerCase());
    expect(names).toContain('visual studio code');
    for (const junk of ['tm', 'current', 'selected', 'tm_current_line', 'dendron.topic.note-reference.sample', 'here']) expect(names).not.toContain(junk);
  });

  it('takes no name from the capitals of a title-case heading or of a path through menus', async () => {
    const { entities } = await extractor.extract(
      request(
        '## Our Pledge\n\nWe as members pledge to make participation harassment-free.\n\n' +
          '1. In VS Code, use File -> Add Folder to Workspace, or **File > Open Folder…** and pick your vault.\n' +
          '2. Open View → Command Palette and run the Zettelkasten command.',
        { pageTitle: 'Conduct' },
      ),
    );
    const names = entities.map((e) => e.name.toLowerCase());
    for (const label of ['pledge', 'folder', 'workspace', 'command palette', 'file']) expect(names).not.toContain(label);
    // A name in the same sentences still counts.
    expect(names).toContain('zettelkasten');
    expect(names).toContain('vs code');
  });

  it('reads hostile runs of capitalised words, ellipses and arrows in linear time (no catastrophic backtracking)', () => {
    // Each of these took seconds to hours with the first menu-path pattern (`Ab... ` 22 times: 0.24 s, doubling with each).
    const started = process.cpuUsage();
    for (const text of [`${'Ab... '.repeat(2000)}> x`, `${'Open Folder to '.repeat(5000)}> x`, `${'Open > '.repeat(5000)}x`, `${'A.b.c.d '.repeat(2000)}> x`]) {
      expect(withoutMenuPaths(text).length).toBeLessThanOrEqual(text.length);
    }
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
    expect(withoutMenuPaths('In it, use File -> Add Folder to Workspace, then close it.')).toBe('In it, use , then close it.');
  });

  it('reads chunks of a thousand brackets, angle brackets, pipes or spaces in linear time', async () => {
    // The link, code and tag patterns looked to the end of the chunk from every opening mark, and `\s*\|\s*` from every
    // blank: quadratic, seconds for a chunk of 20,000 characters.
    const started = process.cpuUsage();
    for (const text of [`${'['.repeat(20_000)}]`, `${'[['.repeat(10_000)}]]`, `${'!['.repeat(10_000)}]`, `${'<'.repeat(20_000)}>`, `a${' '.repeat(20_000)}b`, `${'`'.repeat(20_000)}`, `${'[a]('.repeat(5_000)}`]) {
      await extractor.extract(request(text));
    }
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(3000);
  });

  it('answers an empty or code-only chunk with nothing, and a cancelled call with the abort', async () => {
    expect(await extractor.extract(request(''))).toEqual({ entities: [], relations: [], extractor: 'builtin', model: 'kurate-builtin-v9', dropped: [] });
    expect((await extractor.extract(request('```\nconst x = 1;\n```'))).entities).toEqual([]);
    const controller = new AbortController();
    controller.abort();
    await expect(extractor.extract(request('Foam'), controller.signal)).rejects.toMatchObject({ name: 'ExtractorError', retryable: true });
  });

  it('combines evidence as a noisy-OR, capped below certainty', () => {
    expect(confidence(['link'], 0)).toBe(0.6);
    expect(confidence(['properNoun'], 0)).toBe(0.3);
    expect(confidence(['properNoun'], 2)).toBe(0.494);
    expect(confidence(['link', 'title', 'heading', 'known', 'properNoun'], 9)).toBe(MAX_CONFIDENCE);
    expect(confidence([], 0)).toBe(0);
  });

  it.each([
    ['## Setup on [[Linux]]', 'Setup on Linux'],
    ['- [ ] Read [[Page|the page]] and [docs](https://example.com/docs)', 'Read the page and docs'],
    ['> **Bold** and _emphasis_ and ~~gone~~', 'Bold and emphasis and gone'],
    ['See https://example.com or <b>this</b>.', 'See or this .'],
    ['| a | b |', '; a ; b ;'],
    // An identifier with underscores is code (its parts are no names); emphasis with underscores is not one.
    ['snake_case and TM_CURRENT_LINE are code, _this_ is not', 'and are code, this is not'],
  ])('cleanMarkdown(%o) is %o', (raw, clean) => {
    expect(cleanMarkdown(raw)).toBe(clean);
  });
});
