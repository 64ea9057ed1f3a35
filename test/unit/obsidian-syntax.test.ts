import { describe, expect, it } from 'vitest';
import { MarkdownRenderer, type ResolvedTarget } from '../../src/pages/markdown/markdown-renderer.js';
import { inlineTags, stripComments } from '../../src/pages/markdown/obsidian-syntax.js';
import type { ParsedLink } from '../../src/pages/markdown/wikilinks.js';

const PAGES: Record<string, ResolvedTarget> = { other: { slug: 'other', title: 'Other' } };
const renderer = new MarkdownRenderer();
const html = (body: string) => renderer.render(body, (link: ParsedLink) => PAGES[link.key] ?? null).html;

describe('%%comments%%', () => {
  it('removes inline comments and keeps the line breaks', () => {
    expect(stripComments('a %%hidden%% b\nc')).toBe('a  b\nc');
    expect(stripComments('a %%one\ntwo%% b')).toBe('a \n b');
  });

  it('removes block comments across paragraphs, and hides the rest of the page after an unclosed marker', () => {
    expect(stripComments('keep\n\n%%\nsecret\n\nmore secret\n%%\n\nafter')).toBe('keep\n\n\n\n\n\n\n\nafter');
    expect(stripComments('keep %% never closed\n\nsecret')).toBe('keep \n\n');
  });

  it('keeps %% inside code spans and code blocks', () => {
    expect(stripComments('`%%code%%` and %%gone%%')).toBe('`%%code%%` and ');
    expect(stripComments('```\n%%fenced%%\n```\n%%gone%%')).toBe('```\n%%fenced%%\n```\n');
    expect(stripComments('    %%indented code%%\n\n%%gone%%')).toBe('    %%indented code%%\n\n');
  });

  it('does not let a fence opened inside a comment protect a later comment', () => {
    expect(stripComments('%% ``` %%\n\ntext %%secret%%')).toBe('\n\ntext ');
  });

  it('returns the text unchanged (the same string) when it has no marker', () => {
    const text = 'nothing to hide\r\nhere';
    expect(stripComments(text)).toBe(text);
  });

  it('never shows a comment in the HTML', () => {
    const out = html('Visible %%inline secret%% text.\n\n%%\nblock secret\n%%\n\n> [!note] Title %%title secret%%\n> body %%quote secret%%');
    expect(out).not.toMatch(/secret|%%/);
    expect(out).toContain('Visible  text.');
  });
});

describe('callouts', () => {
  it('renders a callout with its type and title', () => {
    expect(html('> [!tip] Use **this**\n> Body')).toBe(
      '<div class="callout" data-callout="tip">\n<div class="callout-title"><span class="callout-title-inner">Use <strong>this</strong></span></div>\n<div class="callout-content"><p>Body</p>\n</div></div>',
    );
  });

  it('titles a callout without a title by its type', () => {
    expect(html('> [!warning]\n> Careful')).toContain('<span class="callout-title-inner">Warning</span>');
  });

  it('folds with <details>: `-` collapsed, `+` open', () => {
    expect(html('> [!faq]- Why?\n> Because')).toMatch(/^<details class="callout" data-callout="faq">\n<summary class="callout-title">.*Why\?.*<\/summary>/);
    expect(html('> [!faq]+ Why?\n> Because')).toMatch(/^<details class="callout" data-callout="faq" open>/);
    expect(html('> [!faq]- Why?\n> Because')).toMatch(/<\/div><\/details>$/);
  });

  it('resolves wikilinks in the title and the body', () => {
    const out = html('> [!note] See [[Other]]\n> and [[Other|that]]');
    expect(out).toContain('<a class="wikilink" href="/page/other">Other</a>');
    expect(out).toContain('<a class="wikilink" href="/page/other">that</a>');
  });

  it('nests callouts and leaves a plain quote a quote', () => {
    const out = html('> [!note] Outer\n> > [!warning] Inner\n> > text');
    expect(out.match(/class="callout"/g)).toHaveLength(2);
    expect(html('> just a quote')).toBe('<blockquote>\n<p>just a quote</p>\n</blockquote>\n');
  });
});

describe('highlights, tasks, footnotes', () => {
  it('renders ==highlight== as <mark>', () => {
    expect(html('a ==marked== b')).toBe('<p>a <mark>marked</mark> b</p>\n');
  });

  it('renders task lists as disabled checkboxes', () => {
    const out = html('- [ ] open\n- [x] done');
    expect(out).toContain('<input type="checkbox" disabled="disabled" class="task-list-item-checkbox" /> open');
    expect(out).toContain('<input type="checkbox" disabled="disabled" checked="checked" class="task-list-item-checkbox" /> done');
  });

  it('marks task items and their own list (a nested list of tasks in a plain list), and 5,000 tasks alike', () => {
    const out = html('- plain\n  - [ ] nested task\n- also plain\n\n---\n\n- [X] upper-case done\n\n1. [ ] numbered');
    expect(out).toMatch(/<ul>\s*<li>plain\s*<ul class="task-list-container">\s*<li class="task-list-item">/);
    expect(out).toContain('<ol class="task-list-container">');
    expect(out).toContain('checked="checked" class="task-list-item-checkbox" /> upper-case done');
    expect(html('- [x]no space\n- [y] other mark')).not.toContain('checkbox');
    expect(html('- [ ] task\n'.repeat(5_000)).match(/task-list-item-checkbox/g)).toHaveLength(5_000);
  });

  it('renders footnotes with links both ways', () => {
    const out = html('Claim[^1].\n\n[^1]: Source.');
    expect(out).toContain('<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>');
    expect(out).toContain('<li class="footnote-item" id="fn1"><p>Source. <a href="#fnref1" class="footnote-backref">↩︎</a></p>');
  });
});

describe('math', () => {
  it('renders inline and display math server-side as MathML', () => {
    const out = html('Euler: $e^{i\\pi}+1=0$\n\n$$\n\\frac{a}{b}\n$$');
    expect(out).toContain('<span class="math math-inline"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML">');
    expect(out).toContain('<msup><mi>e</mi>');
    expect(out).toContain('<div class="math math-display"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block">');
    expect(out).toContain('<mfrac><mi>a</mi><mi>b</mi></mfrac>');
    expect(out).not.toContain('style=');
  });

  it('shows a formula KaTeX cannot read as its source, in an error span without an inline style', () => {
    expect(html('$\\notacommand{x}$')).toContain('<mstyle mathcolor="#cc0000"><mtext>\\notacommand</mtext></mstyle>');
    const out = html('$\\frac{1}{$');
    expect(out).toMatch(/<span class="katex-error" title="[^"]*">\\frac\{1\}\{<\/span>/);
    expect(out).not.toContain('style=');
  });

  it('shows a formula nested too deeply for KaTeX’s parser as its source, instead of failing the page', () => {
    for (const tex of ['{'.repeat(5000), '\\sqrt{'.repeat(2000), '\\left('.repeat(3000), 'a_{'.repeat(3000)]) {
      const out = html(`Before.\n\n$${tex}$\n\nAfter.`);
      expect(out).toContain('<p>Before.</p>');
      expect(out).toContain('<span class="katex-error" title="This formula could not be shown: it nests too deeply.">');
      expect(out).toContain('<p>After.</p>');
    }
  });

  it('leaves dollar amounts alone', () => {
    expect(html('It costs $5 and $ 10.')).toBe('<p>It costs $5 and $ 10.</p>\n');
  });

  it('never takes a placeholder the author wrote for a formula', () => {
    const out = html('<span class="kslot-x-0"></span> $x$');
    expect(out).toMatch(/^<p><span class="kslot-x-0"><\/span> <span class="math math-inline">/);
    expect(out.match(/<math/g)).toHaveLength(1);
  });
});

describe('#tags', () => {
  it('links tags to their tag page', () => {
    expect(html('About #graph and #ui/layout.')).toBe(
      '<p>About <a class="tag" href="/tags/graph">#graph</a> and <a class="tag" href="/tags/ui%2Flayout">#ui/layout</a>.</p>\n',
    );
  });

  it('takes no heading, number, fragment or code for a tag', () => {
    expect(html('# Heading')).toBe('<h1 id="heading">Heading</h1>\n');
    expect(html('issue #12, a#b, `#code`')).toBe('<p>issue #12, a#b, <code>#code</code></p>\n');
  });

  it('lists the tags written in text, once each, outside code and comments', () => {
    expect(inlineTags('#one and #two, #one again\n\n`#code`\n\n```\n#fenced\n```')).toEqual(['one', 'two']);
    expect(inlineTags(stripComments('%%#secret%% #shown'))).toEqual(['shown']);
  });

  it('finds a tag wherever a text can hold one, and finds none in a text of headings and numbers', () => {
    expect(inlineTags('| a | b |\n|---|---|\n|#cell| x |\n\n- #item\n\n> #quoted\n\n## Title #inhead\n\n(#paren)')).toEqual(['cell', 'item', 'quoted', 'inhead', 'paren']);
    // Such a text is not parsed at all (a megabyte of prose took 170 ms of a save's main thread).
    expect(inlineTags('## Part 11\n\n# Title\n\nissue #12, see ###, a # b\n'.repeat(3))).toEqual([]);
  });
});

describe('^block-id', () => {
  it('anchors a paragraph and a list item, without showing the id', () => {
    expect(html('A paragraph. ^para-1')).toBe('<p id="^para-1">A paragraph.</p>\n');
    expect(html('- one\n- two ^item2')).toBe('<ul>\n<li>one</li>\n<li id="^item2">two</li>\n</ul>\n');
  });

  it('anchors the block before an id on its own line', () => {
    expect(html('| a |\n| - |\n| b |\n\n^table1')).toMatch(/^<table id="\^table1">/);
  });

  it('links [[Note#^id]] to the block', () => {
    expect(html('[[Other#^para-1]]')).toBe('<p><a class="wikilink" href="/page/other#%5Epara-1">Other</a></p>\n');
  });
});

describe('mermaid', () => {
  it('renders a mermaid block as code (the browser script draws it when JS is on)', () => {
    expect(html('```mermaid\ngraph TD; A-->B\n```')).toBe('<pre><code class="language-mermaid">graph TD; A--&gt;B\n</code></pre>\n');
  });
});

describe('heading ids with Obsidian syntax', () => {
  it('gives a heading the same id in the page and in the chunks’ anchors (tags, math, highlights, footnotes)', async () => {
    const { headingIds } = await import('../../src/pages/markdown/markdown-renderer.js');
    const body = '## Setup #linux\n\n- [ ] a task\n- [x] done ^id1\n\n> [!tip] A callout\n> text\n\n## The $x^2$ case\n\n## A ==marked== title[^1]\n\n[^1]: Note.';
    const ids = [...headingIds(body).values()];
    expect(ids).toEqual(['setup-linux', 'the-x-2-case', 'a-marked-title']);
    for (const id of ids) expect(html(body)).toContain(`id="${id}"`);
  });
});
