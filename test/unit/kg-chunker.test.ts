import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { chunkHash, chunkMarkdown, DEFAULT_CHUNKER_OPTIONS, estimateTokens, sentencesOf, type Chunk } from '../../src/kg/chunker.js';
import { parseFrontmatter } from '../../src/pages/markdown/frontmatter.js';
import { FOAM_DOCS } from '../support/fixtures.js';

const MAX = DEFAULT_CHUNKER_OPTIONS.maxTokens;

// A deterministic text generator: sentences of 6–19 words from a small vocabulary, paragraphs of 2–6 sentences.
const VOCABULARY = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(' ');
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}
function sentence(next: () => number): string {
  const words = Array.from({ length: 6 + Math.floor(next() * 14) }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]);
  return `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}.`;
}
function paragraphs(seed: number, n: number): string[] {
  const next = random(seed);
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(next() * 5) }, () => sentence(next)).join(' '));
}
const hashes = (chunks: Chunk[]) => new Set(chunks.map((c) => c.contentHash));
const newChunks = (before: Chunk[], after: Chunk[]) => after.filter((c) => !hashes(before).has(c.contentHash)).length;
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

describe('chunkMarkdown: headings', () => {
  it('gives every chunk the path of headings above it, joined as "Setup › Linux" by the caller', () => {
    const chunks = chunkMarkdown(
      [
        'Intro text before any heading, long enough to stand on its own as a chunk of the page for sure.',
        '# Setup',
        'How to set things up on every system you might have, explained in enough words to be a chunk.',
        '## Linux',
        'Install the package with your package manager, then start the service and check its status.',
        '## macOS',
        'Use Homebrew to install it; the service starts at login and keeps running in the background.',
        '# Usage',
        'Open the app and write a page: it is saved as you type, and every version is kept in its history.',
      ].join('\n\n'),
      { minSectionTokens: 0 },
    );
    expect(chunks.map((c) => c.headingPath)).toEqual([[], ['Setup'], ['Setup', 'Linux'], ['Setup', 'macOS'], ['Usage']]);
    expect(chunks.map((c) => c.position)).toEqual([0, 1, 2, 3, 4]);
    // The heading is in the path, not repeated in the text.
    expect(chunks[2].text).toBe('Install the package with your package manager, then start the service and check its status.');
  });

  it('reads setext headings, closing hashes, and headings with links or emphasis as plain words', () => {
    const chunks = chunkMarkdown(
      'Guide\n=====\n\nFirst part of the guide with a few words in it to read.\n\nInstalling [[Foam|the app]] *quickly*\n---\n\nSecond part of the guide with a few more words in it to read.\n\n### `kurate` and [docs](https://x.test) ###\n\nThird part of the guide, again with a few words in it to read.',
      { minSectionTokens: 0 },
    );
    expect(chunks.map((c) => c.headingPath)).toEqual([['Guide'], ['Guide', 'Installing the app quickly'], ['Guide', 'Installing the app quickly', 'kurate and docs']]);
  });

  it('closes deeper headings when a shallower one comes (a level-3 under a level-1 keeps its parent)', () => {
    const chunks = chunkMarkdown('# A\n\nText of A that is long enough.\n\n### A3\n\nText of A3 that is long enough.\n\n## B2\n\nText of B2 that is long enough.\n\n# C\n\nText of C that is long enough.', {
      minSectionTokens: 0,
    });
    expect(chunks.map((c) => c.headingPath.join('/'))).toEqual(['A', 'A/A3', 'A/B2', 'C']);
  });

  it('merges a tiny section forward into the next section’s first chunk, keeping its heading as text', () => {
    const long = paragraphs(1, 2).join('\n\n');
    const chunks = chunkMarkdown(`# Setup\n\nA short intro.\n\n## Linux\n\n${long}\n\n## Windows\n\n${long}`);
    expect(chunks).toHaveLength(2);
    expect(chunks[0].headingPath).toEqual(['Setup']);
    expect(chunks[0].text).toBe(`A short intro.\n\n## Linux\n\n${long}`);
    expect(chunks[1].headingPath).toEqual(['Setup', 'Windows']);
    expect(chunks[1].text).toBe(long);
  });

  it('merges tiny sibling sections together, with each heading shown once', () => {
    const chunks = chunkMarkdown('# Tips\n\n## One\n\nShort tip one.\n\n## Two\n\nShort tip two.\n\n## Three\n\nShort tip three.');
    expect(chunks).toHaveLength(1);
    expect(chunks[0].headingPath).toEqual(['Tips']);
    expect(chunks[0].text).toBe('## One\n\nShort tip one.\n\n## Two\n\nShort tip two.\n\n## Three\n\nShort tip three.');
  });

  it('keeps the words of a heading with no text of its own (it joins the next section), and drops trailing ones', () => {
    const text = paragraphs(2, 2).join('\n\n');
    const chunks = chunkMarkdown(`## Treatment of Features\n\n## Wikilinks\n\n${text}\n\n## Embeds\n\n${text}\n\n## Nothing after`);
    expect(chunks.map((c) => c.headingPath)).toEqual([[], ['Embeds']]);
    expect(chunks[0].text).toBe(`## Treatment of Features\n\n## Wikilinks\n\n${text}`);
    // A heading whose text is in its sub-sections is their heading path, not a line of text.
    const nested = chunkMarkdown(`# Setup\n\n## Linux\n\n${text}`);
    expect(nested.map((c) => [c.headingPath, c.text])).toEqual([[['Setup', 'Linux'], text]]);
  });

  it('gives a page with no text (or only headings) no chunk', () => {
    expect(chunkMarkdown('')).toEqual([]);
    expect(chunkMarkdown('  \n\n\t\n')).toEqual([]);
    expect(chunkMarkdown('# Title\n\n## Empty\n\n---\n')).toEqual([]);
  });
});

describe('chunkMarkdown: blocks kept whole', () => {
  it('keeps a fenced code block whole, with its blank lines and what looks like headings inside it', () => {
    const code = '```ts\n# not a heading\n\nconst a = 1;\n\n\nconst b = 2;\n```';
    const chunks = chunkMarkdown(`# Code\n\nSome text before the code, with enough words to matter.\n\n${code}\n\nAnd text after it.`);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text).toContain(code);
    expect(chunks[0].headingPath).toEqual(['Code']);
  });

  it('keeps an unclosed fence to the end of the page, and tilde fences with a longer closing fence', () => {
    expect(chunkMarkdown('Text.\n\n~~~\ncode\n## still code\n~~~~\n\n## Real heading\n\nMore.', { minSectionTokens: 0 }).map((c) => c.headingPath)).toEqual([[], ['Real heading']]);
    const unclosed = chunkMarkdown('Text.\n\n```\ncode\n\n## not a heading', { minSectionTokens: 0 });
    expect(unclosed).toHaveLength(1);
    expect(unclosed[0].text).toBe('Text.\n\n```\ncode\n\n## not a heading');
  });

  it('keeps tables and lists (nested, with blank lines between items) whole', () => {
    const table = '| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |';
    const list = '- one\n  continued\n\n- two\n  - nested\n\n    indented paragraph of two\n- three';
    const numbered = '1. first\n2. second\n10. tenth';
    const chunks = chunkMarkdown(`Intro.\n\n${table}\n\n${list}\n\n${numbered}\n\nOutro paragraph.`);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text).toBe(`Intro.\n\n${table}\n\n${list}\n\n${numbered}\n\nOutro paragraph.`);
  });

  it('never cuts inside a code block, table or list, even when the section is split', () => {
    const text = paragraphs(2, 6).join('\n\n');
    const code = `\`\`\`\n${Array.from({ length: 40 }, (_, i) => `line ${i} of the code block`).join('\n')}\n\`\`\``;
    const list = Array.from({ length: 30 }, (_, i) => `- item ${i} of the list, with words`).join('\n');
    const chunks = chunkMarkdown(`# Long\n\n${text}\n\n${code}\n\n${text}\n\n${list}\n\n${text}`);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.filter((c) => c.text.includes(code))).toHaveLength(1);
    expect(chunks.filter((c) => c.text.includes(list))).toHaveLength(1);
    for (const chunk of chunks) expect((chunk.text.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it('splits a code block bigger than hardMaxTokens at lines, each piece fenced again with its info string', () => {
    const lines = Array.from({ length: 600 }, (_, i) => `console.log("line number ${i} of a very long script");`);
    const chunks = chunkMarkdown(`\`\`\`js\n${lines.join('\n')}\n\`\`\``);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.text.startsWith('```js\n')).toBe(true);
      expect(chunk.text.endsWith('\n```')).toBe(true);
      expect(chunk.tokenEstimate).toBeLessThanOrEqual(MAX + 16);
    }
    expect(chunks.flatMap((c) => c.text.split('\n').slice(1, -1))).toEqual(lines);
  });

  it('splits a table bigger than hardMaxTokens between rows, repeating its header', () => {
    const rows = Array.from({ length: 400 }, (_, i) => `| ${i} | value number ${i} | another cell |`);
    const chunks = chunkMarkdown(`| n | value | other |\n|---|---|---|\n${rows.join('\n')}`);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.text.startsWith('| n | value | other |\n|---|---|---|\n')).toBe(true);
    expect(chunks.flatMap((c) => c.text.split('\n').slice(2))).toEqual(rows);
  });
});

describe('chunkMarkdown: size, sentences and overlap', () => {
  it('keeps chunks within maxTokens and splits long paragraphs at sentence ends', () => {
    const long = paragraphs(3, 1)[0] + ' ' + paragraphs(4, 30).join(' ');
    expect(estimateTokens(long)).toBeGreaterThan(MAX * 2);
    const chunks = chunkMarkdown(`# One long paragraph\n\n${long}`);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk.tokenEstimate).toBeLessThanOrEqual(MAX);
      expect(chunk.text).toMatch(/\.$/);
      expect(chunk.text).toMatch(/^[A-Z]/);
    }
  });

  it('splits a sentence longer than a chunk at word boundaries', () => {
    const giant = `${Array.from({ length: 800 }, (_, i) => VOCABULARY[i % VOCABULARY.length]).join(' ')}.`;
    const chunks = chunkMarkdown(giant);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokenEstimate).toBeLessThanOrEqual(MAX);
    expect(words(chunks.map((c) => c.text).join(' ')).filter((w) => VOCABULARY.includes(w)).length).toBeGreaterThanOrEqual(800);
  });

  it('starts each further chunk of a section with the last sentence(s) of the one before (a short overlap)', () => {
    const chunks = chunkMarkdown(`# Long\n\n${paragraphs(5, 24).join('\n\n')}`);
    expect(chunks.length).toBeGreaterThan(2);
    for (let k = 1; k < chunks.length; k++) {
      const previous = sentencesOf(chunks[k - 1].text.replace(/\n/g, ' '));
      const own = sentencesOf(chunks[k].text.replace(/\n/g, ' '));
      // The longest run of this chunk's first sentences that ends the previous chunk.
      let overlap = 0;
      for (let n = 1; n <= Math.min(own.length, previous.length); n++) {
        if (own.slice(0, n).join(' ') === previous.slice(previous.length - n).join(' ')) overlap = n;
      }
      expect(overlap, `chunk ${k}`).toBeGreaterThanOrEqual(1);
      expect(estimateTokens(own.slice(0, overlap).join(' '))).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.overlapTokens);
      expect(chunks[k].tokenEstimate).toBeLessThanOrEqual(MAX);
    }
  });

  it('carries no overlap across a heading, nor out of a code block', () => {
    const text = paragraphs(6, 10).join('\n\n');
    const chunks = chunkMarkdown(`# A\n\n${text}\n\n# B\n\n${text}`);
    const firstOfB = chunks.find((c) => c.headingPath[0] === 'B')!;
    expect(firstOfB.text.startsWith(text.slice(0, 40))).toBe(true);
    const withCode = chunkMarkdown(`# C\n\n${paragraphs(7, 8).join('\n\n')}\n\n\`\`\`\n${'x = 1\n'.repeat(150)}\`\`\`\n\n${paragraphs(8, 8).join('\n\n')}`);
    const afterCode = withCode.findIndex((c) => c.text.includes('x = 1')) + 1;
    if (afterCode > 0 && afterCode < withCode.length) expect(withCode[afterCode].text.startsWith('x = 1')).toBe(false);
  });

  it('estimates about four characters per token, whitespace runs counting once', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('ab    \n\n   cd')).toBe(2);
  });

  it('counts exactly as collapsing every \\s run to one space and trimming would (boundaries and hashes rest on it)', () => {
    const reference = (text: string) => Math.ceil(text.replace(/\s+/g, ' ').trim().length / 4);
    // Every code unit \s matches, and neighbours that it must not: zero-width space, U+180E, U+0085, a surrogate pair.
    const alphabet = ['a', 'é', '😀', '\u200b', '\u180e', '\u0085', '\u0008', '\u001f', '!'];
    for (let c = 0; c <= 0xffff; c++) if (/\s/.test(String.fromCharCode(c))) alphabet.push(String.fromCharCode(c));
    expect(alphabet.length).toBeGreaterThan(30);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let n = 0; n < 5000; n++) {
      let text = '';
      for (let k = next() % 40; k > 0; k--) text += alphabet[next() % alphabet.length];
      expect(estimateTokens(text), JSON.stringify(text)).toBe(reference(text));
    }
    for (const file of readdirSync(FOAM_DOCS, { recursive: true }).map(String).filter((f) => f.endsWith('.md'))) {
      const body = readFileSync(path.join(FOAM_DOCS, file), 'utf8');
      expect(estimateTokens(body), file).toBe(reference(body));
    }
  });
});

describe('chunkMarkdown: content hashes', () => {
  it('hashes heading path and text, not position; identical input gives identical chunks', () => {
    const markdown = `# A\n\n${paragraphs(9, 3).join('\n\n')}\n\n# B\n\n${paragraphs(10, 3).join('\n\n')}`;
    const chunks = chunkMarkdown(markdown);
    expect(chunkMarkdown(markdown)).toEqual(chunks);
    for (const chunk of chunks) expect(chunk.contentHash).toBe(chunkHash(chunk.headingPath, chunk.text));
    expect(chunkHash(['A'], 'text')).not.toBe(chunkHash(['B'], 'text'));
    expect(chunkHash(['A', 'B'], 'text')).not.toBe(chunkHash(['A B'], 'text'));
  });

  it('keeps every other chunk’s hash when a section is edited, added before, or removed', () => {
    const sections = Array.from({ length: 8 }, (_, k) => `## Part ${k}\n\n${paragraphs(20 + k, 3).join('\n\n')}`);
    const base = chunkMarkdown(sections.join('\n\n'));
    expect(base).toHaveLength(8);
    const edited = [...sections];
    edited[3] = edited[3].replace(/ (\w+) (\w+)\./, ' $1 changed.');
    expect(newChunks(base, chunkMarkdown(edited.join('\n\n')))).toBe(1);
    const inserted = chunkMarkdown([`## New\n\n${paragraphs(99, 3).join('\n\n')}`, ...sections].join('\n\n'));
    expect(newChunks(base, inserted)).toBe(1);
    expect(inserted.slice(1).map((c) => c.contentHash)).toEqual(base.map((c) => c.contentHash));
    expect(newChunks(base, chunkMarkdown(sections.filter((_, k) => k !== 5).join('\n\n')))).toBe(0);
  });

  it('changes at most 2 chunks when one paragraph of a long single section is edited mid-paragraph (every paragraph, 4 texts)', () => {
    for (const seed of [31, 32, 33, 34]) {
      const paras = paragraphs(seed, 60);
      const base = chunkMarkdown(`# Long\n\n${paras.join('\n\n')}`);
      expect(base.length).toBeGreaterThan(8);
      for (let k = 0; k < paras.length; k++) {
        for (const edit of [(p: string) => p.replace(/ (\w+)\.$/, ' changed.'), (p: string) => p.replace(/\. (\w+)/, '. Changed')]) {
          const edited = [...paras];
          edited[k] = edit(edited[k]);
          if (edited[k] === paras[k]) continue;
          const fresh = newChunks(base, chunkMarkdown(`# Long\n\n${edited.join('\n\n')}`));
          expect(fresh, `paragraph ${k} of text ${seed}`).toBeGreaterThanOrEqual(1);
          expect(fresh, `paragraph ${k} of text ${seed}`).toBeLessThanOrEqual(2);
        }
      }
    }
  });

  it('usually changes 1 or 2 chunks when a sentence is appended to a paragraph (over 97% of 240 edits, never more than 4)', () => {
    let within = 0;
    let edits = 0;
    for (const seed of [41, 42, 43, 44]) {
      const paras = paragraphs(seed, 60);
      const base = chunkMarkdown(`# Long\n\n${paras.join('\n\n')}`);
      for (let k = 0; k < paras.length; k++) {
        const edited = [...paras];
        edited[k] = `${edited[k]} An added sentence with several more words in it.`;
        const fresh = newChunks(base, chunkMarkdown(`# Long\n\n${edited.join('\n\n')}`));
        edits++;
        if (fresh <= 2) within++;
        expect(fresh).toBeLessThanOrEqual(4);
      }
    }
    expect(within / edits).toBeGreaterThan(0.97);
  });
});

/** The body without the link reference definitions markdown-it reads from it. */
function withoutDefinitions(body: string): string {
  const md = new MarkdownIt();
  const env: { references?: Record<string, unknown> } = {};
  md.parse(body, env);
  const labels = new Set(Object.keys(env.references ?? {}));
  return body
    .split('\n')
    .filter((line) => {
      const label = /^ {0,3}\[([^\]]+)\]:/.exec(line)?.[1];
      return !(label && labels.has(md.utils.normalizeReference(label)));
    })
    .join('\n');
}

describe('chunkMarkdown: link reference definitions', () => {
  it('leaves out link reference definitions, which render as nothing, and keeps the text that uses them', () => {
    const body = [
      'See the [graph view][graph-view] and [tags].',
      '',
      "[graph-view]: features/graph-view.md 'Graph View'",
      '[tags]: <features/tags.md> "Tags"',
      '   [daily notes]: features/daily-notes.md (Daily Notes)',
      '',
      '[^1]: A footnote is text: https://example.com',
      '',
      'A paragraph line',
      "[not-a-definition]: it cannot interrupt a paragraph 'so it stays'",
      '',
      '```',
      "[in-code]: code.md 'In Code'",
      '```',
    ].join('\n');
    const text = chunkMarkdown(body).map((c) => c.text).join('\n');
    expect(text).toContain('See the [graph view][graph-view] and [tags].');
    expect(text).not.toMatch(/Graph View|features\/tags\.md|Daily Notes/);
    expect(text).toContain('[^1]: A footnote is text');
    expect(text).toContain('[not-a-definition]: it cannot interrupt a paragraph');
    expect(text).toContain("[in-code]: code.md 'In Code'");
  });

  it('reads a Foam page whose definitions block follows its text as that text only', () => {
    const body = readFileSync(path.join(FOAM_DOCS, 'user/recipes/recipes.md'), 'utf8');
    const text = chunkMarkdown(parseFrontmatter(body).body).map((c) => c.text).join('\n');
    expect(text).toContain('Style your environment with [[custom-markdown-preview-styles]]');
    expect(text).not.toContain("'Custom Markdown Preview Styles'");
  });
});

describe('chunkMarkdown on hostile text', () => {
  // Each of these took from seconds to hours before: a trailing-space pattern, a heading pattern and a link pattern
  // that rescanned the rest of a long line from every position, and a run of blanks or one "word" of a megabyte
  // that became one chunk of a megabyte. CPU time, as the corpus test below.
  it('chunks runs of blanks, brackets and hashes of 200,000 characters in linear time, into chunks of a few thousand characters', () => {
    const n = 200_000;
    const started = process.cpuUsage();
    for (const body of [`a${' '.repeat(n)}b`, `# a${' '.repeat(n)}b`, `${' '.repeat(n)}x`, `${'['.repeat(n)}]`, `# ${'['.repeat(n)}]`, '#'.repeat(n), `[a]: x${' '.repeat(n)}y`]) {
      const chunks = chunkMarkdown(body);
      for (const chunk of chunks) expect(chunk.text.length).toBeLessThan(10_000);
    }
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
  });

  it('segments a long paragraph a window at a time into the same sentences as at once (no word cut at a window\'s end)', () => {
    const next = random(7);
    const text = Array.from({ length: 2_000 }, () => sentence(next)).join(' ');
    const atOnce = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map((x) => x.segment.trim()).filter(Boolean);
    expect(text.length).toBeGreaterThan(50_000);
    expect(sentencesOf(text)).toEqual(atOnce);
    // A "sentence" longer than a window is split between words, never inside one.
    const run = Array.from({ length: 3_000 }, (_, i) => `word${i}`).join(' ');
    const pieces = sentencesOf(run);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join(' ')).toBe(run);
  });

  it('sends a run of thousands of headings without text out in chunks of the usual size, losing none of their words', () => {
    const titles = Array.from({ length: 5_000 }, (_, i) => `Heading ${i}`);
    const chunks = chunkMarkdown(`${titles.map((t) => `# ${t}`).join('\n\n')}\n\nAda Lovelace wrote notes.`);
    for (const chunk of chunks) expect(chunk.tokenEstimate).toBeLessThanOrEqual(MAX);
    const all = chunks.map((c) => c.text).join('\n');
    for (const title of [titles[0], titles[2_500], titles[4_999]]) expect(all).toContain(title);
    expect(all).toContain('Ada Lovelace wrote notes.');
  });

  it('cuts a "word" longer than a chunk between characters, never inside one (a run of emoji stays whole emoji)', () => {
    // One letter first, so that a cut every N code units (N even) would fall inside a pair.
    const chunks = chunkMarkdown(`x${'🙂'.repeat(20_000)}`);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.text).toMatch(/^x?(?:🙂)+x?$/u);
  });

  it('reads a run of more than 64 blanks inside a line as one space, and keeps indentation and ordinary spacing', () => {
    const [chunk] = chunkMarkdown(`Name${' '.repeat(80)}Value and  two  spaces\n\n\`\`\`\n${' '.repeat(8)}indented code\n\`\`\``);
    expect(chunk.text).toContain('Name Value and  two  spaces');
    expect(chunk.text).toContain(`${' '.repeat(8)}indented code`);
  });

  it('reads ATX headings as CommonMark does: closing hashes after a space go, others stay', () => {
    const titles = (line: string) => chunkMarkdown(`${line}\n\nText under it.`).map((c) => c.headingPath.join(' › '));
    expect(titles('## Setup ##')).toEqual(['Setup']);
    expect(titles('## C# notes')).toEqual(['C# notes']);
    expect(titles('### Title#')).toEqual(['Title#']);
    expect(titles(`#   Spaced${' '.repeat(40)}`)).toEqual(['Spaced']);
  });
});

describe('chunkMarkdown on the Foam documentation', () => {
  const files = readdirSync(FOAM_DOCS, { recursive: true }).map(String).filter((f) => f.endsWith('.md'));
  const pages = files.map((file) => ({ file, body: parseFrontmatter(readFileSync(path.join(FOAM_DOCS, file), 'utf8')).body }));

  it('loses no word of any page, and keeps chunks within the size limits', () => {
    expect(pages.length).toBeGreaterThan(80);
    for (const { file, body } of pages) {
      const chunks = chunkMarkdown(body);
      const chunked = new Set(words(chunks.map((c) => `${c.headingPath.join(' ')} ${c.text}`).join(' ')));
      // A link in a heading keeps its words in the heading path, not its URL; link reference definitions, which
      // Markdown renders as nothing, are left out (markdown-it says which lines they are).
      const source = withoutDefinitions(body).replace(/^(#{1,6} .*)$/gm, (heading) => heading.replace(/\]\([^)]*\)/g, ']'));
      const missing = [...new Set(words(source))].filter((w) => !chunked.has(w));
      expect(missing, file).toEqual([]);
      for (const chunk of chunks) expect(chunk.tokenEstimate, `${file} #${chunk.position}`).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.hardMaxTokens + 8);
      expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    }
  });

  // CPU time, not wall time: on a machine shared with other work the wall clock also counts the others' turns.
  it('chunks the whole corpus in well under a second of CPU', () => {
    const started = process.cpuUsage();
    let total = 0;
    for (const { body } of pages) total += chunkMarkdown(body).length;
    expect(total).toBeGreaterThan(pages.length);
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
  });
});
