// CPU cost of the pieces of one page view, without HTTP or a database: frontmatter parse, Markdown render +
// sanitise (what PageRenderService does on a cache miss), and the Handlebars page template.
// Usage (after npm run build): node bench/render-cost.mjs [corpus dir] [--app-root DIR]
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FOAM_DOCS } from './lib/corpus.mjs';

const { values, positionals } = parseArgs({ options: { 'app-root': { type: 'string' } }, allowPositionals: true });
const root = path.resolve(values['app-root'] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const corpus = positionals[0] ?? FOAM_DOCS;
const load = (rel) => import(pathToFileURL(path.join(root, 'dist', rel)).href);

const { parseFrontmatter } = await load('pages/markdown/frontmatter.js');
const { MarkdownRenderer } = await load('pages/markdown/markdown-renderer.js');

async function files(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

const sources = await Promise.all((await files(corpus)).map((f) => readFile(f, 'utf8')));
const renderer = new MarkdownRenderer();
const resolve = (link) => ({ slug: link.key, title: link.target });

function time(label, fn, rounds = 20) {
  for (let i = 0; i < 3; i++) for (const s of sources) fn(s); // warm-up (JIT)
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) for (const s of sources) fn(s);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / (rounds * sources.length);
  // CPU time as well: on a shared machine the wall clock also counts other processes' turns.
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / (rounds * sources.length);
  console.log(`${label.padEnd(44)} ${us.toFixed(0).padStart(6)} µs per page, ${cpuUs.toFixed(0).padStart(6)} µs CPU  (⇒ at most ${Math.floor(1e6 / cpuUs)} pages/s on one core)`);
  return us;
}

const bytes = sources.reduce((a, s) => a + s.length, 0) / sources.length;
console.log(`${sources.length} pages, ${bytes.toFixed(0)} characters on average, ${root}`);
time('parseFrontmatter', (s) => parseFrontmatter(s));
time('parseFrontmatter + MarkdownRenderer.render', (s) => renderer.render(parseFrontmatter(s).body, resolve));
