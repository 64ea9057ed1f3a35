import { isMap, isScalar, LineCounter, parseDocument, stringify, type Document } from 'yaml';
import { unstorableText } from '../../common/storable-text.js';
import { isSafeSlug } from './slug.js';

export interface PageFrontmatter {
  title?: string;
  cluster?: string | string[];
  tags?: string[];
  type?: string;
  aliases?: string[];
  kg_include?: boolean;
  system?: boolean;
  [extra: string]: unknown;
}

export interface ParsedSource {
  frontmatter: PageFrontmatter;
  body: string;
  hasFrontmatter: boolean;
}

export class FrontmatterError extends Error {
  override readonly name = 'FrontmatterError';

  /** @param line 1-based line in the whole source, the opening `---` being line 1. */
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`Invalid frontmatter at line ${line}: ${reason}`);
  }
}

const BOM = '\uFEFF';
const OPENING_FENCE = /^---[ \t]*\r?\n/;
// Jekyll also closes the block with the YAML document-end marker `...`.
const CLOSING_FENCE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;
// YAML line n is source line n + 1, after the opening fence.
const OPENING_FENCE_LINE = 1;

type Fail = (reason: string) => never;
type Normaliser = (value: unknown, fail: Fail) => unknown;

const NORMALISERS: Record<string, Normaliser> = {
  title: asText,
  type: asText,
  tags: asTags,
  aliases: asStringList,
  cluster: asClusters,
  kg_include: asBoolean,
  system: asBoolean,
};

export function parseFrontmatter(source: string): ParsedSource {
  const split = splitFrontmatter(source);
  if (split.yaml === null) return { frontmatter: {}, body: split.body, hasFrontmatter: false };
  return { frontmatter: parseYaml(split.yaml), body: split.body, hasFrontmatter: true };
}

/**
 * The page's own first heading, when the page opens with one (after its frontmatter and blank lines): `# foam list`
 * gives `foam list`. Null otherwise. No YAML is parsed.
 */
export function leadingHeading(source: string): string | null {
  const { body } = splitFrontmatter(source);
  // The first line with text, read alone (a heading is short; a long first line is no heading worth a name).
  const first = body.search(/\S/);
  if (first < 0) return null;
  const start = body.lastIndexOf('\n', first) + 1;
  const end = body.indexOf('\n', first);
  const line = body.slice(start, end < 0 ? body.length : end).replace(/\r$/, '');
  if (line.length > MAX_HEADING_LINE) return null;
  const heading = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1].trim() ?? '';
  return heading === '' ? null : heading;
}

const MAX_HEADING_LINE = 300;

/** The YAML between the fences (null when there is no frontmatter block) and the body after them. */
function splitFrontmatter(source: string): { yaml: string | null; body: string } {
  const text = source.startsWith(BOM) ? source.slice(1) : source;
  const opening = OPENING_FENCE.exec(text);
  const closing = opening && CLOSING_FENCE.exec(text.slice(opening[0].length));
  // An unclosed `---` at the top is a Markdown thematic break, so the whole text is body rather than an error.
  if (!opening || !closing) return { yaml: null, body: text };
  const yamlStart = opening[0].length;
  return { yaml: text.slice(yamlStart, yamlStart + closing.index), body: text.slice(yamlStart + closing.index + closing[0].length) };
}

/**
 * The largest frontmatter block a page may have. Real vaults keep a few hundred bytes there; YAML parsing costs
 * about 2 ms per kilobyte on the main thread, so a 900 KB block held every request for seconds (issue 18 part 4).
 */
export const MAX_FRONTMATTER_CHARS = 32 * 1024;
/** The deepest nesting of `[` and `{` a frontmatter block may have (YAML's parser recurses per level). */
export const MAX_FRONTMATTER_NESTING = 64;
/** The longest indentation (with leading `- ` entries) of a frontmatter line: 64 levels of two characters each. */
const MAX_FRONTMATTER_INDENT = 2 * MAX_FRONTMATTER_NESTING;

/**
 * Why a page's frontmatter is beyond what Kurate parses (its size, or its nesting of flow collections), or null when
 * it is within bounds: checked in one linear pass before any YAML parsing. Brackets inside quoted strings count too,
 * which is only ever stricter.
 */
export function frontmatterBeyondBounds(source: string): string | null {
  const { yaml } = splitFrontmatter(source);
  if (yaml === null) return null;
  if (yaml.length > MAX_FRONTMATTER_CHARS) {
    return `The frontmatter is ${Math.ceil(yaml.length / 1024)} KB; a page's frontmatter may hold at most ${MAX_FRONTMATTER_CHARS / 1024} KB. Move long values into the page body.`;
  }
  const tooDeep = `The frontmatter nests lists or maps deeper than ${MAX_FRONTMATTER_NESTING} levels.`;
  let depth = 0;
  // Block collections nest by indentation and by compact entries (`- - - a`): a line's indentation plus its leading
  // dashes grow by at least one character per level, so a bound on them bounds the nesting YAML's parser and its
  // conversion recurse through (a list nested 2,000 levels this way ran them out of stack).
  let lineStart = true;
  let prefix = 0;
  for (let i = 0; i < yaml.length; i++) {
    const c = yaml.charCodeAt(i);
    if (c === 0x0a) {
      lineStart = true;
      prefix = 0;
      continue;
    }
    if (lineStart) {
      if (c === 0x20 || c === 0x09 || (c === 0x2d && (yaml.charCodeAt(i + 1) === 0x20 || yaml.charCodeAt(i + 1) === 0x09))) {
        if (++prefix > MAX_FRONTMATTER_INDENT) return tooDeep;
        continue;
      }
      lineStart = false;
    }
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_FRONTMATTER_NESTING) return tooDeep;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return null;
}

function parseYaml(yamlText: string): PageFrontmatter {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { prettyErrors: true, uniqueKeys: true, lineCounter, intAsBigInt: true });
  const sourceLine = (offset: number) => lineCounter.linePos(offset).line + OPENING_FENCE_LINE;

  const [error] = doc.errors;
  // The parser reports its own stack overflow as an error of the document: no reason a writer can use.
  if (error && /call stack/i.test(error.message)) throw new FrontmatterError(OPENING_FENCE_LINE + 1, 'the values nest too deeply to be read');
  if (error) {
    const position = error.linePos?.[0];
    if (!position) throw new FrontmatterError(OPENING_FENCE_LINE, error.message);
    // prettyErrors appends a YAML-relative position and a code excerpt; keep only the reason.
    const reason = error.message.split(` at line ${position.line}, column ${position.col}`)[0];
    throw new FrontmatterError(position.line + OPENING_FENCE_LINE, reason);
  }

  const contents = doc.contents;
  if (contents === null) return {};
  if (!isMap(contents)) {
    throw new FrontmatterError(sourceLine(contents.range?.[0] ?? 0), 'expected a mapping of keys to values');
  }

  const data = toPlainObject(doc, sourceLine(0));
  const keyLine = (key: string) => {
    const pair = contents.items.find((item) => isScalar(item.key) && item.key.value === key);
    return sourceLine(isScalar(pair?.key) ? (pair.key.range?.[0] ?? 0) : 0);
  };

  for (const [key, normalise] of Object.entries(NORMALISERS)) {
    if (!Object.hasOwn(data, key)) continue;
    // An empty value (`tags:`) is how templates leave a key unset.
    if (data[key] === null) {
      delete data[key];
      continue;
    }
    const fail: Fail = (reason) => {
      throw new FrontmatterError(keyLine(key), `"${key}" ${reason}`);
    };
    data[key] = normalise(data[key], fail);
  }
  return data;
}

function toPlainObject(doc: Document, firstLine: number): Record<string, unknown> {
  let data: Record<string, unknown>;
  try {
    data = doc.toJS() as Record<string, unknown>;
  } catch (error) {
    // yaml refuses alias bombs ("billion laughs") while converting. A stack overflow says nothing a writer can use.
    if (error instanceof RangeError) throw new FrontmatterError(firstLine, 'the values nest too deeply to be read');
    throw new FrontmatterError(firstLine, (error as Error).message);
  }
  try {
    data = jsonSafe(data, new Map()) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof RangeError) throw new FrontmatterError(firstLine, 'the values nest too deeply to be read');
    throw error;
  }
  const problem = unstorableValue(data);
  if (problem) throw new FrontmatterError(firstLine, problem);
  return data;
}

/**
 * The values as JSON holds them (the frontmatter is stored as JSON), without losing what YAML wrote: a set (`!!set`)
 * becomes the list of its members and an ordered map (`!!omap`) an object, where JSON would have written `{}`; binary
 * (`!!binary`) its base64 text, not `{"type":"Buffer",…}`; an integer beyond 2^53 its digits as text, not a rounded
 * float (`123456789012345678901234567890` stayed `1.2345678901234568e+29`). `seen` keeps shared values (YAML aliases)
 * shared, and a value that contains itself for unstorableValue to refuse.
 */
function jsonSafe(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === null || typeof value !== 'object') return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (value instanceof Uint8Array) {
    const text = Buffer.from(value).toString('base64');
    seen.set(value, text);
    return text;
  }
  if (Array.isArray(value) || value instanceof Set) {
    const list: unknown[] = [];
    seen.set(value, list);
    for (const item of value) list.push(jsonSafe(item, seen));
    return list;
  }
  const object: Record<string, unknown> = {};
  seen.set(value, object);
  const entries = value instanceof Map ? [...value.entries()].map(([k, v]) => [String(k), v] as const) : Object.entries(value);
  // defineProperty: a key named `__proto__` stays a key (an assignment would set the object's prototype).
  for (const [key, child] of entries) Object.defineProperty(object, key, { value: jsonSafe(child, seen), enumerable: true, writable: true, configurable: true });
  return object;
}

/**
 * What the frontmatter's values cannot be stored as (they are kept as JSON): a value that contains itself (`a: &a
 * {b: *a}`), or a text with NUL or a lone surrogate, which YAML's escapes (`"\0"`, `"\ud800"`) can write where the
 * page's source itself holds neither. Walked without recursion, each value once.
 */
function unstorableValue(root: unknown): string | null {
  const done = new Set<object>();
  const open = new Set<object>(); // the values on the path being walked
  const stack: { value: unknown; path: string; leave?: object }[] = [{ value: root, path: '' }];
  const at = (path: string, key: string) => (path ? `${path}.${key}` : key);
  while (stack.length > 0) {
    const { value, path, leave } = stack.pop()!;
    if (leave) {
      open.delete(leave);
      done.add(leave);
      continue;
    }
    if (typeof value === 'string') {
      const problem = unstorableText(value, path || 'the frontmatter');
      if (problem) return problem.replace('The field', 'The frontmatter value');
      continue;
    }
    if (value === null || typeof value !== 'object' || done.has(value)) continue;
    if (open.has(value)) return `The frontmatter value "${path}" contains itself (a YAML alias inside its own anchor).`;
    open.add(value);
    stack.push({ value: null, path, leave: value });
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = unstorableText(key, at(path, key));
      if (keyProblem) return keyProblem.replace('The field', 'The frontmatter key');
      stack.push({ value: child, path: at(path, key) });
    }
  }
  return null;
}

function asText(value: unknown, fail: Fail): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return fail('must be a string');
}

function asBoolean(value: unknown, fail: Fail): boolean {
  return typeof value === 'boolean' ? value : fail('must be true or false');
}

function asStringList(value: unknown, fail: Fail): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return fail('must be a string or a list of strings');
}

/**
 * Tags as inline `#tags` read: trimmed, without the `#` a writer may keep (`tags: ["#draft"]` is the tag `draft`),
 * blanks dropped (an empty tag would be listed with a link to the tag index itself), each once.
 */
function asTags(value: unknown, fail: Fail): string[] {
  const written = typeof value === 'string' ? value.split(',') : asStringList(value, fail);
  return [...new Set(written.map((tag) => tag.trim().replace(/^#+/, '').trim()).filter((tag) => tag !== ''))];
}

function asClusters(value: unknown, fail: Fail): string | string[] {
  const clusters = asStringList(value, fail);
  const invalid = clusters.find((cluster) => !isClusterPath(cluster));
  if (invalid !== undefined) fail(`value "${invalid}" must be a slug path like "parent" or "parent/child"`);
  return typeof value === 'string' ? value : clusters;
}

function isClusterPath(cluster: string): boolean {
  const segments = cluster.split('/');
  return segments.length <= 2 && segments.every(isSafeSlug);
}

export function serializeFrontmatter(frontmatter: PageFrontmatter, body: string): string {
  const defined = Object.fromEntries(Object.entries(frontmatter).filter(([, value]) => value !== undefined));
  const isEmpty = Object.keys(defined).length === 0;
  // A body that would itself read as frontmatter still gets an (empty) block, so the round trip holds.
  if (isEmpty && !OPENING_FENCE.test(body) && !body.startsWith(BOM)) return body;
  const yaml = isEmpty ? '' : stringify(defined, { lineWidth: 0 });
  return `---\n${yaml}---\n${body}`;
}

/** Clusters as a list; the first one is the page's primary cluster. */
export function clustersOf(frontmatter: PageFrontmatter): string[] {
  return toList(frontmatter.cluster);
}

export function tagsOf(frontmatter: PageFrontmatter): string[] {
  return toList(frontmatter.tags);
}

export function aliasesOf(frontmatter: PageFrontmatter): string[] {
  return toList(frontmatter.aliases);
}

function toList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : [...value];
}
