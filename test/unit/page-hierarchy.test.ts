// Where a page sits in its vault: folder notes and dotted names (src/kg/page-hierarchy.ts), and the places the
// extraction hands the extractor for the pages a page links to.
import { describe, expect, it } from 'vitest';
import { hierarchyPlace, parentPaths } from '../../src/kg/page-hierarchy.js';
import { linkTargetsOf, writtenSurface } from '../../src/kg/page-extraction.service.js';
import { linkKey } from '../../src/pages/markdown/slug.js';

describe('a page\'s parent in its vault', () => {
  it.each([
    ['user/tools/cli/list.md', ['user/tools/cli.md', 'user/tools/cli/index.md', 'user/tools/cli/readme.md', 'user/tools/cli/cli.md']],
    ['vault/dendron.topic.templates.schema.md', ['vault/dendron.topic.templates.md', 'vault.md', 'vault/index.md', 'vault/readme.md', 'vault/vault.md']],
    ['a.b.md', ['a.md']],
    ['notes.md', []],
    ['user/index.md', []],
    ['user/recipes/recipes.md', []],
    ['user/tools/cli.png', []],
  ])('%s', (path, parents) => {
    expect(parentPaths(path)).toEqual(parents);
  });

  it('places a linked page under, over or beside the page, whatever the case or separators', () => {
    expect(hierarchyPlace('user/tools/cli.md', 'user/tools/cli/list.md')).toBe('child');
    expect(hierarchyPlace('User\\Tools\\CLI\\list.md', 'user/tools/cli.md')).toBe('parent');
    expect(hierarchyPlace('user/recipes/recipes.md', 'user/recipes/web-clipper.md')).toBe('child');
    expect(hierarchyPlace('vault/a.b.md', 'vault/a.b.c.md')).toBe('child');
    expect(hierarchyPlace('vault/a.b.md', 'vault/a.c.md')).toBeNull();
    expect(hierarchyPlace('user/tools/cli.md', 'user/tools/cli/sub/deep.md')).toBeNull();
    expect(hierarchyPlace(null, 'user/tools/cli/list.md')).toBeNull();
    expect(hierarchyPlace('user/tools/cli.md', null)).toBeNull();
  });

  it('gives the extractor the place of every page the page links to, by title', () => {
    const pages = new Map([
      { title: 'list', cluster: 'user/tools/cli', type: null, path: 'user/tools/cli/list.md' },
      { title: 'grep', cluster: 'user/tools/cli', type: null, path: 'user/tools/cli/grep.md' },
      { title: 'Graph View', cluster: 'user/features', type: null, path: 'user/features/graph-view.md' },
      { title: 'Written here', cluster: null, type: null, path: null },
    ].map((page) => [linkKey(page.title), page]));
    const out = linkTargetsOf('Run [[list]] or see [[Graph View]].', pages, new Set(), 'user/tools/cli.md');
    expect(out.linkTargets.sort()).toEqual(['Graph View', 'list']);
    expect(out.linkTargetPlaces).toEqual({ list: 'child', grep: 'child' });
    expect(linkTargetsOf('Run [[list]].', pages).linkTargetPlaces).toEqual({});
  });

  it('gives the extractor each linked page\'s own first heading, by title', () => {
    const pages = new Map([{ title: 'list', cluster: 'user/tools/cli', type: null, path: 'user/tools/cli/list.md', head: '# foam list\n\nList notes.' }].map((page) => [linkKey(page.title), page]));
    expect(linkTargetsOf('Run [[list]].', pages).linkTargetHeadings).toEqual({ list: 'foam list' });
  });
});

describe('a mention\'s surface', () => {
  it('is how the chunk writes the entity: its name, else the first other spelling the chunk has', () => {
    expect(writtenSurface({ name: 'Note Templates', surfaces: ['templates'] }, 'See [[templates]]: templates start new notes.')).toBe('templates');
    expect(writtenSurface({ name: 'Note Templates', surfaces: ['templates'] }, 'Foam supports note templates.')).toBe('Note Templates');
    expect(writtenSurface({ name: 'foam list', surfaces: ['list'] }, 'Nothing here names it.')).toBe('foam list');
    // A spelling inside a longer word does not count.
    expect(writtenSurface({ name: 'Foam CLI', surfaces: ['cli'] }, 'Run the client.')).toBe('Foam CLI');
  });
});
