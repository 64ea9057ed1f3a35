import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkPage } from '../../src/kg/page-chunks.js';
import { parseFrontmatter } from '../../src/pages/markdown/frontmatter.js';
import { headingIds, MarkdownRenderer } from '../../src/pages/markdown/markdown-renderer.js';
import { FOAM_DOCS } from '../support/fixtures.js';

const words = (topic: string) => `Enough words about ${topic} to make this section a chunk of its own, not merged with the next one. `.repeat(3);
const renderedIds = (markdown: string) => [...new MarkdownRenderer().render(markdown, () => null).html.matchAll(/<h\d id="([^"]+)"/g)].map((m) => m[1]);

describe('chunkPage: each chunk knows the id its section has on the rendered page', () => {
  it('tells a repeated heading apart the way the renderer does (setup, setup-2, …)', () => {
    const markdown = `# Guide\n\n## Linux\n\n### Setup\n\n${words('apt')}\n\n## Windows\n\n### Setup\n\n${words('the installer')}`;
    const chunks = chunkPage(markdown);
    expect(chunks.map((c) => [c.headingPath.join(' › '), c.anchor])).toEqual([
      ['Guide › Linux › Setup', 'setup'],
      ['Guide › Windows › Setup', 'setup-2'],
    ]);
    expect(renderedIds(markdown)).toEqual(['guide', 'linux', 'setup', 'windows', 'setup-2']);
  });

  it('counts headings the chunker does not cut at (in a block quote), and a title that would collide with a later one', () => {
    const markdown = `> ## Setup\n> ${words('quotes')}\n\n## Setup 2\n\n${words('numbers')}\n\n## Setup\n\n${words('the real one')}`;
    expect(renderedIds(markdown)).toEqual(['setup', 'setup-2', 'setup-3']);
    expect(chunkPage(markdown).map((c) => c.anchor)).toEqual([null, 'setup-2', 'setup-3']);
  });

  it('takes the renderer’s text of a heading (entities, code, links, setext underlines)', () => {
    const markdown = `Q&amp;A about \`npm\`\n==================\n\n${words('questions')}\n\n## [[Tools|Our tools]]\n\n${words('tools')}`;
    expect(chunkPage(markdown).map((c) => c.anchor)).toEqual(renderedIds(markdown));
    expect(renderedIds(markdown)).toEqual(['q-a-about-npm', 'our-tools']);
  });

  it('has no anchor at the top of a page, before any heading', () => {
    expect(chunkPage(`${words('the intro')}\n\n## Later\n\n${words('later things')}`).map((c) => c.anchor)).toEqual([null, 'later']);
    expect(chunkPage(words('a page without headings')).map((c) => c.anchor)).toEqual([null]);
  });

  it('gives a merged tiny section the anchor of the heading the chunk starts under', () => {
    const chunks = chunkPage(`## Tips\n\n### One\n\nShort.\n\n### Two\n\n${words('tip two')}`);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].headingPath).toEqual(['Tips']);
    expect(chunks[0].anchor).toBe('tips');
  });

  it('reads heading ids with a parser that skips other inline content, and gets the renderer’s ids on every Foam page', () => {
    const files = readdirSync(FOAM_DOCS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
    expect(files.length).toBeGreaterThan(50);
    let headings = 0;
    for (const file of files) {
      let body = readFileSync(path.join(FOAM_DOCS, file), 'utf8');
      try {
        body = parseFrontmatter(body).body;
      } catch {
        // As extraction does: a page whose frontmatter does not parse is read as it stands.
      }
      const ids = [...headingIds(body).values()];
      expect(ids, file).toEqual(renderedIds(body));
      headings += ids.length;
    }
    expect(headings).toBeGreaterThan(200);
  });
});
