#!/usr/bin/env node
// The built-in extractor alone (no database, no job): chunks/s of `extract()` over the foam-docs pages, chunked as
// Kurate chunks them, for a few passes (the first one loads the tagger's model). Prints; writes nothing.
//
//   node bench/builtin-extractor.mjs [--passes 4] [--corpus DIR]      (after npm run build)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FOAM_DOCS } from './lib/corpus.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({
  options: {
    passes: { type: 'string', default: '4' },
    corpus: { type: 'string', default: process.env.KURATE_BENCH_CORPUS ?? FOAM_DOCS },
  },
});
const { runBuiltinExtraction } = await import(path.join(REPO, 'dist/extractors/builtin/builtin.extractor.js'));
const { chunkMarkdown } = await import(path.join(REPO, 'dist/kg/chunker.js'));
const { parseFrontmatter } = await import(path.join(REPO, 'dist/pages/markdown/frontmatter.js'));

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.md')) files.push(p);
  }
};
walk(opt.corpus);
const requests = files.flatMap((file) => {
  const { body } = parseFrontmatter(readFileSync(file, 'utf8'));
  const pageTitle = path.basename(file, '.md');
  return chunkMarkdown(body).map((c) => ({ pageTitle, headingPath: c.headingPath, chunkText: c.text, knownEntities: [], linkTargets: [] }));
});
const chars = requests.reduce((sum, r) => sum + r.chunkText.length, 0);
console.log(`${files.length} pages, ${requests.length} chunks, ${Math.round(chars / requests.length)} characters per chunk on average`);
for (let pass = 1; pass <= Number(opt.passes); pass++) {
  const started = performance.now();
  let entities = 0;
  for (const request of requests) entities += runBuiltinExtraction(request).entities.length;
  const ms = performance.now() - started;
  console.log(`pass ${pass}: ${Math.round((requests.length / ms) * 1000)} chunks/s, ${(chars / ms / 1000).toFixed(2)} MB/s of text, ${entities} entities`);
}
