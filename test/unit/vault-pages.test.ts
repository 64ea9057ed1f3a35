import { describe, expect, it } from 'vitest';
import { vaultPagePathProblem } from '../../src/common/vault-paths.js';
import { pagesOfVault, withCluster, withoutCluster } from '../../src/cli/vault-pages.js';

describe('withoutCluster: export undoes the cluster line import added', () => {
  const sources = [
    'No frontmatter.\n',
    '',
    '---\ntags: [a,  b]\n---\nBody\n',
    '---\r\n# a comment the author keeps\r\ntags: [a]\r\n---\r\nBody\r\n',
    '\uFEFF---\ntitle: With a BOM\n---\ntext',
    '\uFEFFNo frontmatter, a BOM.',
    '---   \naliases: [x]\n---\n',
    'Text that mentions\ncluster: kitchen\nin its body.\n',
  ];
  for (const cluster of ['kitchen', 'user/features', '2024', 'yes']) {
    for (const source of sources) {
      it(`gives ${JSON.stringify(source.slice(0, 30))} back after withCluster(…, ${cluster})`, () => {
        const imported = withCluster(source, cluster);
        expect(imported).not.toBe(source);
        expect(withoutCluster(imported, cluster)).toBe(source);
      });
    }
  }

  it('keeps a line naming another cluster, or written elsewhere in the block', () => {
    expect(withoutCluster('---\ncluster: garden\n---\nx', 'kitchen')).toBe('---\ncluster: garden\n---\nx');
    expect(withoutCluster('---\ntags: [a]\ncluster: kitchen\n---\nx', 'kitchen')).toBe('---\ntags: [a]\ncluster: kitchen\n---\nx');
  });

  it('is only asked for when import added the line: an author\'s own line reads the same, so import says which', () => {
    const own = '---\ncluster: kitchen\ntags: [a]\n---\nkept\n';
    expect(withCluster(own, 'kitchen')).toBe(own);
    expect(pagesOfVault([{ relativePath: 'kitchen/Own.md', source: own }]).pages[0].addedCluster).toBeUndefined();
  });

  it('leaves a re-serialised block as it is: that change cannot be undone exactly', () => {
    const imported = withCluster('---\n{type: note}\n---\nflow\n', 'misc');
    expect(imported).toBe('---\ntype: note\ncluster: misc\n---\nflow\n');
    expect(withoutCluster(imported, 'misc')).toBe(imported);
  });
});

describe('pagesOfVault: which notes carry an added cluster', () => {
  it('names the cluster it added, and none for a note at the root or with its own cluster line', () => {
    const { pages } = pagesOfVault([
      { relativePath: 'Getting started/Deep/Index.md', source: 'Hello' },
      { relativePath: 'Root.md', source: 'At the root' },
      { relativePath: 'misc/Own.md', source: '---\ncluster: elsewhere\n---\nkept' },
    ]);
    expect(pages).toEqual([
      { path: 'Getting started/Deep/Index.md', title: 'Index', body: '---\ncluster: getting-started/deep\n---\nHello', addedCluster: 'getting-started/deep' },
      { path: 'Root.md', title: 'Root', body: 'At the root' },
      { path: 'misc/Own.md', title: 'Own', body: '---\ncluster: elsewhere\n---\nkept' },
    ]);
  });
});

describe('vaultPagePathProblem: the paths export may write a page back to', () => {
  it('takes relative Markdown paths with the names as written', () => {
    for (const ok of ['Index.md', 'Getting started/Deep/Note one.markdown', 'kitchen/Recipes.MD', 'Year%3A One.md']) {
      expect(vaultPagePathProblem(ok), ok).toBeNull();
    }
  });

  it('refuses paths that could leave the folder, hidden steps and files that are not Markdown', () => {
    for (const bad of ['../up.md', '/abs.md', 'a//b.md', 'a/./b.md', '.obsidian/x.md', 'a\\b.md', 'a\u0000.md', ' lead.md', 'image.png', '']) {
      expect(vaultPagePathProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
  });
});
