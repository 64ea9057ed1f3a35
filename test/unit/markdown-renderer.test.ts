import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseFrontmatter } from '../../src/pages/markdown/frontmatter.js';
import { escapeHtml, MarkdownRenderer, type ResolvedTarget } from '../../src/pages/markdown/markdown-renderer.js';
import { extractLinks, type ParsedLink } from '../../src/pages/markdown/wikilinks.js';
import { FOAM_DOCS } from '../support/fixtures.js';
import { OBSIDIAN_XSS_PAYLOADS } from '../support/xss-payloads.js';

const PAGES: Record<string, ResolvedTarget> = {
  'graph-view': { slug: 'graph-view', title: 'Graph View' },
  '日本語-ページ': { slug: '日本語-ページ', title: '日本語 ページ' },
  'evil-title': { slug: 'evil-title', title: '<img src=x onerror=alert(1)>' },
};
const resolve = (link: ParsedLink) => PAGES[link.key] ?? null;

const renderer = new MarkdownRenderer();
const html = (body: string) => renderer.render(body, resolve).html;

const ALLOWED_TAGS = new Set(
  [
    ...'h1 h2 h3 h4 h5 h6 p a ul ol li blockquote pre code em strong del s table thead tbody tr th td img hr br div span sup sub details summary kbd dl dt dd'.split(' '),
    // Obsidian syntax: highlights, task list checkboxes, footnotes, and KaTeX's MathML (generated, never the author's).
    ...'mark input section'.split(' '),
    ...'math semantics annotation mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot mover munder munderover mtable mtr mtd mstyle mpadded mphantom menclose'.split(' '),
  ],
);

const NAMED_ENTITIES: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>', colon: ':', tab: '\t', newline: '\n' };

function decodeEntities(text: string): string {
  return text.replace(/&(?:#x([\da-f]+)|#(\d+)|([a-z]+));?/gi, (entity, hex?: string, decimal?: string, name?: string) => {
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    if (decimal) return String.fromCodePoint(Number(decimal));
    return NAMED_ENTITIES[name!.toLowerCase()] ?? entity;
  });
}

/** Tags and attributes of sanitize-html output, which always double-quotes and escapes attribute values. */
function elementsOf(output: string) {
  return [...output.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)].map(([, tag, rest]) => ({
    tag: tag.toLowerCase(),
    attributes: [...rest.matchAll(/([^\s"'=<>/]+)(?:="([^"]*)")?/g)].map(([, name, value = '']) => ({
      name: name.toLowerCase(),
      value: decodeEntities(value),
    })),
  }));
}

function expectHarmless(output: string) {
  expect(output).not.toMatch(/<script/i);
  for (const { tag, attributes } of elementsOf(output)) {
    expect(ALLOWED_TAGS).toContain(tag);
    for (const { name, value } of attributes) {
      expect(name).not.toMatch(/^on/);
      expect(name).not.toBe('style');
      if (name === 'href' || name === 'src') {
        // Browsers ignore tabs, newlines and leading control characters when reading a URL scheme.
        const url = value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
        const scheme = /^([^/?#]*?):/.exec(url)?.[1]?.toLowerCase();
        expect([undefined, 'http', 'https', 'mailto']).toContain(scheme);
      }
    }
  }
}

describe('MarkdownRenderer: wikilinks', () => {
  it('links a resolved wikilink to its page', () => {
    expect(html('[[Graph View]]')).toBe('<p><a class="wikilink" href="/page/graph-view">Graph View</a></p>\n');
  });

  it('shows the label and links to the slugified heading', () => {
    expect(html('[[graph-view#Layout Options|the layout]]')).toBe(
      '<p><a class="wikilink" href="/page/graph-view#layout-options">the layout</a></p>\n',
    );
  });

  it('shows the target as written when there is no label', () => {
    expect(html('[[user/features/graph-view.md]]')).toBe(
      '<p><a class="wikilink" href="/page/graph-view">user/features/graph-view.md</a></p>\n',
    );
  });

  it('percent-encodes the slug in the URL', () => {
    expect(html('[[日本語 ページ]]')).toBe(
      '<p><a class="wikilink" href="/page/%E6%97%A5%E6%9C%AC%E8%AA%9E-%E3%83%9A%E3%83%BC%E3%82%B8">日本語 ページ</a></p>\n',
    );
  });

  it('links an unresolved wikilink to page creation', () => {
    expect(html('[[New Idea|an idea]]')).toBe(
      '<p><a class="wikilink wikilink-missing" href="/page/new?title=New%20Idea" title="Create this page">an idea</a></p>\n',
    );
  });

  it('proposes the page name, without folder or extension, as the new title', () => {
    expect(html('[[ideas/New Idea.md]]')).toBe(
      '<p><a class="wikilink wikilink-missing" href="/page/new?title=New%20Idea" title="Create this page">ideas/New Idea.md</a></p>\n',
    );
  });

  it('escapes wikilink text', () => {
    expect(html('[[A & B <c>]]')).toBe(
      '<p><a class="wikilink wikilink-missing" href="/page/new?title=A%20%26%20B%20%3Cc%3E" title="Create this page">A &amp; B &lt;c&gt;</a></p>\n',
    );
  });

  it('leaves empty and same-page wikilinks as text (a #word right after brackets is no tag)', () => {
    expect(html('[[]] [[#Heading]]')).toBe('<p>[[]] [[#Heading]]</p>\n');
  });

  it('renders wikilinks in code literally', () => {
    expect(html('`[[Graph View]]`')).toBe('<p><code>[[Graph View]]</code></p>\n');
  });

  it('passes each link to the resolver', () => {
    const spy = vi.fn(resolve);
    renderer.render('[[Graph View#Intro|gv]] ![[Other]] [x](./graph-view.md)', spy);
    expect(spy.mock.calls.map(([link]) => link)).toEqual([
      { kind: 'wikilink', target: 'Graph View', heading: 'Intro', label: 'gv', key: 'graph-view' },
      { kind: 'embed', target: 'Other', heading: null, label: null, key: 'other' },
      { kind: 'markdown', target: './graph-view.md', heading: null, label: 'x', key: 'graph-view' },
    ]);
  });
});

describe('MarkdownRenderer: embeds', () => {
  it('renders an embed on its own line as a card with the page title', () => {
    expect(html('![[graph-view]]')).toBe(
      '<div class="embed-card"><a class="wikilink" href="/page/graph-view">📄 Graph View</a></div>\n',
    );
  });

  it('renders a missing embed as a card that creates the page', () => {
    expect(html('![[Later]]')).toBe(
      '<div class="embed-card"><a class="wikilink wikilink-missing" href="/page/new?title=Later" title="Create this page">📄 Later</a></div>\n',
    );
  });

  it('uses the label and heading of an embed', () => {
    expect(html('![[graph-view#Setup|How to set up]]')).toBe(
      '<div class="embed-card"><a class="wikilink" href="/page/graph-view#setup">📄 How to set up</a></div>\n',
    );
  });

  it('renders consecutive embeds as separate cards without a paragraph', () => {
    expect(html('![[graph-view]]\n![[Later]]\n\nafter')).toBe(
      '<div class="embed-card"><a class="wikilink" href="/page/graph-view">📄 Graph View</a></div>\n\n' +
        '<div class="embed-card"><a class="wikilink wikilink-missing" href="/page/new?title=Later" title="Create this page">📄 Later</a></div>\n\n' +
        '<p>after</p>\n',
    );
  });

  it('renders an embed inside running text as a plain wikilink', () => {
    expect(html('see ![[graph-view]] here')).toBe('<p>see <a class="wikilink" href="/page/graph-view">graph-view</a> here</p>\n');
  });

  it('renders an embed in a list item as a card', () => {
    expect(html('- ![[graph-view]]')).toBe(
      '<ul>\n<li><div class="embed-card"><a class="wikilink" href="/page/graph-view">📄 Graph View</a></div>\n</li>\n</ul>\n',
    );
  });

  it('escapes the resolved title', () => {
    expect(html('![[evil-title]]')).toBe(
      '<div class="embed-card"><a class="wikilink" href="/page/evil-title">📄 &lt;img src=x onerror=alert(1)&gt;</a></div>\n',
    );
  });
});

describe('MarkdownRenderer: Markdown links', () => {
  it('rewrites a resolved relative link to the page URL', () => {
    expect(html('[the graph](./Graph%20View.md#Layout)')).toBe(
      '<p><a href="/page/graph-view#layout" class="wikilink">the graph</a></p>\n',
    );
  });

  it('points an unresolved relative link at page creation', () => {
    expect(html('[later](../notes/Later%20Idea.md)')).toBe(
      '<p><a href="/page/new?title=Later%20Idea" class="wikilink wikilink-missing" title="Create this page">later</a></p>\n',
    );
  });

  it('marks external links nofollow', () => {
    expect(html('[site](https://example.com/a?b=1&c=2)')).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">site</a></p>\n',
    );
    expect(html('[mail](mailto:me@example.com)')).toBe(
      '<p><a href="mailto:me@example.com" rel="nofollow noopener noreferrer">mail</a></p>\n',
    );
    expect(html('<a href="//example.com" rel="author">raw</a>')).toBe(
      '<p><a href="//example.com" rel="nofollow noopener noreferrer">raw</a></p>\n',
    );
  });

  it('leaves anchors, absolute paths and files alone', () => {
    expect(html('[a](#top) [b](/page/x) [c](files/report.pdf)')).toBe(
      '<p><a href="#top">a</a> <a href="/page/x">b</a> <a href="files/report.pdf">c</a></p>\n',
    );
  });

  it('keeps link titles', () => {
    expect(html('[site](https://example.com "Example")')).toBe(
      '<p><a href="https://example.com" title="Example" rel="nofollow noopener noreferrer">site</a></p>\n',
    );
  });

  it('does not turn bare URLs into links (linkify is off)', () => {
    expect(html('Visit https://example.com today')).toBe('<p>Visit https://example.com today</p>\n');
  });
});

describe('MarkdownRenderer: headings and table of contents', () => {
  it('gives headings slug ids and numbers duplicates from 2', () => {
    expect(html('## Intro\n\n## Intro\n\n## Intro')).toBe(
      '<h2 id="intro">Intro</h2>\n<h2 id="intro-2">Intro</h2>\n<h2 id="intro-3">Intro</h2>\n',
    );
  });

  it('skips a number a heading already has as its own name, and numbers 5,000 repeats in order', () => {
    expect(html('## Setup 2\n\n## Setup\n\n## Setup\n\n## Setup')).toBe(
      '<h2 id="setup-2">Setup 2</h2>\n<h2 id="setup">Setup</h2>\n<h2 id="setup-3">Setup</h2>\n<h2 id="setup-4">Setup</h2>\n',
    );
    const ids = [...html('## h\n\n'.repeat(5_000)).matchAll(/id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(5_000);
    expect(new Set(ids).size).toBe(5_000);
    expect(ids.at(-1)).toBe('h-5000');
  });

  it('uses the Unicode slug for ids', () => {
    expect(html('# Über Café!')).toBe('<h1 id="über-café">Über Café!</h1>\n');
  });

  it('gives symbol-only headings an id', () => {
    expect(html('## 🚀\n\n## !!!')).toBe('<h2 id="section">🚀</h2>\n<h2 id="section-2">!!!</h2>\n');
  });

  it('collects h2 to h4 into the table of contents', () => {
    const { toc } = renderer.render(
      '# Title\n\n## Setup *now*\n\n### With `code`\n\n#### See [[Graph View|graph]]\n\n##### Too deep\n\n## Setup now',
      resolve,
    );
    expect(toc).toEqual([
      { level: 2, text: 'Setup now', anchor: 'setup-now' },
      { level: 3, text: 'With code', anchor: 'with-code' },
      { level: 4, text: 'See graph', anchor: 'see-graph' },
      { level: 2, text: 'Setup now', anchor: 'setup-now-2' },
    ]);
  });

  it('keeps the table of contents as plain text', () => {
    const { toc } = renderer.render('## <b>Bold</b> & co', resolve);
    expect(toc).toEqual([{ level: 2, text: 'Bold & co', anchor: 'bold-co' }]);
  });

  it('starts numbering afresh on every render', () => {
    renderer.render('## Intro', resolve);
    expect(renderer.render('## Intro', resolve).toc).toEqual([{ level: 2, text: 'Intro', anchor: 'intro' }]);
  });

  it('returns an empty table of contents for a page without headings', () => {
    expect(renderer.render('text', resolve)).toEqual({ html: '<p>text</p>\n', toc: [] });
  });
});

describe('MarkdownRenderer: Markdown features', () => {
  it('renders GFM tables with alignment as classes', () => {
    expect(html('| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |')).toBe(
      '<table>\n<thead>\n<tr>\n<th class="align-left">a</th>\n<th class="align-center">b</th>\n<th class="align-right">c</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td class="align-left">1</td>\n<td class="align-center">2</td>\n<td class="align-right">3</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it('renders strikethrough', () => {
    expect(html('~~gone~~')).toBe('<p><s>gone</s></p>\n');
  });

  it('renders fenced code with a language class and escapes it', () => {
    expect(html('```ts\nconst a = "<b>";\n```')).toBe('<pre><code class="language-ts">const a = "&lt;b&gt;";\n</code></pre>\n');
  });

  it('renders lists, quotes, emphasis, images and rules', () => {
    expect(html('> **bold** _em_\n\n3. three\n4. four\n\n---\n\n![alt](pic.png "T")')).toBe(
      '<blockquote>\n<p><strong>bold</strong> <em>em</em></p>\n</blockquote>\n<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>\n<hr />\n' +
        '<p><img src="pic.png" alt="alt" title="T" /></p>\n',
    );
  });

  it('leaves typography alone (typographer is off)', () => {
    expect(html('"quotes" -- (c)')).toBe('<p>"quotes" -- (c)</p>\n');
  });

  it('keeps allowed raw HTML', () => {
    expect(html('<details open><summary>More</summary>\n\nPress <kbd>Ctrl</kbd> H<sub>2</sub>O x<sup>2</sup>\n\n</details>')).toBe(
      '<details open><summary>More</summary>\n<p>Press <kbd>Ctrl</kbd> H<sub>2</sub>O x<sup>2</sup></p>\n</details>',
    );
    expect(html('<div class="note"><span class="hint">Hi</span></div>')).toBe('<div class="note"><span class="hint">Hi</span></div>');
    expect(html('<dl><dt>Term</dt><dd>Def</dd></dl>')).toBe('<dl><dt>Term</dt><dd>Def</dd></dl>');
  });

  it('drops style attributes and disallowed attributes', () => {
    expect(html('<p style="color:red" class="x" data-x="1" id="y">Hi</p>')).toBe('<p>Hi</p>');
    expect(html('<img src="a.png" width="10" height="20" style="x" loading="lazy">')).toBe('<img src="a.png" width="10" height="20" />');
  });
});

describe('MarkdownRenderer: hostile input', () => {
  it.each([
    '<img src="x" onerror="alert(1)" />',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="&#x9; JaVa\tScript:alert(1)">x</a>',
    '<img src="data:image/svg+xml,x" />',
    '<iframe></iframe>',
    '<p style="color:red">x</p>',
  ])('the safety check itself rejects %s', (unsafe) => {
    expect(() => expectHarmless(unsafe)).toThrow();
  });

  const PAYLOADS = [
    `<script>alert('XSS')</script>`,
    `<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>`,
    `<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`,
    `<<SCRIPT>alert("XSS");//\\<</SCRIPT>`,
    `<SCRIPT SRC=http://xss.rocks/xss.js?< B >`,
    `<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>`,
    `<img src=x onerror=alert(1)>`,
    `<IMG SRC="javascript:alert('XSS');">`,
    `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
    '<IMG SRC=`javascript:alert("RSnake says, \'XSS\'")`>',
    `<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
    `<IMG SRC=# onmouseover="alert('xxs')">`,
    `<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
    `<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
    `<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>`,
    `<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
    `<IMG SRC="jav\tascript:alert('XSS');">`,
    `<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
    `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
    `<IMG SRC="jav&#x0D;ascript:alert('XSS');">`,
    `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
    `<IMG DYNSRC="javascript:alert('XSS')"> <IMG LOWSRC="javascript:alert('XSS')">`,
    `<a href="jav&#x0A;ascript:alert(1)">x</a>`,
    `<a href="jav&#x09;ascript:alert(1)">x</a>`,
    `<a href="javascript&colon;alert(1)">x</a>`,
    `<a href="&#x6A;avascript:alert(1)">x</a>`,
    `<a href=" javascript:alert(1)">x</a>`,
    `<a href="JaVaScRiPt:alert(1)">x</a>`,
    `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
    `<a href="vbscript:msgbox(1)">x</a>`,
    `<a href="https://ok.example" onclick="alert(1)">x</a>`,
    `<a href="x" onmouseover=alert(1)//">x</a>`,
    `<svg/onload=alert('XSS')>`,
    `<svg><script>alert(1)</script></svg>`,
    `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">XSS</text></a></svg>`,
    `<svg><style><img src=x onerror=alert(1)></style></svg>`,
    `<BODY ONLOAD=alert('XSS')>`,
    `<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^\`=alert("XSS")>`,
    `<iframe src="javascript:alert('XSS');"></iframe>`,
    `<iframe src=http://xss.rocks/scriptlet.html <`,
    `<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`,
    `<form action="javascript:alert(1)"><button>go</button></form>`,
    `<STYLE>@import'http://xss.rocks/xss.css';</STYLE>`,
    `<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
    `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
    `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
    `<TABLE BACKGROUND="javascript:alert('XSS')"><TD BACKGROUND="javascript:alert('XSS')">x</TD></TABLE>`,
    `<DIV STYLE="background-image: url(javascript:alert('XSS'))">x</DIV>`,
    `<DIV STYLE="width: expression(alert('XSS'));">x</DIV>`,
    `<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`,
    `<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv MjAwMC9zdmciIHhtbG5zOnhsaW5rPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5L3hs aW5rIiB2ZXJzaW9uPSIxLjAiIHg9IjAiIHk9IjAiIHdpZHRoPSIxOTQiIGhlaWdodD0iMjAw IiBpZD0ieHNzIj48c2NyaXB0IHR5cGU9InRleHQvZWNtYXNjcmlwdCI+YWxlcnQoIlh TUyIpOzwvc2NyaXB0Pjwvc3ZnPg==" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
    `<BASE HREF="javascript:alert('XSS');//">`,
    `<details open ontoggle=alert(1)><summary>x</summary></details>`,
    `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>`,
    `<math><mi//xlink:href="data:x,<script>alert(4)</script>">`,
    `<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>`,
    `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
    `<xmp><img src=x onerror=alert(1)></xmp>`,
    `<textarea><img src=x onerror=alert(1)></textarea>`,
    `<title><img src=x onerror=alert(1)></title>`,
    `<!--<img src="--><img src=x onerror=alert(1)//">`,
    `<img src="x\` \`<script>alert(1)</script>"\` \`>`,
    `<span class="x" onmouseenter="alert(1)">hover</span>`,
    `[x](javascript:alert(1))`,
    `[x](JAVASCRIPT:alert(1))`,
    `[x](javas&#99;ript:alert(1))`,
    `[x](&#106;avascript:alert(1))`,
    `[x](vbscript:msgbox(1))`,
    `[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
    `[x](<javascript:alert(1)>)`,
    `![x](javascript:alert(1))`,
    `![x](data:image/png;base64,iVBORw0KGgo=)`,
    `[x][ref]\n\n[ref]: javascript:alert(1)`,
    `<javascript:alert(1)>`,
    `[x](https://ok.example "\\" onmouseover=\\"alert(1)")`,
    `[[<img src=x onerror=alert(1)>]]`,
    `[[<script>alert(1)</script>]]`,
    `[[javascript:alert(1)]]`,
    `[[Page|<img src=x onerror=alert(1)>]]`,
    `[[Page#"><script>alert(1)</script>]]`,
    `[[x" onmouseover="alert(1)]]`,
    `![[<svg onload=alert(1)>]]`,
    `![[graph-view|<img src=x onerror=alert(1)>]]`,
    '```"><script>alert(1)</script>\ncode\n```',
    '# <img src=x onerror=alert(1)>',
    '| <img src=x onerror=alert(1)> |\n| --- |\n| <script>alert(1)</script> |',
    // Obsidian syntax (docs/obsidian.md), shared with the browser's XSS check (test/browser/obsidian-syntax.test.ts)
    ...OBSIDIAN_XSS_PAYLOADS,
  ];

  it.each(PAYLOADS)('neutralises %s', (payload) => {
    expectHarmless(html(payload));
    expectHarmless(html(`text before\n\n${payload}\n\ntext after`));
    expectHarmless(html(`- ${payload}`));
  });

  it('keeps the text of a wikilink that looks like HTML, escaped', () => {
    expect(html('[[<img src=x onerror=alert(1)>]]')).toBe(
      '<p><a class="wikilink wikilink-missing" href="/page/new?title=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E" title="Create this page">&lt;img src=x onerror=alert(1)&gt;</a></p>\n',
    );
  });

  it('removes script elements with their content', () => {
    expect(html('a <script>alert(1)</script> b')).toBe('<p>a  b</p>\n');
  });

  it('strips an obfuscated javascript: href but keeps the link text', () => {
    expect(html('<a href="jav&#x09;ascript:alert(1)">click</a>')).toBe('<p><a>click</a></p>\n');
  });

  it('does not render javascript: Markdown links as links', () => {
    expect(html('[x](javascript:alert(1))')).toBe('<p>[x](javascript:alert(1))</p>\n');
  });

  it('drops data: image sources', () => {
    expect(html('![x](data:image/png;base64,iVBORw0KGgo=)')).toBe('<p><img alt="x" /></p>\n');
  });
});

describe('MarkdownRenderer: pathological input', () => {
  it('renders 10,000 nested blockquotes without overflowing the stack', () => {
    const output = html(`${'>'.repeat(10_000)} deep`);
    expect(output.match(/<blockquote>/g)?.length ?? 0).toBeLessThanOrEqual(50);
  });

  it('renders 5,000 nested list levels', () => {
    const output = html(`${'- '.repeat(5_000)}deep`);
    expect(output.match(/<ul>/g)?.length ?? 0).toBeLessThanOrEqual(50);
  });

  it('stops nesting indented lists at the nesting limit', () => {
    const lines = Array.from({ length: 5_000 }, (_, depth) => `${'  '.repeat(depth)}- item ${depth}`);
    const output = html(lines.join('\n'));
    expect(output).toMatch(/^<ul>\n<li>item 0\n<ul>/);
    expect(output.match(/<ul>/g)?.length ?? 0).toBeLessThanOrEqual(50);
  });

  it('renders deeply nested inline markup and raw HTML', () => {
    expect(html(`${'*'.repeat(10_000)}x${'*'.repeat(10_000)}`)).toContain('x');
    expect(html(`${'['.repeat(10_000)}x${']'.repeat(10_000)}`)).toContain('x');
    expect(html(`${'<div>'.repeat(10_000)}x${'</div>'.repeat(10_000)}`)).toContain('x');
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

describe('the foam-docs corpus', () => {
  const files = readdirSync(FOAM_DOCS, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .sort();
  const pages = files.map((file) => ({ file, ...parseFrontmatter(readFileSync(join(FOAM_DOCS, file), 'utf8')) }));

  it('has all 86 pages', () => {
    expect(files).toHaveLength(86);
  });

  it('parses the frontmatter of every page', () => {
    expect(pages.filter((page) => page.hasFrontmatter).map(({ file, frontmatter }) => [file, frontmatter])).toEqual([
      ['dev/code-of-conduct.md', { redirect_from: ['/code-of-conduct'] }],
      ['user/features/note-properties.md', { type: 'feature', keywords: 'hello world, bonjour', tags: ['hello', 'bonjour'] }],
      ['user/publishing/math-support-with-mathjax.md', { layout: 'mathjax' }],
    ]);
  });

  it('extracts the links of every page', () => {
    const links = pages.flatMap((page) => extractLinks(page.body));
    expect(links).toHaveLength(215);
    expect(links.filter((link) => link.kind === 'markdown')).toHaveLength(16);
    expect(links.every((link) => link.key !== '')).toBe(true);
  });

  it('renders every page to safe HTML with one wikilink anchor per extracted link', () => {
    for (const page of pages) {
      const { html: output } = renderer.render(page.body, resolve);
      expect(output.match(/class="wikilink/g)?.length ?? 0, page.file).toBe(extractLinks(page.body).length);
      expectHarmless(output);
    }
  });
});
