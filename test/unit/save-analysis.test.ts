import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractFileReferences, extractFileTargets } from '../../src/pages/markdown/file-embeds.js';
import { parseFrontmatter } from '../../src/pages/markdown/frontmatter.js';
import { referencesOf, saveAnalysisOf } from '../../src/pages/markdown/markdown-tasks.js';
import { stripComments } from '../../src/pages/markdown/obsidian-syntax.js';
import { distinctTargets, embedKeysOf, extractLinks } from '../../src/pages/markdown/wikilinks.js';

// What a save and a preview read from a page, from one parse of its Markdown, must be what reading links and files
// apart gives: checked on the real vaults in test/fixtures and on pages with comments.
function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? markdownFiles(full) : name.endsWith('.md') ? [full] : [];
  });
}

const fixtures = path.resolve(import.meta.dirname, '../fixtures');
const vaultPages = ['foam-docs', 'dendron-site', 'obsidian-vault'].flatMap((vault) => markdownFiles(path.join(fixtures, vault)));
const bodyOf = (source: string) => {
  try {
    return parseFrontmatter(source).body;
  } catch {
    return source;
  }
};
const withComments = [
  'See [[Kept]] %%and [[Hidden]] with ![[hidden.png]]%% and ![](shown.png).',
  '%%\n```\n%%\n[[After a fence in a comment]] and [file](doc.pdf)',
  'Only a comment: %% [[Nothing]] ![[secret.pdf]] %%',
];

describe('a save reads links and files from one parse', () => {
  it('covers the vaults', () => expect(vaultPages.length).toBeGreaterThan(100));

  it.each([...vaultPages.map((file) => [path.relative(fixtures, file), bodyOf(readFileSync(file, 'utf8'))]), ...withComments.map((md, i) => [`comments ${i}`, md])])('%s', (_name, markdown) => {
    const links = extractLinks(stripComments(markdown));
    expect(saveAnalysisOf(markdown)).toEqual({ links: distinctTargets(links), embedKeys: embedKeysOf(links), fileReferences: extractFileReferences(markdown) });
    expect(referencesOf(markdown)).toEqual({ linkKeys: [...new Set(extractLinks(markdown).map((link) => link.key))], fileTargets: extractFileTargets(markdown) });
  });

  it('leaves a commented-out link out of the links but keeps its files', () => {
    const analysis = saveAnalysisOf(withComments[0]);
    expect(analysis.links.map((link) => link.target)).toEqual(['Kept']);
    expect(analysis.fileReferences.map((reference) => reference.target)).toEqual(['hidden.png', 'shown.png']);
  });
});
