import { describe, expect, it } from 'vitest';
import {
  aliasesOf,
  frontmatterBeyondBounds,
  MAX_FRONTMATTER_CHARS,
  clustersOf,
  FrontmatterError,
  parseFrontmatter,
  serializeFrontmatter,
  tagsOf,
  type PageFrontmatter,
} from '../../src/pages/markdown/frontmatter.js';

function frontmatterError(source: string): FrontmatterError {
  try {
    parseFrontmatter(source);
  } catch (error) {
    expect(error).toBeInstanceOf(FrontmatterError);
    return error as FrontmatterError;
  }
  throw new Error(`expected a FrontmatterError for ${JSON.stringify(source)}`);
}

describe('parseFrontmatter: the block', () => {
  it('returns the whole text as body when there is no frontmatter', () => {
    expect(parseFrontmatter('# Hello\n\ntext')).toEqual({ frontmatter: {}, body: '# Hello\n\ntext', hasFrontmatter: false });
  });

  it('parses a leading block and returns the rest as body', () => {
    const source = '---\ntitle: Graph View\ntype: feature\n---\n# Graph\n';
    expect(parseFrontmatter(source)).toEqual({
      frontmatter: { title: 'Graph View', type: 'feature' },
      body: '# Graph\n',
      hasFrontmatter: true,
    });
  });

  it('accepts CRLF line endings and keeps them in the body', () => {
    const parsed = parseFrontmatter('---\r\ntitle: A\r\ntags: [x]\r\n---\r\nline 1\r\nline 2\r\n');
    expect(parsed.frontmatter).toEqual({ title: 'A', tags: ['x'] });
    expect(parsed.body).toBe('line 1\r\nline 2\r\n');
  });

  it('accepts `...` as the closing fence', () => {
    expect(parseFrontmatter('---\ntitle: A\n...\nbody')).toEqual({ frontmatter: { title: 'A' }, body: 'body', hasFrontmatter: true });
  });

  it('accepts a byte-order mark before the block', () => {
    expect(parseFrontmatter('\uFEFF---\ntitle: A\n---\nbody')).toEqual({
      frontmatter: { title: 'A' },
      body: 'body',
      hasFrontmatter: true,
    });
  });

  it('drops a byte-order mark from a body without frontmatter', () => {
    expect(parseFrontmatter('\uFEFF# Title').body).toBe('# Title');
  });

  it('accepts a closing fence at the very end of the text', () => {
    expect(parseFrontmatter('---\ntitle: A\n---')).toEqual({ frontmatter: { title: 'A' }, body: '', hasFrontmatter: true });
  });

  it('tolerates trailing spaces on the fences', () => {
    expect(parseFrontmatter('--- \ntitle: A\n---\t\nbody').frontmatter).toEqual({ title: 'A' });
  });

  it('reads an empty or comment-only block as {}', () => {
    expect(parseFrontmatter('---\n---\nbody')).toEqual({ frontmatter: {}, body: 'body', hasFrontmatter: true });
    expect(parseFrontmatter('---\n# just a comment\n---\nbody')).toEqual({ frontmatter: {}, body: 'body', hasFrontmatter: true });
  });

  it('treats an unclosed block as body (a thematic break), not as an error', () => {
    const source = '---\ntitle: A\n\nSome text';
    expect(parseFrontmatter(source)).toEqual({ frontmatter: {}, body: source, hasFrontmatter: false });
  });

  it('only recognises the block at the very top', () => {
    const source = 'intro\n---\ntitle: A\n---\n';
    expect(parseFrontmatter(source)).toEqual({ frontmatter: {}, body: source, hasFrontmatter: false });
    expect(parseFrontmatter(`\n${source}`).hasFrontmatter).toBe(false);
  });

  it('does not take `----` or an indented `---` for a fence', () => {
    expect(parseFrontmatter('----\ntitle: A\n----\n').hasFrontmatter).toBe(false);
    expect(parseFrontmatter('---\ndescription: |\n  ---\n  still text\n---\nbody')).toEqual({
      frontmatter: { description: '---\nstill text\n' },
      body: 'body',
      hasFrontmatter: true,
    });
  });

  it('keeps the body byte for byte, including leading blank lines', () => {
    expect(parseFrontmatter('---\ntitle: A\n---\n\n\n  indented\n').body).toBe('\n\n  indented\n');
  });
});

describe('parseFrontmatter: YAML errors', () => {
  it('reports the line in the whole source, counting the opening fence', () => {
    const error = frontmatterError('---\ntitle: a\ntype: x\ntitle: b\n---\n');
    expect(error.line).toBe(4);
    expect(error.message).toBe('Invalid frontmatter at line 4: Map keys must be unique');
    expect(error.name).toBe('FrontmatterError');
    expect(error).toBeInstanceOf(Error);
  });

  it('reports syntax errors with the YAML reason only', () => {
    const error = frontmatterError('---\ntitle: a\n  b: c\n---\n');
    expect(error.message).toBe('Invalid frontmatter at line 2: Nested mappings are not allowed in compact mappings');
    expect(error.line).toBe(2);
  });

  it('counts lines the same way with CRLF endings and a BOM', () => {
    expect(frontmatterError('\uFEFF---\r\ntitle: a\r\ntitle: b\r\n---\r\n').line).toBe(3);
  });

  it('rejects unresolved aliases', () => {
    expect(frontmatterError('---\nkey: *nope\n---\n').message).toMatch(/^Invalid frontmatter at line 2: Unresolved alias/);
  });

  it('rejects alias bombs (billion laughs)', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(frontmatterError(`---\n${bomb}\n---\n`).message).toMatch(/resource exhaustion/);
  });

  it.each([
    ['a list', '---\n- a\n- b\n---\n'],
    ['a scalar', '---\njust text\n---\n'],
  ])('rejects frontmatter that is %s', (_kind, source) => {
    const error = frontmatterError(source);
    expect(error.message).toBe('Invalid frontmatter at line 2: expected a mapping of keys to values');
    expect(error.line).toBe(2);
  });
});

describe('parseFrontmatter: known keys', () => {
  const parse = (yaml: string) => parseFrontmatter(`---\n${yaml}\n---\n`).frontmatter;

  it('parses every known key', () => {
    const yaml = [
      'title: Graph View',
      'cluster: [features/graph, features]',
      'tags: [visual, graph]',
      'type: feature',
      'aliases: [Graph, Map View]',
      'kg_include: true',
      'system: false',
    ].join('\n');
    expect(parse(yaml)).toEqual({
      title: 'Graph View',
      cluster: ['features/graph', 'features'],
      tags: ['visual', 'graph'],
      type: 'feature',
      aliases: ['Graph', 'Map View'],
      kg_include: true,
      system: false,
    });
  });

  it('normalises a single tag or alias string to a list', () => {
    expect(parse('tags: solo\naliases: Other Name')).toEqual({ tags: ['solo'], aliases: ['Other Name'] });
  });

  it('reads listed tags as inline #tags read: without a leading #, trimmed, no blank one, each once', () => {
    expect(parse('tags: ["", "#draft", " spaced ", "##deep", "draft", "#"]')).toEqual({ tags: ['draft', 'spaced', 'deep'] });
    expect(parse('tags: "#a, #b"')).toEqual({ tags: ['a', 'b'] });
  });

  it('keeps what YAML wrote that JSON has no type for: sets as lists, ordered maps as objects, binary as base64, big integers as digits', () => {
    expect(parse('s: !!set {a, b}\no: !!omap [x: 1, y: 2]\nbin: !!binary aGVsbG8=\nbig: 123456789012345678901234567890\nsmall: 42\nneg: -7')).toEqual({
      s: ['a', 'b'],
      o: { x: 1, y: 2 },
      bin: 'aGVsbG8=',
      big: '123456789012345678901234567890',
      small: 42,
      neg: -7,
    });
    // Aliases stay shared values; a value inside its own anchor is still refused.
    expect(parse('a: &x [1, 2]\nb: *x')).toEqual({ a: [1, 2], b: [1, 2] });
    expect(() => parseFrontmatter('---\na: &a {b: *a}\n---\n')).toThrow(/contains itself/);
    // A NUL inside a set is found like any other.
    expect(() => parseFrontmatter('---\ns: !!set {"a\\0b"}\n---\n')).toThrow(/NUL/);
  });

  it('splits comma-separated tags', () => {
    expect(parse('tags: "a, b , ,c"')).toEqual({ tags: ['a', 'b', 'c'] });
    expect(parse('tags: ""')).toEqual({ tags: [] });
  });

  it('does not split commas inside tag lists or aliases', () => {
    expect(parse('tags: ["a, b"]\naliases: "Smith, John"')).toEqual({ tags: ['a, b'], aliases: ['Smith, John'] });
  });

  it('coerces numeric titles and types to strings', () => {
    expect(parse('title: 2024\ntype: 1.5')).toEqual({ title: '2024', type: '1.5' });
  });

  it('keeps a single cluster as a string', () => {
    expect(parse('cluster: engineering/backend')).toEqual({ cluster: 'engineering/backend' });
    expect(parse('cluster: engineering')).toEqual({ cluster: 'engineering' });
  });

  it('drops known keys left empty', () => {
    expect(parse('title: A\ntags:\naliases: ~')).toEqual({ title: 'A' });
  });

  it('keeps unknown keys as they are', () => {
    expect(parse('date: 2024-01-31\nrating: 4\nnested:\n  a: [1, 2]\ntags: [x]')).toEqual({
      date: '2024-01-31',
      rating: 4,
      nested: { a: [1, 2] },
      tags: ['x'],
    });
  });

  it('keeps a __proto__ key as plain data without touching prototypes', () => {
    const frontmatter = parse('__proto__:\n  polluted: true');
    expect(Object.getPrototypeOf(frontmatter)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['tags: [1, 2]', 3, '"tags" must be a string or a list of strings'],
    ['tags: {a: 1}', 3, '"tags" must be a string or a list of strings'],
    ['aliases: 42', 3, '"aliases" must be a string or a list of strings'],
    ['aliases: [ok, [nested]]', 3, '"aliases" must be a string or a list of strings'],
    ['cluster: 7', 3, '"cluster" must be a string or a list of strings'],
    ['kg_include: "yes"', 3, '"kg_include" must be true or false'],
    ['system: 1', 3, '"system" must be true or false'],
    ['title: [a, b]', 3, '"title" must be a string'],
    ['type: true', 3, '"type" must be a string'],
  ])('rejects %j', (yaml, line, reason) => {
    const error = frontmatterError(`---\nother: 1\n${yaml}\n---\n`);
    expect(error.line).toBe(line);
    expect(error.message).toBe(`Invalid frontmatter at line ${line}: ${reason}`);
  });

  it.each(['Engineering', 'a/b/c', 'a/', '/a', '../etc', 'a b', 'a//b', ''])('rejects the cluster %j', (cluster) => {
    const error = frontmatterError(`---\ncluster: ${JSON.stringify(cluster)}\n---\n`);
    expect(error.line).toBe(2);
    expect(error.message).toBe(
      `Invalid frontmatter at line 2: "cluster" value "${cluster}" must be a slug path like "parent" or "parent/child"`,
    );
  });

  it('validates every value of a cluster list', () => {
    expect(frontmatterError('---\ntitle: A\ncluster:\n  - good\n  - Bad One\n---\n').message).toBe(
      'Invalid frontmatter at line 3: "cluster" value "Bad One" must be a slug path like "parent" or "parent/child"',
    );
  });

  it('accepts Unicode cluster slugs', () => {
    expect(parse('cluster: 日本語/ページ')).toEqual({ cluster: '日本語/ページ' });
  });
});

describe('serializeFrontmatter', () => {
  it('writes a YAML block before the body', () => {
    expect(serializeFrontmatter({ title: 'Graph View', tags: ['a', 'b'] }, '# Graph\n')).toBe(
      '---\ntitle: Graph View\ntags:\n  - a\n  - b\n---\n# Graph\n',
    );
  });

  it('writes no block for empty frontmatter', () => {
    expect(serializeFrontmatter({}, '# Body\n')).toBe('# Body\n');
    expect(serializeFrontmatter({ title: undefined }, 'x')).toBe('x');
  });

  it('keeps an empty block when the body would otherwise read as frontmatter', () => {
    expect(serializeFrontmatter({}, '---\na: 1\n---\n')).toBe('---\n---\n---\na: 1\n---\n');
  });

  it('does not fold long values', () => {
    const title = 'word '.repeat(40).trim();
    expect(serializeFrontmatter({ title }, '')).toBe(`---\ntitle: ${title}\n---\n`);
  });

  const roundTrips: Array<[string, PageFrontmatter, string]> = [
    ['all known keys', { title: 'Graph View', cluster: ['features/graph', 'features'], tags: ['a'], type: 'feature', aliases: ['GV'], kg_include: true, system: false }, '# Graph\n\nText.\n'],
    ['a single cluster string', { cluster: 'engineering' }, 'body'],
    ['YAML-looking strings', { title: 'yes', type: '123', aliases: ['null', 'a: b', '- x', '#hash', '---', '...'] }, 'body'],
    ['multi-line and Unicode values', { title: 'Über Café 日本語', note: 'line 1\n---\nline 3\n' }, 'body'],
    ['odd keys', { '---': 'dashes', '...': 'dots', 'key with spaces': 1 }, 'body'],
    ['nested extra values', { meta: { list: [1, 'two', { three: 3 }], flag: null } }, 'body'],
    ['empty lists', { tags: [], aliases: [] }, 'body'],
    ['an empty body', { title: 'A' }, ''],
    ['a body with leading blank lines', { title: 'A' }, '\n\n# Heading\n'],
    ['a CRLF body', { title: 'A' }, 'line 1\r\nline 2\r\n'],
    ['a body starting with a fence', { title: 'A' }, '---\nnot: yaml\n---\n'],
    ['a body starting with a BOM', { title: 'A' }, '\uFEFFtext'],
    ['empty frontmatter and a fence-like body', {}, '---\nnot: yaml\n---\n'],
    ['empty frontmatter and a body starting with a BOM', {}, '\uFEFFtext'],
    ['empty frontmatter and a plain body', {}, 'just text'],
  ];

  it.each(roundTrips)('round-trips %s', (_case, frontmatter, body) => {
    const parsed = parseFrontmatter(serializeFrontmatter(frontmatter, body));
    expect(parsed.frontmatter).toEqual(frontmatter);
    expect(parsed.body).toBe(body);
  });
});

describe('list helpers', () => {
  it('clustersOf returns the list form with the primary cluster first', () => {
    expect(clustersOf({ cluster: 'main' })).toEqual(['main']);
    expect(clustersOf({ cluster: ['main', 'other/sub'] })).toEqual(['main', 'other/sub']);
    expect(clustersOf({})).toEqual([]);
  });

  it('tagsOf and aliasesOf default to empty lists', () => {
    expect(tagsOf({ tags: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(tagsOf({})).toEqual([]);
    expect(aliasesOf({ aliases: ['x'] })).toEqual(['x']);
    expect(aliasesOf({})).toEqual([]);
  });

  it('returns copies that do not alias the frontmatter', () => {
    const frontmatter: PageFrontmatter = { tags: ['a'], cluster: ['c'] };
    tagsOf(frontmatter).push('b');
    clustersOf(frontmatter).push('d');
    expect(frontmatter).toEqual({ tags: ['a'], cluster: ['c'] });
  });
});

describe('frontmatterBeyondBounds', () => {
  it('passes ordinary frontmatter, pages without any, and a body that nests deeply', () => {
    expect(frontmatterBeyondBounds('---\ntitle: A\ntags: [a, [b, c]]\n---\nBody')).toBeNull();
    expect(frontmatterBeyondBounds('No frontmatter [[[[[[')).toBeNull();
    expect(frontmatterBeyondBounds(`---\ntitle: A\n---\n${'['.repeat(1000)}`)).toBeNull();
  });

  it('names the size of a block over the limit, and the limit', () => {
    const big = `---\nnotes: "${'x'.repeat(MAX_FRONTMATTER_CHARS)}"\n---\nBody`;
    expect(frontmatterBeyondBounds(big)).toBe("The frontmatter is 33 KB; a page's frontmatter may hold at most 32 KB. Move long values into the page body.");
    expect(frontmatterBeyondBounds(`---\nnotes: "${'x'.repeat(MAX_FRONTMATTER_CHARS - 20)}"\n---\n`)).toBeNull();
  });

  it('refuses flow collections nested deeper than 64 levels, counting closed ones out', () => {
    expect(frontmatterBeyondBounds(`---\nk: ${'['.repeat(64)}${']'.repeat(64)}\n---\n`)).toBeNull();
    expect(frontmatterBeyondBounds(`---\nk: ${'[{'.repeat(33)}\n---\n`)).toMatch(/deeper than 64 levels/);
    expect(frontmatterBeyondBounds(`---\n${'k: [[1], [2]]\n'.repeat(100)}---\n`)).toBeNull();
  });

  it('refuses block collections nested deeper than 64 levels (compact entries, indentation), which parse without a bracket', () => {
    expect(frontmatterBeyondBounds(`---\nx:\n  ${'- '.repeat(2000)}a\n---\n`)).toMatch(/deeper than 64 levels/);
    expect(frontmatterBeyondBounds(`---\nx:\n  ${'- '.repeat(900)}a\n---\n`)).toMatch(/deeper than 64 levels/);
    const indented = Array.from({ length: 100 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    expect(frontmatterBeyondBounds(`---\n${indented} v\n---\n`)).toMatch(/deeper than 64 levels/);
    // Ordinary lists and maps, and a nesting of 60 levels, pass.
    expect(frontmatterBeyondBounds('---\ntags:\n  - a\n  - b\nnested:\n  deeper:\n    - - x\n      - y\n---\n')).toBeNull();
    expect(frontmatterBeyondBounds(`---\nx:\n  ${'- '.repeat(60)}a\n---\n`)).toBeNull();
  });

  it('answers a nesting that still runs the parser out of stack with a reason a writer can read, not the stack overflow', () => {
    expect(() => parseFrontmatter(`---\nx:\n  ${'- '.repeat(3000)}a\n---\n`)).toThrow(/nest too deeply to be read|Invalid frontmatter/);
    expect(() => parseFrontmatter(`---\nx:\n  ${'- '.repeat(3000)}a\n---\n`)).not.toThrow(/call stack/);
  });
});
