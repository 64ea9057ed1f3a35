// The mechanisms that keep noise out of the built-in extractor's proposals (issue 22, docs/extraction.md): attachments,
// how-to titles, name variants, corpus statistics, the longest name, typed relations from sentences, See also links.
import { describe, expect, it } from 'vitest';
import { isAttachmentTarget } from '../../src/extractors/attachments.js';
import { extractBuiltin, typeByForm } from '../../src/extractors/builtin/builtin.extractor.js';
import { displayTitle, headingName, titleKind, variantKey } from '../../src/extractors/builtin/name-forms.js';
import { leadingHeading } from '../../src/pages/markdown/frontmatter.js';
import { typedRelation } from '../../src/extractors/builtin/relation-patterns.js';
import type { ExtractedEntity, ExtractionRequest } from '../../src/extractors/extraction.types.js';
import { termCounts } from '../../src/kg/term-stats.js';
import { expectedCalibrationError, twinKey, twinRate } from '../../eval/extraction-judging.js';

const request = (chunkText: string, overrides: Partial<ExtractionRequest> = {}): ExtractionRequest => ({
  pageTitle: 'Notes', headingPath: [], chunkText, knownEntities: [], linkTargets: [], ...overrides,
});
const names = (r: { entities: { name: string }[] }) => r.entities.map((e) => e.name);
const entity = (name: string): ExtractedEntity => ({ name, type: 'other', confidence: 0.7, evidence: '' });

describe('attachments are never entities', () => {
  it.each(['lucide-cog.svg', 'Screenshot 2024-01-02 at 10.00.png', 'files/report.PDF', 'talk.mp3', 'demo.mp4', 'board.canvas'])('%s is an attachment', (target) => {
    expect(isAttachmentTarget(target)).toBe(true);
  });
  it.each(['Node.js', 'Graph View', 'v1.2', 'notes.md', 'README'])('%s is not', (target) => {
    expect(isAttachmentTarget(target)).toBe(false);
  });

  it('drops embeds and links of files, whatever the link targets say', () => {
    const text = 'Click the gear ![[lucide-cog.svg#icon]] to open Settings. See ![[Screenshot 2024.png]] and ![diagram](img/Flow Chart.png) or [[Guide.pdf]].\n\nThe [[Sync Service]] keeps notes. See [CONTRIBUTING.md](../../CONTRIBUTING.md).';
    const result = extractBuiltin(request(text, { linkTargets: ['lucide-cog.svg', 'Screenshot 2024.png', 'Guide.pdf', 'Sync Service', '../../CONTRIBUTING.md'] }));
    expect(names(result)).toContain('Sync Service');
    for (const name of names(result)) expect(name).not.toMatch(/\.(?:svg|png|pdf|md)$|\/|Flow Chart|Screenshot/i);
  });
});

describe('page titles', () => {
  it.each([
    ['Manage vaults', 'task'], ['add-images-to-notes', 'task'], ['publish-to-vercel', 'task'], ['Coming from Obsidian', 'task'], ['How to write recipes', 'task'],
    ['Format your notes', 'task'], ['diagrams-in-markdown', 'topic'], ['frequently-asked-questions', 'topic'],
    ['Graph view', 'entity'], ['block-anchors', 'entity'], ['Share Sheet', 'entity'], ['Command palette', 'entity'], ['spell-checking', 'entity'],
    ['Material for MkDocs', 'entity'], ['Canvas', 'entity'],
    ['Getting Started', 'task'], ['Using Hierarchy Position', 'task'], ['Creating new notes', 'task'], ['Meeting Note', 'entity'],
    ['Trait Examples', 'topic'], ['Note Reference Sample', 'topic'],
    ['Spell Checking', 'entity'], ['String Manipulation Functions', 'entity'],
  ])('%s names a %s', (title, kind) => {
    expect(titleKind(title)).toBe(kind);
  });

  it('writes a file-name title as the text writes it', () => {
    expect(displayTitle('web-clipper', 'Clip pages with the Web Clipper extension')).toBe('Web Clipper');
    expect(displayTitle('spell-checking', 'Turn on spell-checking here')).toBe('spell-checking');
    expect(displayTitle('graph-view', 'Nothing about it')).toBe('graph view');
    expect(displayTitle('Graph View', 'graph view')).toBe('Graph View');
    // A reference definition or a path spells the file: the name is the words.
    expect(displayTitle('block-anchors', 'See [[block-anchors]].\n\n[block-anchors]: ../features/block-anchors.md "Block Anchors"')).toBe('block anchors');
    expect(displayTitle('block-anchors', 'Read features/block-anchors.md for block syntax')).toBe('block anchors');
  });

  it('proposes a how-to title as nothing, and says why', () => {
    const result = extractBuiltin(request('Read [[publish-to-vercel]] and [[graph-view]] to see the graph view.', { linkTargets: ['publish-to-vercel', 'graph-view'] }));
    expect(names(result)).toEqual(['graph view']);
    expect(result.dropped).toContainEqual({ item: 'link target "publish-to-vercel"', reason: 'a how-to page title: a page, not an entity' });
    expect(result.entities[0].surfaces).toContain('graph-view');
  });
});

describe('variants are one name', () => {
  it('keys case, plural and file-name spellings alike', () => {
    expect(new Set(['Tags', 'tag', 'TAG'].map(variantKey))).toEqual(new Set(['tag']));
    expect(variantKey('web-clipper')).toBe(variantKey('Web Clipper'));
    expect(variantKey('Properties')).toBe('property');
    expect(variantKey('class')).toBe('class');
  });

  it('gives one entity with its other spellings as surfaces', () => {
    const result = extractBuiltin(request('Open [[daily-notes]] to write Daily Notes. Daily notes are dated.', { linkTargets: ['daily-notes'] }));
    const daily = result.entities.filter((e) => variantKey(e.name) === 'daily note');
    expect(daily).toHaveLength(1);
    expect(daily[0].surfaces).toEqual(expect.arrayContaining(['daily-notes']));
  });
});

describe('corpus statistics', () => {
  it('counts lower-case and capitalised uses in running text, not at sentence starts, in headings or code', () => {
    const counts = termCounts('# Folder Setup\n\nPut the folder here. Folder names matter: the Folder plugin too.\n\n```\nFolder folder\n```\n- Folder one\n\n[[Folder]] and [label](x.md)');
    expect(counts.get('folder')).toEqual({ lower: 1, capitalised: 1 });
    expect(counts.has('the')).toBe(false);
    expect(counts.get('label')).toEqual({ lower: 1, capitalised: 0 });
  });

  it('counts a page of hostile characters in linear time (it runs in the save, on the web thread)', () => {
    // A line of `[` took 24 s at 100,000 characters: each link pattern rescanned the rest of the line from every `[`.
    // Timed at two lengths, the fastest of three runs each, so that a busy machine (or another test's threads in this
    // process) does not decide it: twice the text takes about twice the time when the work is linear, four times
    // when it is quadratic (as the scan was). The bound sits between the two (a full run of the suite on PostgreSQL,
    // with other work on the machine, once measured 3.3 times for linear work).
    const hostile = (n: number) => [`${'['.repeat(n)}]`, `${'[['.repeat(n / 2)}]]`, `${'!['.repeat(n / 2)}]`, `${'<'.repeat(n)}>`, `${'`'.repeat(n)}`, `${' '.repeat(n)}x`, '[a]('.repeat(n / 4)];
    const timed = (texts: string[]) => {
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        for (const text of texts) termCounts(text);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const half = timed(hostile(50_000));
    const whole = timed(hostile(100_000));
    expect(whole).toBeLessThan(3.6 * half + 50);
    // Links, images, code and tags of ordinary length are still read around.
    const counts = termCounts('See [the Label](x.md), ![an Image](i.png), `Code Word` and <span class="Tag">Text</span> here.');
    expect(counts.get('label')).toEqual({ lower: 0, capitalised: 1 });
    expect(counts.has('image')).toBe(false);
    expect(counts.has('code')).toBe(false);
    expect(counts.has('tag')).toBe(false);
  });

  it('drops a capitalised common word the wiki writes in lower case, keeps one it writes as a name', () => {
    const text = 'Open the Folder panel. Then the Canvas opens.';
    const stats = { pages: 10, terms: { folder: { pages: 8, lower: 40, capitalised: 3 }, canvas: { pages: 5, lower: 1, capitalised: 30 } } };
    const result = extractBuiltin(request(text, { termStats: stats }));
    expect(names(result)).toContain('Canvas');
    expect(names(result)).not.toContain('Folder');
    expect(result.dropped.find((d) => d.item === 'name "Folder"')?.reason).toMatch(/ordinary word in this wiki/);
  });

  it('reads a capitalised word at a sentence start as a name when the wiki writes it capitalised inside its sentences', () => {
    const text = 'Zorbly supports note templates. Templates save time.';
    const stats = { pages: 10, terms: { zorbly: { pages: 9, lower: 1, capitalised: 25 }, templates: { pages: 6, lower: 30, capitalised: 12 } } };
    // Without the statistics a lone capital after a sentence start says nothing.
    expect(names(extractBuiltin(request(text)))).not.toContain('Zorbly');
    const result = extractBuiltin(request(text, { termStats: stats }));
    expect(names(result)).toContain('Zorbly');
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Zorbly', predicate: 'enables', target: 'note templates' }));
    // A word the wiki writes in lower case stays out, and so does a common word however the wiki writes it.
    expect(names(result)).not.toContain('Templates');
    const common = { pages: 10, terms: { notes: { pages: 9, lower: 1, capitalised: 25 } } };
    expect(names(extractBuiltin(request('Notes keep ideas apart. Write one a day.', { pageTitle: 'Habits', termStats: common })))).not.toContain('Notes');
  });
});

describe('a type from the name itself, when nothing else says one', () => {
  it.each([
    ['graph view', 'concept'],
    ['Graph View', 'concept'],
    ['Self Contained Vaults', 'concept'],
    ['Go Previous Sibling', 'concept'],
    ['Lookup', 'concept'],
    ['enableSmartRefs', 'concept'],
    ['GitLab', 'technology'],
    ['KaTeX', 'technology'],
    ['SQLite', 'technology'],
    ['YAML Frontmatter', 'technology'],
    ['Draw.io', 'technology'],
    ['Vercel', 'other'],
    ['Wikilinks', 'other'],
    ['Dendron: Go to', 'other'],
  ])('%s is %s', (name, type) => {
    expect(typeByForm(name)).toBe(type);
  });

  it('types a title-case page title of ordinary words as a concept in the extraction', () => {
    const found = extractBuiltin(request('Scratch notes are for throwaway thoughts. [[Scratch Note]] has more.', { pageTitle: 'Scratch Note', linkTargets: ['Scratch Note'] }));
    expect(found.entities.find((e) => e.name === 'Scratch Note')?.type).toBe('concept');
  });
});

describe('the longest name the text supports', () => {
  it('drops a name that only ever occurs inside a longer one', () => {
    const result = extractBuiltin(request('Tap the Share Sheet in Obsidian Mobile. The Share Sheet opens in Obsidian Mobile and shows targets.'));
    expect(names(result)).toContain('Share Sheet');
    expect(names(result)).not.toContain('Sheet');
  });
});

describe('typed relations from sentences', () => {
  it.each([
    ['Markdown is a lightweight markup language.', 'Markdown', 'markup language', ['Markdown', 'is_a', 'markup language']],
    ['The graph view requires the Graph plugin.', 'graph view', 'Graph plugin', ['graph view', 'requires', 'Graph plugin']],
    ['Backlinks is part of the Core plugins.', 'Backlinks', 'Core plugins', ['Backlinks', 'part_of', 'Core plugins']],
    ['Obsidian Sync replaces Dropbox for many.', 'Obsidian Sync', 'Dropbox', ['Obsidian Sync', 'replaces', 'Dropbox']],
    ['Static site generators such as Jekyll work.', 'Static site generators', 'Jekyll', ['Jekyll', 'is_a', 'Static site generators']],
    ['Foam is built on VS Code.', 'Foam', 'VS Code', ['Foam', 'uses', 'VS Code']],
    ['Canvas contains cards.', 'Canvas', 'cards', ['cards', 'part_of', 'Canvas']],
    ['Template variables that are automatically included in your templates.', 'Template variables', 'templates', ['Template variables', 'part_of', 'templates']],
    ['Vaults live inside the workspace.', 'Vaults', 'workspace', ['Vaults', 'part_of', 'workspace']],
    ['Snippets are templates that you can trigger.', 'Snippets', 'templates', ['Snippets', 'is_a', 'templates']],
    ['Foam leverages VS Code.', 'Foam', 'VS Code', ['Foam', 'uses', 'VS Code']],
    ['Lookup supports multiple vaults.', 'Lookup', 'vaults', ['Lookup', 'enables', 'vaults']],
  ])('%s', (sentence, a, b, [source, predicate, target]) => {
    expect(typedRelation(sentence, entity(a), entity(b))).toEqual({ source, predicate, target });
  });

  it('says nothing when the words between the names state nothing', () => {
    expect(typedRelation('Foam, VS Code and GitHub all work.', entity('Foam'), entity('GitHub'))).toBeNull();
    expect(typedRelation('Use Foam with GitHub.', entity('Foam'), entity('GitHub'))).toBeNull();
    // A negation is not stripped with the adverbs, and no pattern reads it.
    expect(typedRelation('Foam does not require GitHub.', entity('Foam'), entity('GitHub'))).toBeNull();
    expect(typedRelation('Foam rarely needs GitHub.', entity('Foam'), entity('GitHub'))).not.toBeNull();
  });

  it('reads "It …" and "This plugin …" on a page about a thing as that thing stating the relation', () => {
    const result = extractBuiltin(request('The graph shows your notes.\n\nIt uses [[Cytoscape]] to draw them. This feature requires the [[Foam Extension]].', { pageTitle: 'Graph View', linkTargets: ['Cytoscape', 'Foam Extension'] }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Graph View', predicate: 'uses', target: 'Cytoscape', signals: ['sentence-pattern', 'page-subject'] }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Graph View', predicate: 'requires', target: 'Foam Extension' }));
    expect(names(result)).toContain('Graph View');
    // A pronoun with nothing typed after it says nothing; a how-to page has no subject to stand for.
    expect(extractBuiltin(request('It works well with [[Cytoscape]].', { pageTitle: 'Graph View', linkTargets: ['Cytoscape'] })).relations).toEqual([]);
    expect(extractBuiltin(request('It uses [[Cytoscape]].', { pageTitle: 'Publish to Vercel', linkTargets: ['Cytoscape'] })).relations).toEqual([]);
  });

  it('relates a page to what its See also links point at', () => {
    const result = extractBuiltin(request('See also [[Backlinks]] for the panel.', { pageTitle: 'Graph view', linkTargets: ['Backlinks'] }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Graph view', predicate: 'related_to', target: 'Backlinks', signals: ['see-also'] }));
  });
});

describe('names from a page\'s own first heading', () => {
  it('reads the heading a page opens with, after its frontmatter', () => {
    expect(leadingHeading('# foam list\n\nList notes.')).toBe('foam list');
    expect(leadingHeading('---\ntags: [cli]\n---\n\n# Foam CLI #\n\ntext')).toBe('Foam CLI');
    expect(leadingHeading('Intro first.\n\n# Later heading')).toBeNull();
    expect(leadingHeading('## A section\n\ntext')).toBeNull();
    expect(leadingHeading('#hashtag at the start')).toBeNull();
    expect(leadingHeading('\r\n  \r\n# Windows lines\r\nbody')).toBe('Windows lines');
    // A first line of spaces and hashes is read in linear time, and a long first line is no name.
    expect(leadingHeading(`# ${' '.repeat(200_000)}x`)).toBeNull();
    expect(leadingHeading(`# a${'  '.repeat(100_000)}\tx`)).toBeNull();
  });

  it.each([
    ['list', 'foam list', 'foam list'], ['cli', 'Foam CLI', 'Foam CLI'], ['templates', 'Note Templates', 'Note Templates'],
    ['graph-view', 'Graph Visualization', null], ['navigation', 'Navigation in Foam', null], ['recipes', 'Recipes', null],
    ['orphans', 'Orphaned Notes', null], ['list', 'How to list notes?', null], ['list', null, null],
    ['Python', 'Python Basics', null], ['git', 'Git Cheatsheet', null], ['docker', 'Docker Overview', null], ['Kubernetes', 'Kubernetes Notes', null],
    ['Python', 'Python', null], ['embeds', 'Note Embeds', 'Note Embeds'],
  ])('%s with the heading %s is named %s', (title, heading, name) => {
    expect(headingName(title, heading)).toBe(name);
  });

  it('names a linked page and the page itself as their headings do, the title kept as another spelling', () => {
    const result = extractBuiltin(request('| [[list]] | List notes |\n\nThe Foam CLI runs in a terminal.', {
      pageTitle: 'cli', pageHeading: 'Foam CLI', linkTargets: ['list'], linkTargetHeadings: { list: 'foam list' }, linkTargetPlaces: { list: 'child' },
    }));
    expect(names(result)).toEqual(expect.arrayContaining(['foam list', 'Foam CLI']));
    expect(names(result)).not.toContain('list');
    expect(result.entities.find((e) => e.name === 'foam list')?.surfaces).toContain('list');
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'foam list', predicate: 'part_of', target: 'Foam CLI' }));
  });
});

describe('typed relations from the vault\'s hierarchy', () => {
  const templates = '## Kinds\n\n- [[Schema Template|dendron.topic.templates.schema]]: applied by a schema.\n- [[Template Helpers|dendron.topic.templates.helpers]]: built-in functions.\n\nSee [[Lookup]] to find notes.';

  it('reads a link to a page under this one as a kind of it (its head noun) or a part of it', () => {
    const result = extractBuiltin(request(templates, {
      pageTitle: 'Templates', linkTargets: ['Schema Template', 'Template Helpers', 'Lookup'],
      linkTargetPlaces: { 'Schema Template': 'child', 'Template Helpers': 'child' },
    }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Schema Template', predicate: 'is_a', target: 'Templates', signals: ['hierarchy'] }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'Template Helpers', predicate: 'part_of', target: 'Templates', signals: ['hierarchy'] }));
    expect(result.relations.filter((r) => r.source === 'Lookup' || r.target === 'Lookup').map((r) => r.predicate)).toEqual(['related_to']);
    expect(names(result)).toContain('Templates');
    // Without the places, the same links relate nothing by hierarchy.
    expect(extractBuiltin(request(templates, { pageTitle: 'Templates', linkTargets: ['Schema Template', 'Template Helpers', 'Lookup'] })).relations.filter((r) => r.signals?.includes('hierarchy'))).toEqual([]);
  });

  it('reads a link to the page this one sits under the other way round', () => {
    const result = extractBuiltin(request('The `list` command of the [[Foam CLI]] lists notes.', { pageTitle: 'foam list', linkTargets: ['Foam CLI'], linkTargetPlaces: { 'Foam CLI': 'parent' } }));
    expect(result.relations).toContainEqual(expect.objectContaining({ source: 'foam list', predicate: 'part_of', target: 'Foam CLI' }));
  });

  it('relates nothing under a page whose pages below are mostly how-tos, nor under a how-to or topic page', () => {
    const recipes = '- [[web-clipper]]: clip pages.\n- [[add-images-to-notes]]\n- [[export-to-pdf]]';
    const places = { 'web-clipper': 'child', 'add-images-to-notes': 'child', 'export-to-pdf': 'child' } as const;
    expect(extractBuiltin(request(recipes, { pageTitle: 'recipes', linkTargets: ['web-clipper', 'add-images-to-notes', 'export-to-pdf'], linkTargetPlaces: places })).relations.filter((r) => r.signals?.includes('hierarchy'))).toEqual([]);
    expect(extractBuiltin(request(templates, { pageTitle: 'Using templates', linkTargets: ['Schema Template'], linkTargetPlaces: { 'Schema Template': 'child' } })).relations.filter((r) => r.signals?.includes('hierarchy'))).toEqual([]);
  });

  it('replaces a related_to of the same pair', () => {
    const result = extractBuiltin(request('See also [[Backlinks]] for the panel.', { pageTitle: 'Sidebar', linkTargets: ['Backlinks'], linkTargetPlaces: { Backlinks: 'child' } }));
    expect(result.relations).toEqual([expect.objectContaining({ source: 'Backlinks', predicate: 'part_of', target: 'Sidebar' })]);
  });
});

describe('the evaluation’s figures', () => {
  it('counts twins and the calibration error', () => {
    expect(twinKey('Tags')).toBe(twinKey('tag'));
    expect(twinRate(['Tag', 'tags', 'Foam', 'graph-view', 'Graph View']).twins).toBe(4);
    expect(expectedCalibrationError([{ confidence: 0.95, approved: true }, { confidence: 0.65, approved: false }])).toBe(0.35);
  });
});
