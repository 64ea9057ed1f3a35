// @module-tag slow (runs bin/kurate processes over the whole Foam corpus): `npm run test:fast` leaves it out; docs/testing.md
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slugify } from '../../src/pages/markdown/slug.js';
import { closedPort, ensureCliBuilt, filesUnder, KURATE, kurate, type CliTarget } from '../support/cli.js';
import { FOAM_DOCS } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const CORPUS = FOAM_DOCS;
const CORPUS_FILES = 86;

/** A running server, and an author's API token (sent as KURATE_TOKEN) for the CLI to use against it. */
type Server = CliTarget;

/** The Markdown files under a folder, by their paths inside it (`/`-separated). */
function markdownFilesUnder(dir: string): string[] {
  return filesUnder(dir).filter((file) => /\.(?:md|markdown)$/i.test(file)).map((file) => path.relative(dir, file).split(path.sep).join('/'));
}

/** A wiki of its own for a test, and an author's token for the CLI to use against it. */
async function startServer(): Promise<{ app: TestApp; server: Server }> {
  const app = await startTestApp({ listen: true });
  return { app, server: { baseUrl: app.baseUrl!, token: (await app.user('author', { name: 'cli' })).token } };
}

interface ApiPage {
  slug: string;
  title: string;
  body: string;
  cluster: string | null;
}

async function allPages(t: TestApp): Promise<ApiPage[]> {
  const res = await t.http.get('/api/pages').query({ perPage: 500 }).expect(200);
  expect(res.body.total).toBe(res.body.items.length);
  return (res.body.items as ApiPage[]).map(({ slug, title, body, cluster }) => ({ slug, title, body, cluster })).sort((a, b) => a.slug.localeCompare(b.slug));
}

// ---------------------------------------------------------------------------------------------------------------
// An independent count of the corpus's page links, made from the files with regular expressions (not with the
// server's Markdown parser), to check what the import stored.
//
// What is counted, as page_links stores it: one link per (source page, target key), where the target key is the
// slug of the target's last path segment without `.md`/`.markdown` (so `[[Graph View]]`, `[[graph-view]]` and
// `[x](../features/graph-view.md#a)` are one target). Links are taken from the text after the frontmatter block:
//   - wikilinks `[[target]]`, `[[target|label]]`, `[[target#heading]]` and embeds `![[target]]`;
//   - inline Markdown links `[text](dest)` whose destination is relative (no scheme, not `/…`, not `#…`) and names
//     a Markdown file or has no extension at all (`[x](other-note)`); images `![alt](x.md)` are not links;
//   - reference links `[text][ref]` / `[ref]` through a `[ref]: dest` definition, with the same rule on dest;
//   - nothing inside fenced code blocks, inline code spans or HTML blocks.
// A link is resolved when its key is the slug of a file's name (matching case-insensitively, by slug); the corpus
// has no frontmatter `title:` or `aliases:`, which would add keys (asserted below).
// ---------------------------------------------------------------------------------------------------------------

const WIKILINK = /!?\[\[([^[\]\n]+)\]\]/g;
const INLINE_LINK = /(!?)\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]\n]+)\]:\s*(<[^>\n]*>|\S+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*$/gm;
const REFERENCE_LINK = /(!?)\[([^[\]\n]+)\](?:\[([^[\]\n]*)\])?(?![[(:])/g;

function stripFrontmatter(source: string): string {
  const match = /^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(source);
  return match ? source.slice(match[0].length) : source;
}

/** Blanks out fenced code blocks, HTML blocks and inline code spans (keeping line breaks). */
function withoutCode(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: { char: string; length: number } | null = null;
  let inHtmlBlock = false;
  const kept = lines.map((line) => {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
      return '';
    }
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = { char: open[1][0], length: open[1].length };
      return '';
    }
    // An HTML block (a line starting with a block-level tag) runs to the next blank line.
    if (inHtmlBlock || /^ {0,3}<\/?(?:div|details|summary|script|style|table|p|pre|section|iframe)\b/i.test(line)) {
      inHtmlBlock = line.trim() !== '';
      return '';
    }
    return line;
  });
  return kept.join('\n').replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

function keyOfWikilink(inner: string): string {
  const target = inner.split('|')[0].split('#')[0].trim();
  return keyOfTarget(target);
}

function keyOfTarget(target: string): string {
  return slugify(target.slice(target.lastIndexOf('/') + 1).replace(/\.(?:md|markdown)$/i, ''));
}

function keyOfDestination(raw: string): string {
  const destination = raw.startsWith('<') ? raw.slice(1, -1) : raw;
  if (/^[a-z][a-z\d+.-]*:/i.test(destination) || destination.startsWith('/') || destination.startsWith('#')) return '';
  let target = destination.split('#')[0].split('?')[0];
  try {
    target = decodeURIComponent(target);
  } catch {
    // kept as written
  }
  const name = target.slice(target.lastIndexOf('/') + 1);
  const extension = /\.([a-z\d]+)$/i.exec(name)?.[1];
  if (extension !== undefined && !/^(?:md|markdown)$/i.test(extension)) return '';
  return keyOfTarget(target.trim());
}

function linkKeysOf(source: string): Set<string> {
  const text = withoutCode(stripFrontmatter(source));
  const keys = new Set<string>();
  const add = (key: string) => key && keys.add(key);
  // Wikilinks first, then blanked, so that `[[x]]` is not read again as a reference link `[x]`.
  let rest = text.replace(WIKILINK, (whole, inner: string) => {
    add(keyOfWikilink(inner));
    return ' '.repeat(whole.length);
  });
  const definitions = new Map<string, string>();
  rest = rest.replace(REFERENCE_DEFINITION, (_whole, label: string, dest: string) => {
    definitions.set(label.trim().toLowerCase(), dest);
    return '';
  });
  rest = rest.replace(INLINE_LINK, (whole, bang: string, _text: string, dest: string) => {
    if (!bang) add(keyOfDestination(dest));
    return ' '.repeat(whole.length);
  });
  for (const match of rest.matchAll(REFERENCE_LINK)) {
    const [, bang, text, ref] = match;
    const dest = definitions.get((ref || text).trim().toLowerCase());
    if (!bang && dest !== undefined) add(keyOfDestination(dest));
  }
  return keys;
}

function countCorpusLinks(root: string): { resolved: number; broken: number } {
  const files = markdownFilesUnder(root);
  const pageKeys = new Set(files.map((file) => keyOfTarget(path.basename(file))));
  let resolved = 0;
  let broken = 0;
  for (const file of files) {
    for (const key of linkKeysOf(readFileSync(path.join(root, file), 'utf8'))) {
      if (pageKeys.has(key)) resolved++;
      else broken++;
    }
  }
  return { resolved, broken };
}

describe('bin/kurate against a running server', () => {
  let first: TestApp;
  let firstServer: Server;
  let second: TestApp | undefined;
  let third: TestApp | undefined;
  let thirdServer: Server;
  const scratch = mkdtempSync(path.join(tmpdir(), 'kurate-cli-'));

  beforeAll(async () => {
    await ensureCliBuilt();
    ({ app: first, server: firstServer } = await startServer());
  }, 120_000);

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close(), third?.close()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('imports the Foam docs: every file becomes a page and the link counts match an independent count', async () => {
    expect(markdownFilesUnder(CORPUS)).toHaveLength(CORPUS_FILES);
    for (const file of markdownFilesUnder(CORPUS)) {
      const frontmatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(path.join(CORPUS, file), 'utf8'))?.[1] ?? '';
      expect(frontmatter, file).not.toMatch(/^(?:title|aliases):/m);
    }

    const started = Date.now();
    const result = await kurate(firstServer, 'import', CORPUS, '--json');
    const seconds = (Date.now() - started) / 1000;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.counts).toEqual({ created: CORPUS_FILES, updated: 0, unchanged: 0, failed: 0 });
    console.log(`kurate import foam-docs: ${CORPUS_FILES} pages in ${seconds.toFixed(2)} s including process start ` +
      `(${Math.round(CORPUS_FILES / seconds)} pages/s); the CLI's own measure: ${report.pagesPerSecond} pages/s`);

    const pages = await allPages(first);
    expect(pages).toHaveLength(CORPUS_FILES);
    // The folders give clusters: two levels at most, a file at the root has none.
    expect(pages.find((p) => p.slug === 'wikilinks')?.cluster).toBe('user/features');
    expect(pages.find((p) => p.slug === 'principles')?.cluster).toBeNull();
    // index.md and user/index.md are both kept: the deeper one is titled by its folder.
    expect(pages.filter((p) => p.title === 'index' || p.title === 'user/index').map((p) => [p.title, p.cluster])).toEqual([
      ['index', null],
      ['user/index', 'user'],
    ]);
    // Cluster injection leaves the author's text intact after the inserted line.
    const original = readFileSync(path.join(CORPUS, 'user/features/note-properties.md'), 'utf8');
    expect(pages.find((p) => p.slug === 'note-properties')?.body).toBe(original.replace(/^---\n/, '---\ncluster: user/features\n'));

    const expected = countCorpusLinks(CORPUS);
    expect(expected.resolved).toBeGreaterThan(50);
    const summary = (await first.http.get('/api/reports/summary').expect(200)).body;
    console.log(`foam-docs links: ${expected.resolved} resolved, ${expected.broken} broken (counted from the files)`);
    expect({ resolved: summary.resolvedLinks, broken: summary.brokenLinks }).toEqual(expected);
    expect(report.wiki).toEqual(summary);
    expect(summary.wantedPages).toBe((await first.http.get('/api/reports/wanted').expect(200)).body.total);
    // The slow tag's 120 s: a process importing 86 pages and their files waits for a core on a busy machine.
  }, 120_000);

  it('re-importing the same folder changes nothing and writes no revision', async () => {
    const revisionsBefore = await first.dataSource.query('SELECT count(*)::int AS n FROM page_revisions');
    const result = await kurate(firstServer, 'import', CORPUS);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/created\s+0\n\s+updated\s+0\n\s+unchanged\s+86\n\s+failed\s+0/);
    expect(result.stdout).toMatch(/links: \d+ resolved, \d+ broken \(\d+ wanted pages\)/);
    expect(await first.dataSource.query('SELECT count(*)::int AS n FROM page_revisions')).toEqual(revisionsBefore);
  }, 60_000);

  it('exports every page and an import of the export into a fresh wiki gives the same pages', async () => {
    const exportDir = path.join(scratch, 'export');
    const result = await kurate(firstServer, 'export', exportDir);
    expect(result.code).toBe(0);
    // The corpus's LICENSE is a file of the vault like any other: it comes back too.
    expect(result.stdout.trim()).toBe(`Exported ${CORPUS_FILES} pages and 1 file to ${exportDir}.`);
    expect(readFileSync(path.join(exportDir, 'LICENSE'))).toEqual(readFileSync(path.join(CORPUS, 'LICENSE')));
    // Every note goes back to its path in the vault, as it was written: without the `cluster:` line import added
    // for its folder (the stored page has it), and `user/index.md` under its own name (the wiki titles it
    // `user/index`, as `index.md` at the root has the name).
    expect(markdownFilesUnder(exportDir).sort()).toEqual(markdownFilesUnder(CORPUS).sort());
    for (const file of markdownFilesUnder(CORPUS)) {
      expect(readFileSync(path.join(exportDir, file), 'utf8'), file).toBe(readFileSync(path.join(CORPUS, file), 'utf8'));
    }
    expect((await first.http.get('/api/pages/wikilinks').expect(200)).body.body).toMatch(/^---\ncluster: user\/features\n/);
    expect(existsSync(path.join(exportDir, 'user/index.md'))).toBe(true);

    // Exporting again would overwrite: refused, unless asked for.
    const again = await kurate(firstServer, 'export', exportDir);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^kurate: 87 of the files already exist in .*--force.*Nothing was written\.\n$/);
    expect((await kurate(firstServer, 'export', exportDir, '--force')).code).toBe(0);

    let secondServer: Server;
    ({ app: second, server: secondServer } = await startServer());
    const reimport = await kurate(secondServer, 'import', exportDir, '--json');
    expect(reimport.code).toBe(0);
    // This server process is warm (the first import paid for JIT compilation), as a long-running server is.
    console.log(`kurate import of the export into a second wiki: ${JSON.parse(reimport.stdout).pagesPerSecond} pages/s`);
    expect(JSON.parse(reimport.stdout).counts).toEqual({ created: CORPUS_FILES, updated: 0, unchanged: 0, failed: 0 });
    expect(await allPages(second)).toEqual(await allPages(first));
    expect((await second.http.get('/api/reports/summary').expect(200)).body).toEqual((await first.http.get('/api/reports/summary').expect(200)).body);
  }, 90_000);

  it('never reads outside the folder: symlinks (to files, folders, or up the tree) are skipped', async () => {
    const outside = path.join(scratch, 'outside');
    const vault = path.join(scratch, 'vault');
    mkdirSync(outside, { recursive: true });
    mkdirSync(path.join(vault, '.obsidian'), { recursive: true });
    mkdirSync(path.join(vault, 'notes'), { recursive: true });
    writeFileSync(path.join(outside, 'secret.md'), 'TOP SECRET');
    writeFileSync(path.join(vault, 'notes', 'Note.md'), 'See [[secret]].');
    writeFileSync(path.join(vault, '.obsidian', 'workspace.md'), 'tool state');
    // A file name that decodes to a path-like title is just a title: its own text is read, nothing else.
    writeFileSync(path.join(vault, '%2E%2E%2Foutside%2Fsecret.md'), 'harmless');
    symlinkSync(path.join(outside, 'secret.md'), path.join(vault, 'secret.md'));
    symlinkSync(outside, path.join(vault, 'linked-folder'));
    symlinkSync('..', path.join(vault, 'notes', 'up'));

    ({ app: third, server: thirdServer } = await startServer());
    const result = await kurate(thirdServer, 'import', vault, '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.skipped.map((s: { relativePath: string }) => s.relativePath).sort()).toEqual(['linked-folder', 'notes/up', 'secret.md']);
    expect(report.counts.created).toBe(2);
    const pages = await allPages(third);
    expect(pages.map((p) => p.title).sort()).toEqual(['../outside/secret', 'Note']);
    expect(pages.some((p) => p.body.includes('TOP SECRET'))).toBe(false);

    // And its export stays inside the export folder, whatever the title says.
    const exportDir = path.join(scratch, 'safe-export');
    expect((await kurate(thirdServer, 'export', exportDir)).code).toBe(0);
    // (The file goes back under the name it had in the vault.)
    expect(readdirSync(exportDir).sort()).toEqual(['%2E%2E%2Foutside%2Fsecret.md', 'notes']);
    expect(readFileSync(path.join(outside, 'secret.md'), 'utf8')).toBe('TOP SECRET');
    // Round trip of that title too.
    const reimport = await kurate(thirdServer, 'import', exportDir, '--json');
    expect(JSON.parse(reimport.stdout).counts).toMatchObject({ unchanged: 2, created: 0 });
  }, 60_000);

  it('adds the folder cluster to the frontmatter without touching the rest of the text', async () => {
    const vault = path.join(scratch, 'clusters');
    const write = (relative: string, text: string) => {
      mkdirSync(path.dirname(path.join(vault, relative)), { recursive: true });
      writeFileSync(path.join(vault, relative), text);
    };
    write('Projects/Deep/Deeper/Windows.md', '---\r\n# why: a comment the author keeps\r\ntags: [a,  b]\r\n---\r\nBody\r\n');
    write('2024/Year%3A One.md', 'No frontmatter, and a folder that reads as a number.\n');
    write('misc/Flow.md', '---\n{type: note}\n---\nflow-style YAML cannot take a line\n');
    write('misc/Own Cluster.md', '---\ncluster: elsewhere\n---\nkept\n');
    write('Broken.markdown', '---\ntags: [a\nmore: x\n---\nnot closed\n');
    if (!third) ({ app: third, server: thirdServer } = await startServer());
    const app = third;

    const result = await kurate(thirdServer, 'import', vault, '--json');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('kurate: 1 of 5 files were not imported (reasons above).\n');
    const report = JSON.parse(result.stdout);
    const broken = report.results.find((r: { path: string }) => r.path === 'Broken.markdown');
    expect(broken.status).toBe('failed');
    expect(broken.error).toMatch(/^Invalid frontmatter at line \d+/);

    const page = async (slug: string) => (await app.http.get(`/api/pages/${slug}`).expect(200)).body as ApiPage;
    expect(await page('windows')).toMatchObject({
      cluster: 'projects/deep',
      body: '---\r\ncluster: projects/deep\r\n# why: a comment the author keeps\r\ntags: [a,  b]\r\n---\r\nBody\r\n',
    });
    expect(await page('year-one')).toMatchObject({
      title: 'Year: One',
      cluster: '2024',
      body: '---\ncluster: "2024"\n---\nNo frontmatter, and a folder that reads as a number.\n',
    });
    expect(await page('flow')).toMatchObject({ cluster: 'misc', body: '---\ntype: note\ncluster: misc\n---\nflow-style YAML cannot take a line\n' });
    expect(await page('own-cluster')).toMatchObject({ cluster: 'elsewhere', body: '---\ncluster: elsewhere\n---\nkept\n' });

    // The export gives each note back at its path and byte for byte: folders named as in the vault (not as their
    // cluster), deeper than the cluster's two levels, CRLF and comments kept, an author's own `cluster:` line kept.
    // The flow-style block had to be re-serialised to take its line, so that note comes back as stored.
    const exportDir = path.join(scratch, 'clusters-export');
    expect((await kurate(thirdServer, 'export', exportDir)).code).toBe(0);
    const vaultNotes = markdownFilesUnder(vault).filter((file) => file !== 'Broken.markdown' && !file.startsWith('notes/'));
    const exportedNotes = markdownFilesUnder(exportDir).filter((file) => !file.startsWith('notes/') && !file.includes('secret'));
    expect(exportedNotes.sort()).toEqual(vaultNotes.sort());
    for (const file of vaultNotes.filter((name) => name !== 'misc/Flow.md')) {
      expect(readFileSync(path.join(exportDir, file), 'utf8'), file).toBe(readFileSync(path.join(vault, file), 'utf8'));
    }
    expect(readFileSync(path.join(exportDir, 'misc/Flow.md'), 'utf8')).toBe((await page('flow')).body);

    // A note renamed in the wiki (or moved to another cluster) no longer lives at its vault path: it exports to
    // <cluster>/<title>.md with its stored text, and importing that export gives the same page again.
    await app.http.post('/api/pages/windows/rename').set('Authorization', `Bearer ${thirdServer.token}`).send({ title: 'Windows Notes' }).expect(201);
    const moved = await page('windows-notes');
    expect(moved).toMatchObject({ vaultPath: null, vaultCluster: null });
    const afterRename = path.join(scratch, 'clusters-export-renamed');
    expect((await kurate(thirdServer, 'export', afterRename)).code).toBe(0);
    expect(existsSync(path.join(afterRename, 'Projects/Deep/Deeper/Windows.md'))).toBe(false);
    expect(readFileSync(path.join(afterRename, 'projects/deep/Windows Notes.md'), 'utf8')).toBe(moved.body);
  }, 60_000);

  it('reports problems in one line with a non-zero exit code', async () => {
    const port = await closedPort();
    const down = await kurate({ baseUrl: `http://127.0.0.1:${port}` }, 'pages', 'list');
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`kurate: Cannot reach Kurate at http://127.0.0.1:${port}: is it running?\n`);

    const missing = await kurate(firstServer, 'page', 'get', 'no-such-page');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('kurate: There is no page "no-such-page".\n');

    // Without a token, the server's refusal comes with what to do about it.
    const anonymous = await kurate({ baseUrl: firstServer.baseUrl }, 'import', CORPUS);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toBe('kurate: Log in to continue. Run kurate login, or set KURATE_TOKEN to an API token.\n');

    const noFolder = await kurate(firstServer, 'import', path.join(scratch, 'nope'));
    expect(noFolder.code).toBe(1);
    expect(noFolder.stderr).toBe(`kurate: No such folder: ${path.join(scratch, 'nope')}\n`);

    const badUrl = await kurate({ baseUrl: 'not a url' }, 'summary');
    expect(badUrl.stderr).toMatch(/^kurate: KURATE_URL is not a URL/);

    // A shim without a build next to it says what to do.
    const bare = path.join(scratch, 'bare');
    mkdirSync(path.join(bare, 'bin'), { recursive: true });
    cpSync(KURATE, path.join(bare, 'bin/kurate'));
    const unbuilt = await run(path.join(bare, 'bin/kurate'), ['--help']).catch((e: { code: number; stderr: string }) => e);
    expect(unbuilt.stderr).toMatch(/run npm run build first/);
  });

  it('lists pages and prints one page', async () => {
    const list = await kurate(firstServer, 'pages', 'list', '--cluster', 'user/features', '--json');
    expect(list.code).toBe(0);
    const { items } = JSON.parse(list.stdout);
    expect(items.length).toBe(19);
    expect(items.every((p: { cluster: string }) => p.cluster === 'user/features')).toBe(true);

    const table = await kurate(firstServer, 'pages', 'list');
    expect(table.stdout.trim().split('\n')).toHaveLength(CORPUS_FILES);
    expect(table.stdout).toMatch(/^wikilinks +wikilinks {2}\[user\/features\]$/m);

    const page = await kurate(firstServer, 'page', 'get', 'wikilinks');
    expect(page.stdout).toBe((await first.http.get('/api/pages/wikilinks').expect(200)).body.body);
    const json = JSON.parse((await kurate(firstServer, 'page', 'get', 'wikilinks', '--json')).stdout);
    expect(json).toMatchObject({ slug: 'wikilinks', cluster: 'user/features' });
  });
});
