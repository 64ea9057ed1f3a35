// @module-tag slow (compiles the Markdown worker and renders in worker threads): `npm run test:fast` leaves it out; docs/testing.md
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainErrorCode, DomainException } from '../../src/common/domain.exception.js';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { INLINE_RENDER_MAX_CHARS, MarkdownPool } from '../../src/pages/markdown-pool.js';
import type { RenderRequest } from '../../src/pages/markdown/markdown-tasks.js';
import { ensureCompiled } from '../support/cli.js';
import { FOAM_DOCS } from '../support/fixtures.js';

const MARKDOWN_WORKER = { entry: 'src/pages/markdown/markdown.worker.ts', sources: ['src/pages/markdown'] };

/** Every Foam page one after the other: a large page with wikilinks, embeds, tables, code and math. */
function largePage(): string {
  const files = readdirSync(FOAM_DOCS, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md')).sort();
  return files.map((file) => readFileSync(path.join(FOAM_DOCS, file), 'utf8').replace(/^---[\s\S]*?\n---\n/, '')).join('\n\n');
}

function requestFor(markdown: string): RenderRequest {
  return {
    markdown,
    links: [['getting-started', { slug: 'getting-started', title: 'Getting Started' }], ['wikilinks', null], ['note', { slug: 'note', title: 'Note' }]],
    embeds: { hostSlug: 'host', pages: [['note', { slug: 'note', title: 'Note', markdown: '## Part\n\nEmbedded **text** with [[wikilinks]].' }]] },
    files: [['assets/logo.png', { path: 'assets/logo.png', url: '/files/assets/logo.png', mediaType: 'image/png', sizeBytes: 10 }]],
  };
}

/** A table of `rows` × `columns` cells: cheap to send, slow to parse, render and sanitise. */
function table(rows: number, columns: number): string {
  const row = `|${' x |'.repeat(columns)}`;
  return [row, `|${'---|'.repeat(columns)}`, ...Array.from({ length: rows }, () => row)].join('\n');
}

describe('MarkdownPool: large pages in a worker thread (KURATE_RENDER_THREADS)', () => {
  let threaded: MarkdownPool;
  let inline: MarkdownPool;
  let impatient: MarkdownPool;

  beforeAll(async () => {
    const file = await ensureCompiled(MARKDOWN_WORKER);
    threaded = new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '1' }), file);
    inline = new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '0' }), file);
    impatient = new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '1', KURATE_RENDER_TIMEOUT_SECONDS: '1' }), file);
    threaded.onModuleInit();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([threaded?.onApplicationShutdown(), impatient?.onApplicationShutdown()]);
  });

  it('refuses KURATE_RENDER_THREADS without the compiled worker at boot; unset, it renders on the main thread there', async () => {
    const missing = path.join(FOAM_DOCS, 'no-such-worker.js');
    expect(() => new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '1' }), missing).onModuleInit()).toThrow(ConfigError);
    expect(() => new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '1' }), missing).onModuleInit()).toThrow(/KURATE_RENDER_THREADS needs the compiled worker module .*no-such-worker\.js: build the server \(npm run build\), or set KURATE_RENDER_THREADS=0/);
    const unset = new MarkdownPool(loadConfig({}), missing);
    unset.onModuleInit();
    expect((await unset.render(requestFor(largePage()))).html).toContain('<p>Resource filters can be passed to some Foam commands');
  });

  it('renders a large page in a thread exactly as on the main thread: links, embeds, files, outline', async () => {
    const markdown = `${largePage()}\n\n![[Note]]\n\n![[assets/logo.png]]\n\n[[Getting Started]] and [[Wikilinks]]`;
    expect(markdown.length).toBeGreaterThan(INLINE_RENDER_MAX_CHARS * 4);
    const [fromThread, fromMain] = await Promise.all([threaded.render(requestFor(markdown)), inline.render(requestFor(markdown))]);
    expect(fromThread).toEqual(fromMain);
    expect(fromThread.html).toContain('href="/page/getting-started"');
    expect(fromThread.html).toContain('Embedded <strong>text</strong>');
    expect(fromThread.html).toContain('src="/files/assets/logo.png"');
    expect(fromThread.toc.length).toBeGreaterThan(20);
  });

  it('finds the link keys and file targets of large unsaved text in a thread, as on the main thread', async () => {
    const markdown = `${largePage()}\n\n![[assets/logo.png]]`;
    const [fromThread, fromMain] = await Promise.all([threaded.references(markdown), inline.references(markdown)]);
    expect(fromThread).toEqual(fromMain);
    expect(fromThread.linkKeys.length).toBeGreaterThan(20);
    expect(fromThread.fileTargets).toContain('assets/logo.png');
  });

  it("reads a large page's links, embeds and file references for its save in a thread, as on the main thread", async () => {
    const markdown = `${largePage()}\n\n![[assets/logo.png]] %% [[Hidden In A Comment]] ![[Hidden Embed]] %%\n\nSee [[Shown Note]], then ![[Shown Note]] and ![[Other Note#Part]].`;
    const [fromThread, fromMain] = await Promise.all([threaded.saveAnalysis(markdown), inline.saveAnalysis(markdown)]);
    expect(fromThread).toEqual(fromMain);
    expect(fromThread.links.length).toBeGreaterThan(20);
    expect(fromThread.links.map((link) => link.targetKey)).not.toContain('hidden-in-a-comment');
    // A page both linked and embedded is one Page Graph row (its first mention, a link) and still an embed.
    expect(fromThread.links.find((link) => link.targetKey === 'shown-note')?.kind).toBe('wikilink');
    expect(fromThread.embedKeys).toEqual(expect.arrayContaining(['shown-note', 'other-note']));
    expect(fromThread.embedKeys).not.toContain('hidden-embed');
    expect(fromThread.fileReferences.map((reference) => reference.target)).toContain('assets/logo.png');
  });

  it('keeps the main thread free while a thread renders a 1000 × 200 table', async () => {
    const markdown = table(1000, 200);
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const started = performance.now();
    const rendered = await threaded.render({ markdown, links: [], embeds: null, files: [] });
    const tookMs = performance.now() - started;
    clearInterval(timer);
    expect(rendered.html.match(/<td>/g)?.length).toBe(200_000);
    // The rendering takes seconds; the main thread's 10 ms timer kept firing all along (generous bounds: the machine
    // runs other test files at the same time).
    expect(tookMs).toBeGreaterThan(500);
    expect(ticks).toBeGreaterThan(tookMs / 10 / 4);
    expect(longestGap).toBeLessThan(Math.max(250, tookMs / 4));
  });

  it("counts a page's time limit from the moment a thread starts it: pages queued behind others each get their own", async () => {
    const request = { markdown: table(150, 200), links: [], embeds: null, files: [] };
    // One page's time in a thread on this machine as it is now (the slower of two, the thread already started).
    const times: number[] = [];
    for (let run = 0; run < 2; run++) {
      const started = performance.now();
      await threaded.render(request);
      times.push(performance.now() - started);
    }
    const oneMs = Math.max(...times);
    // A limit that one page keeps with room to spare, and enough pages at once that the last waits twice that limit.
    const limitSeconds = Math.max(1, Math.ceil((4 * oneMs) / 1000));
    const pages = Math.ceil((2 * limitSeconds * 1000) / oneMs);
    const patient = new MarkdownPool(loadConfig({ KURATE_RENDER_THREADS: '1', KURATE_RENDER_TIMEOUT_SECONDS: String(limitSeconds) }), await ensureCompiled(MARKDOWN_WORKER));
    try {
      const started = performance.now();
      const rendered = await Promise.all(Array.from({ length: pages }, () => patient.render(request)));
      expect(performance.now() - started).toBeGreaterThan(limitSeconds * 1000);
      expect(rendered.every((page) => page.html.match(/<td>/g)?.length === 150 * 200)).toBe(true);
    } finally {
      await patient.onApplicationShutdown();
    }
  }, 60_000);

  it('answers a page that takes longer than KURATE_RENDER_TIMEOUT_SECONDS with a 422 (too complex), ends its thread, and renders the pages queued behind it', async () => {
    const hostile = impatient.render({ markdown: table(2000, 200), links: [], embeds: null, files: [] }).catch((e: unknown) => e);
    const queued = impatient.render({ markdown: `${'queued '.repeat(5000)}\n\n*after*`, links: [], embeds: null, files: [] });
    const error = await hostile;
    expect(error).toBeInstanceOf(DomainException);
    expect((error as DomainException).code).toBe(DomainErrorCode.TooComplex);
    expect((error as DomainException).message).toMatch(/took longer than 1 s to render/);
    const small = await impatient.render({ markdown: `${'word '.repeat(5000)}\n\n**bold**`, links: [], embeds: null, files: [] });
    expect(small.html).toContain('<strong>bold</strong>');
    expect((await queued).html).toContain('<em>after</em>');
  }, 60_000);
});
