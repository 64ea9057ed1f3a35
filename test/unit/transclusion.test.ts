import { describe, expect, it } from 'vitest';
import { MarkdownRenderer, type ResolvedTarget } from '../../src/pages/markdown/markdown-renderer.js';
import { renderSize } from '../../src/pages/markdown/markdown-tasks.js';
import {
  distinctWords, excerptOf, MAX_EMBEDDED_CHARS, MAX_EMBEDS_PER_RENDER, MAX_TRANSCLUSION_DEPTH, startTransclusion, transcludedText, type EmbeddedPage,
} from '../../src/pages/markdown/transclusion.js';
import type { ParsedLink } from '../../src/pages/markdown/wikilinks.js';
import type { PageLinksRepository } from '../../src/pages/page-links.repository.js';
import { TransclusionService } from '../../src/pages/transclusion.service.js';
import type { TransclusionRepository } from '../../src/pages/transclusion.repository.js';

const NOTE = '# Note\n\nIntro.\n\n## Setup\n\nInstall it.\n\n### Linux\n\nUse apt.\n\n## Usage\n\nRun it. ^run-it\n\n- first\n- second ^item2\n\n| a |\n| - |\n| 1 |\n\n^table-id\n';

describe('excerptOf: what an embed shows', () => {
  it('shows the whole page without a heading', () => {
    expect(excerptOf(NOTE, null)).toBe(NOTE);
  });

  it('shows a section with its subsections, up to the next heading of its level', () => {
    expect(excerptOf(NOTE, 'Setup')).toBe('## Setup\n\nInstall it.\n\n### Linux\n\nUse apt.\n');
    expect(excerptOf(NOTE, 'setup#linux')).toBe('### Linux\n\nUse apt.\n');
    expect(excerptOf(NOTE, 'Nowhere')).toBeNull();
  });

  it('shows the block anchored by an id: a paragraph, a list item, the block before an id on its own line', () => {
    expect(excerptOf(NOTE, '^run-it')).toBe('Run it. ^run-it');
    expect(excerptOf(NOTE, '^item2')).toBe('- second ^item2');
    expect(excerptOf(NOTE, '^table-id')).toBe('| a |\n| - |\n| 1 |');
    expect(excerptOf(NOTE, '^missing')).toBeNull();
  });

  it('leaves comments out of an excerpt', () => {
    expect(excerptOf('## A\n\nshown %%hidden%%\n', 'A')).toBe('## A\n\nshown \n');
  });
});

describe('transclusion in the renderer', () => {
  const pages: Record<string, EmbeddedPage> = {
    note: { slug: 'note', title: 'Note', markdown: NOTE },
    a: { slug: 'a', title: 'A', markdown: 'A says hi. ![[B]]' },
    self: { slug: 'self', title: 'Self', markdown: 'Me again:\n\n![[Self]]' },
    ping: { slug: 'ping', title: 'Ping', markdown: 'Ping.\n\n![[Pong]]' },
    pong: { slug: 'pong', title: 'Pong', markdown: 'Pong.\n\n![[Ping]]' },
    ...Object.fromEntries(Array.from({ length: 8 }, (_v, i) => [`level-${i}`, { slug: `level-${i}`, title: `Level ${i}`, markdown: `Level ${i} text.\n\n![[Level ${i + 1}]]` }])),
  };
  const resolve = (link: ParsedLink): ResolvedTarget | null => (pages[link.key] ? { slug: pages[link.key].slug, title: pages[link.key].title } : null);
  const renderer = new MarkdownRenderer();
  const render = (host: string, body: string) => renderer.render(body, resolve, { transclusion: startTransclusion(host, (link) => pages[link.key] ?? null) }).html;

  it('renders a section inline with a link to it, its headings and footnotes of its own', () => {
    const html = render('host', '![[Note#Setup]]');
    expect(html).toContain('<div class="transclusion"><div class="transclusion-source"><a class="wikilink transclusion-link" href="/page/note#setup">Note › Setup</a></div>');
    expect(html).toContain('<p>Install it.</p>');
    expect(html).not.toContain('Run it.');
  });

  it('never gives an embedded heading an id the page already has', () => {
    const html = render('host', '## Setup\n\nMine.\n\n![[Note#Setup]]');
    expect(html).toContain('<h2 id="setup">Setup</h2>');
    expect(html).toMatch(/<h\d id="setup-2">Setup<\/h\d>/);
  });

  it('renders an unknown section as a link card', () => {
    expect(render('host', '![[Note#Nowhere]]')).toContain('<div class="embed-card"><a class="wikilink" href="/page/note#nowhere">📄 Note</a></div>');
  });

  it('shows an embed inside running text as a link, not the text', () => {
    expect(render('host', 'See ![[Note]] here.')).toBe('<p>See <a class="wikilink" href="/page/note">Note</a> here.</p>\n');
  });

  it('cuts a cycle: a page never embeds itself, directly or through another', () => {
    expect(render('self', '![[Self]]')).toContain('embed-card');
    const ping = render('ping', 'Ping.\n\n![[Pong]]');
    expect(ping.match(/class="transclusion"/g)).toHaveLength(1);
    expect(ping).toContain('<a class="wikilink" href="/page/ping">📄 Ping</a>');
  });

  it(`stops at depth ${MAX_TRANSCLUSION_DEPTH}, with a link card below`, () => {
    const html = render('host', '![[Level 0]]');
    expect(html.match(/class="transclusion"/g)).toHaveLength(MAX_TRANSCLUSION_DEPTH);
    expect(html).toContain(`Level ${MAX_TRANSCLUSION_DEPTH - 1} text.`);
    expect(html).not.toContain(`Level ${MAX_TRANSCLUSION_DEPTH} text.`);
    expect(html).toContain(`📄 Level ${MAX_TRANSCLUSION_DEPTH}</a>`);
  });

  it('gives each embed footnote ids of its own', () => {
    pages.fn = { slug: 'fn', title: 'Fn', markdown: 'Claim[^1].\n\n[^1]: Source.' };
    const html = render('host', 'Mine[^1].\n\n![[Fn]]\n\n[^1]: My source.');
    expect(html).toContain('id="fn1"');
    expect(html).toContain('id="fn-t0-1"');
    expect(html.match(/<section class="footnotes">/g)).toHaveLength(2);
    expect(html.match(/My source\./g)).toHaveLength(1);
    // An excerpt without footnotes lists none of the host's.
    const plain = render('host', 'Mine[^1].\n\n![[Note#Setup]]\n\n[^1]: My source.');
    expect(plain.match(/<section class="footnotes">/g)).toHaveLength(1);
  });

  it(`transcludes at most ${MAX_EMBEDS_PER_RENDER} embeds in one rendering, over every depth; the rest show as link cards`, () => {
    // 30 embeds of a page of 30 embeds of a leaf: 930 embeds unbounded.
    pages.leaf = { slug: 'leaf', title: 'Leaf', markdown: 'hello world '.repeat(20) };
    pages.mid = { slug: 'mid', title: 'Mid', markdown: '![[Leaf]]\n\n'.repeat(30) };
    const html = render('host', '![[Mid]]\n\n'.repeat(30));
    expect(html.match(/class="transclusion"/g)).toHaveLength(MAX_EMBEDS_PER_RENDER);
    expect(html).toContain('📄 Leaf</a>');
    const text = transcludedText('host', '![[Mid]]\n\n'.repeat(30), { page: (link) => pages[link.key] ?? null }, (link) => pages[link.key]?.slug ?? null);
    expect(text.length).toBeLessThan(MAX_EMBEDDED_CHARS);
  });

  it(`transcludes at most ${MAX_EMBEDDED_CHARS} characters in one rendering`, () => {
    pages.big = { slug: 'big', title: 'Big', markdown: 'word '.repeat(MAX_EMBEDDED_CHARS / 10) };
    const html = render('host', '![[Big]]\n\n'.repeat(3));
    expect(html.match(/class="transclusion"/g)).toHaveLength(2);
    expect(html).toContain('📄 Big</a>');
  });

  it('counts each embed of a page in the size that decides where a rendering runs', () => {
    const page = { slug: 'p', title: 'P', markdown: 'x'.repeat(1000) };
    const once = renderSize({ markdown: '![[P]]', links: [], embeds: { hostSlug: 'h', pages: [['p', page]] }, files: [] });
    const often = renderSize({ markdown: '![[P]]\n'.repeat(100), links: [], embeds: { hostSlug: 'h', pages: [['p', page]] }, files: [] });
    expect(often - once).toBeGreaterThan(90 * 1000);
  });

  it('collects the plain transcluded text for search, depth-limited and without cycles', () => {
    const text = transcludedText('ping', 'Ping.\n\n![[Pong]]', { page: (link) => pages[link.key] ?? null }, (link) => pages[link.key]?.slug ?? null);
    // Pong's own embed of Ping is not followed (the cycle); it reads as its link text.
    expect(text).toBe('Pong.\nPing');
    expect(transcludedText('host', '![[Note#^run-it]] and ![[Missing]]', { page: (link) => pages[link.key] ?? null }, (link) => pages[link.key]?.slug ?? null)).toBe('Run it.');
  });
});

describe('distinctWords: what the embedding page is indexed by', () => {
  it('keeps each embedded word once, and none the page already has', () => {
    expect(distinctWords('Quince jelly: quince, sugar and Quince again. Jelly!', 'My jelly notes')).toBe('quince sugar and again');
  });
});

describe('TransclusionService: what each embedded page version holds is parsed once, and never taken for other text', () => {
  it('parses a page version again when its text differs (a version written by a write that rolled back, then another)', async () => {
    let body = 'First text of the embedded note.';
    const rows = { pagesByKeys: async () => [{ key: 'note', id: 'p1', slug: 'note', title: 'Note', version: 2, body }] };
    const links = { resolveKeys: async () => new Map() };
    const service = new TransclusionService(rows as unknown as TransclusionRepository, links as unknown as PageLinksRepository);
    const embedded = async () => (await service.context('host', 'Before ![[Note]] after.'))!.pages.get('note')!.markdown;
    expect(await embedded()).toBe('First text of the embedded note.');
    body = 'Other text at the same version.';
    expect(await embedded()).toBe('Other text at the same version.');
  });
});
