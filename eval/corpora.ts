import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readVaultFile, scanVault } from '../src/cli/vault-files.js';
import { pagesOfVault, type ImportPage } from '../src/cli/vault-pages.js';
import { REPO_ROOT } from '../test/support/database.js';

export const QUERY_KINDS = ['paraphrase', 'keyword', 'linked', 'alias'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** A query with the slugs of the pages judged relevant to it (binary relevance). */
export interface JudgedQuery {
  id: string;
  kind: QueryKind;
  query: string;
  relevant: string[];
}

/** A documentation vault vendored under test/fixtures/ (with its licence) and its judged queries under eval/. */
export interface Corpus {
  name: string;
  /** The vault folder, imported as `kurate import` would. */
  root: string;
  queries: JudgedQuery[];
}

const corpus = (name: string, queryFile: string): Corpus => ({
  name,
  root: path.resolve(REPO_ROOT, 'test/fixtures', name),
  queries: JSON.parse(readFileSync(path.resolve(REPO_ROOT, 'eval', queryFile), 'utf8')).queries,
});

/** Every corpus the evaluation knows, by name; `KURATE_EVAL_CORPORA=foam-docs` runs a subset. */
export function corpora(): Corpus[] {
  const all = [corpus('foam-docs', 'foam-queries.json'), corpus('dendron-site', 'dendron-queries.json')];
  const wanted = process.env.KURATE_EVAL_CORPORA?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!wanted) return all;
  const unknown = wanted.filter((name) => !all.some((c) => c.name === name));
  if (unknown.length > 0) throw new Error(`KURATE_EVAL_CORPORA names unknown corpora: ${unknown.join(', ')} (known: ${all.map((c) => c.name).join(', ')})`);
  return all.filter((c) => wanted.includes(c.name));
}

/** The corpus's pages as `kurate import <folder>` sends them: clusters from folders, names made unique. */
export async function corpusPages(root: string): Promise<ImportPage[]> {
  const scan = await scanVault(root);
  const sources = await Promise.all(scan.files.map(async (file) => ({ relativePath: file.relativePath, source: await readVaultFile(root, file) })));
  const { pages, rejected } = pagesOfVault(sources);
  // A vendored corpus is chosen to import whole: a rejected file would silently shrink what the queries are judged on.
  if (rejected.length > 0) throw new Error(`The importer rejects files of ${root}: ${JSON.stringify(rejected)}`);
  return pages;
}
