import markdownit from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { extractLinks, wikilinkPlugin, type ParsedLink } from '../../src/pages/markdown/wikilinks.js';

function wikilink(target: string, key: string, extra: Partial<ParsedLink> = {}): ParsedLink {
  return { kind: 'wikilink', target, heading: null, label: null, key, ...extra };
}

function markdownLink(target: string, key: string, label: string | null, heading: string | null = null): ParsedLink {
  return { kind: 'markdown', target, heading, label, key };
}

describe('wikilinkPlugin', () => {
  const md = markdownit().use(wikilinkPlugin);
  const inlineTokens = (source: string) => md.parseInline(source, {})[0].children ?? [];

  it('produces a wikilink token carrying target, heading, label and embed', () => {
    const [token] = inlineTokens('[[Page#Part|shown]]');
    expect(token.type).toBe('wikilink');
    expect(token.meta).toEqual({ target: 'Page', heading: 'Part', label: 'shown', embed: false });
    expect(token.content).toBe('[[Page#Part|shown]]');
  });

  it('marks embeds', () => {
    const [token] = inlineTokens('![[Page]]');
    expect(token.meta).toEqual({ target: 'Page', heading: null, label: null, embed: true });
    expect(token.content).toBe('![[Page]]');
  });

  it('leaves an empty target as literal text', () => {
    expect(md.renderInline('[[]] [[ ]] [[|x]] [[#Heading]]')).toBe('[[]] [[ ]] [[|x]] [[#Heading]]');
  });

  it('leaves targets with brackets or newlines as literal text', () => {
    expect(inlineTokens('[[a[b]]').some((token) => token.type === 'wikilink')).toBe(false);
    expect(inlineTokens('[[a]b]]').some((token) => token.type === 'wikilink')).toBe(false);
    expect(inlineTokens('[[a\nb]]').some((token) => token.type === 'wikilink')).toBe(false);
  });
});

describe('extractLinks: wikilinks', () => {
  it.each<[string, ParsedLink]>([
    ['[[Page]]', wikilink('Page', 'page')],
    ['[[Page|label]]', wikilink('Page', 'page', { label: 'label' })],
    ['[[Page#Heading]]', wikilink('Page', 'page', { heading: 'Heading' })],
    ['[[Page#Heading|label]]', wikilink('Page', 'page', { heading: 'Heading', label: 'label' })],
    ['![[Page]]', wikilink('Page', 'page', { kind: 'embed' })],
    ['![[Page#Part|label]]', wikilink('Page', 'page', { kind: 'embed', heading: 'Part', label: 'label' })],
    ['[[Graph View]]', wikilink('Graph View', 'graph-view')],
    ['[[user/features/graph-view.md]]', wikilink('user/features/graph-view.md', 'graph-view')],
    ['[[note-name#^blockid]]', wikilink('note-name', 'note-name', { heading: '^blockid' })],
    ['[[  Page  #  Heading  |  label  ]]', wikilink('Page', 'page', { heading: 'Heading', label: 'label' })],
    ['[[Page#]]', wikilink('Page', 'page')],
    ['[[Page|]]', wikilink('Page', 'page')],
    ['[[Page|a|b]]', wikilink('Page', 'page', { label: 'a|b' })],
    ['[[Page#a#b]]', wikilink('Page', 'page', { heading: 'a#b' })],
    ['[[日本語 ページ]]', wikilink('日本語 ページ', '日本語-ページ')],
    ['[[🚀]]', wikilink('🚀', '')],
  ])('parses %j', (source, link) => {
    expect(extractLinks(source)).toEqual([link]);
  });

  it.each(['[[#Heading]]', '[[]]', '[[ ]]', '[[|label]]', '[[#]]', '[[a[b]]', '[[a]b]]', '[[Page]', '[Page]]', '[[a\nb]]'])(
    'finds no page link in %j',
    (source) => {
      expect(extractLinks(source)).toEqual([]);
    },
  );

  it('does not treat a backslash-escaped bracket as a wikilink', () => {
    expect(extractLinks('\\[[Page]]')).toEqual([]);
  });

  it('finds a wikilink nested in extra brackets', () => {
    expect(extractLinks('[[[Page]]]')).toEqual([wikilink('Page', 'page')]);
  });

  it('reads `\\|` inside a table cell as the label separator', () => {
    const table = '| Link | Note |\n| --- | --- |\n| [[Page\\|label]] | x |\n';
    expect(extractLinks(table)).toEqual([wikilink('Page', 'page', { label: 'label' })]);
  });
});

describe('extractLinks: Markdown links', () => {
  it.each<[string, ParsedLink]>([
    ['[text](other-page.md)', markdownLink('other-page.md', 'other-page', 'text')],
    ['[text](./Other%20Page.md#sec)', markdownLink('./Other Page.md', 'other-page', 'text', 'sec')],
    ['[text](../folder/page)', markdownLink('../folder/page', 'page', 'text')],
    ['[text](<Other Page.md>)', markdownLink('Other Page.md', 'other-page', 'text')],
    ['[text](notes.markdown)', markdownLink('notes.markdown', 'notes', 'text')],
    ['[text](Page.MD)', markdownLink('Page.MD', 'page', 'text')],
    ['[text](page.md?v=2#part)', markdownLink('page.md', 'page', 'text', 'part')],
    ['[text](page#Caf%C3%A9)', markdownLink('page', 'page', 'text', 'Café')],
    ['[text](./%C3%9Cber.md)', markdownLink('./Über.md', 'über', 'text')],
    ['[text](./Über.md)', markdownLink('./Über.md', 'über', 'text')],
    ['[text](v1.2%20notes)', markdownLink('v1.2 notes', 'v1-2-notes', 'text')],
    ['[text](page.md "Title")', markdownLink('page.md', 'page', 'text')],
    ['[**bold** `code` text](page.md)', markdownLink('page.md', 'page', 'bold code text')],
    ['[](page.md)', markdownLink('page.md', 'page', null)],
  ])('parses %j', (source, link) => {
    expect(extractLinks(source)).toEqual([link]);
  });

  it('keeps a malformed percent escape as written', () => {
    expect(extractLinks('[text](bad%E0%A4.md)')).toEqual([markdownLink('bad%E0%A4.md', 'bad-e0-a4', 'text')]);
  });

  it.each([
    ['http URL', '[x](http://example.com/page.md)'],
    ['https URL', '[x](https://example.com/page)'],
    ['mailto URL', '[x](mailto:someone@example.com)'],
    ['javascript URL', '[x](javascript:alert(1))'],
    ['other scheme', '[x](ftp:page.md)'],
    ['protocol-relative URL', '[x](//example.com/page.md)'],
    ['absolute path', '[x](/page/graph-view)'],
    ['pure anchor', '[x](#section)'],
    ['image file', '[x](diagram.png)'],
    ['PDF file', '[x](../files/report.pdf)'],
    ['folder', '[x](../)'],
    ['current folder', '[x](./)'],
    ['empty destination', '[x]()'],
    ['image', '![alt](picture.png)'],
    ['image of a page', '![alt](page.md)'],
    ['autolink', '<https://example.com>'],
    ['raw HTML anchor', '<a href="page.md">x</a>'],
  ])('ignores a %s', (_kind, source) => {
    expect(extractLinks(source)).toEqual([]);
  });

  it('follows link reference definitions', () => {
    const source = 'See [foo] and [the docs][foo] and [Foo][].\n\n[foo]: ./other-page.md#intro';
    const link = markdownLink('./other-page.md', 'other-page', null, 'intro');
    expect(extractLinks(source)).toEqual([
      { ...link, label: 'foo' },
      { ...link, label: 'the docs' },
      { ...link, label: 'Foo' },
    ]);
  });

  it('ignores reference definitions that are never used', () => {
    expect(extractLinks('[foo]: ./other-page.md')).toEqual([]);
  });
});

describe('extractLinks: code is skipped', () => {
  it.each([
    ['inline code', 'Use `[[Page]]` and `[x](page.md)`.'],
    ['double-backtick code', 'Use ``[[Page]] ` [x](page.md)``.'],
    ['fenced code', '```\n[[Page]]\n[x](page.md)\n```'],
    ['tilde fence', '~~~md\n![[Page]]\n~~~'],
    ['unclosed fence', '```\n[[Page]]\n'],
    ['indented code', '    [[Page]]\n    [x](page.md)'],
    ['fence inside a list', '- item\n\n  ```\n  [[Page]]\n  ```'],
    ['HTML block', '<div>\n[[Page]]\n</div>'],
  ])('in %s', (_kind, source) => {
    expect(extractLinks(source)).toEqual([]);
  });

  it('still finds links next to code', () => {
    const source = '`[[Code]]` [[Real]]\n\n```\n[[Fence]]\n```\n\n    [[Indented]]\n\n[[After]]';
    expect(extractLinks(source)).toEqual([wikilink('Real', 'real'), wikilink('After', 'after')]);
  });

  it('reads a fence that interrupts a paragraph as CommonMark does', () => {
    expect(extractLinks('text ```\n[[Link]]\n```\n[[Code]]')).toEqual([wikilink('Link', 'link')]);
  });
});

describe('extractLinks: documents', () => {
  it('finds links anywhere in the block structure, in document order, keeping duplicates', () => {
    const source = [
      '# Heading with [[A]]',
      '',
      '> Quote with [[B|b]] and [md](c.md)',
      '',
      '- item [[A]]',
      '  - nested ![[D]]',
      '',
      '| col |',
      '| --- |',
      '| [[E#x]] |',
      '',
      '*emphasis [[A]]*',
    ].join('\n');
    expect(extractLinks(source)).toEqual([
      wikilink('A', 'a'),
      wikilink('B', 'b', { label: 'b' }),
      markdownLink('c.md', 'c', 'md'),
      wikilink('A', 'a'),
      wikilink('D', 'd', { kind: 'embed' }),
      wikilink('E', 'e', { heading: 'x' }),
      wikilink('A', 'a'),
    ]);
  });

  it('ignores frontmatter-free plain text', () => {
    expect(extractLinks('No links here. [not a link] and ]] [[')).toEqual([]);
  });

  it('handles a page with 10,000 links', () => {
    const source = Array.from({ length: 10_000 }, (_, i) => (i % 2 ? `[[Page ${i}]]` : `[p](page-${i}.md)`)).join(' ');
    const links = extractLinks(source);
    expect(links).toHaveLength(10_000);
    expect(links[9_998]).toEqual(markdownLink('page-9998.md', 'page-9998', 'p'));
    expect(links[9_999]).toEqual(wikilink('Page 9999', 'page-9999'));
  });

  it('handles 10,000 wikilinks on one line', () => {
    expect(extractLinks('[[Page]] '.repeat(10_000))).toHaveLength(10_000);
  });

  it('copes with pathological unclosed brackets', () => {
    expect(extractLinks('[['.repeat(20_000))).toEqual([]);
    expect(extractLinks('[[a '.repeat(20_000))).toEqual([]);
    expect(extractLinks('![[a|'.repeat(20_000))).toEqual([]);
  });
});
