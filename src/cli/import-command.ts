import { CliError, KurateClient, ServerError } from './kurate-client.js';
import { readVaultBytes, readVaultFile, scanVault, type SkippedEntry, type VaultFile } from './vault-files.js';
import { pagesOfVault, type ImportPage, type VaultSource } from './vault-pages.js';

export type ImportStatus = 'created' | 'updated' | 'unchanged' | 'failed';

export interface ImportResult {
  path: string;
  slug: string;
  status: ImportStatus;
  error?: string;
}

export interface WikiSummary {
  pages: number;
  resolvedLinks: number;
  brokenLinks: number;
  wantedPages: number;
  orphans: number;
}

/** What happened to the vault's other files (attachments), uploaded before the pages that embed them. */
export interface AttachmentsImport {
  files: number;
  bytes: number;
  counts: Record<ImportStatus, number>;
  results: { path: string; status: ImportStatus; mediaType?: string; error?: string }[];
  elapsedMs: number;
  megabytesPerSecond: number;
}

export interface ImportReport {
  folder: string;
  /** Markdown files (pages). */
  files: number;
  counts: Record<ImportStatus, number>;
  results: ImportResult[];
  skipped: SkippedEntry[];
  elapsedMs: number;
  pagesPerSecond: number;
  attachments: AttachmentsImport;
  wiki: WikiSummary;
}

export interface ImportOptions {
  batchSize: number;
  /** Show a progress bar (on stderr). */
  progress: boolean;
}

const BATCHES_IN_FLIGHT = 4;
// Uploads in flight: each is one request; four keep the server busy without holding many files in memory.
const UPLOADS_IN_FLIGHT = 4;

/** The server's limit on one batch (`POST /api/import`). */
export const MAX_BATCH_SIZE = 200;
// Well under the server's default request limit (KURATE_MAX_BODY_BYTES, 2 MiB); a larger page travels alone.
const MAX_BATCH_BYTES = 1024 * 1024;

/** Reads a vault and sends it to the server in batches; returns what happened to every file. */
export async function importVault(client: KurateClient, folder: string, options: ImportOptions): Promise<ImportReport> {
  const scan = await scanVault(folder);
  // Files first: the pages that embed them then resolve their links as they are saved.
  const attachments = await importAttachments(client, scan.root, scan.attachments);
  const started = Date.now();
  const sources: VaultSource[] = [];
  for (const file of scan.files) sources.push({ relativePath: file.relativePath, source: await readVaultFile(scan.root, file) });
  const { pages, rejected } = pagesOfVault(sources);

  const results: ImportResult[] = rejected.map(({ path, reason }) => ({ path, slug: '', status: 'failed', error: reason }));
  // The progress bar's module is loaded only when a terminal shows it.
  const cliProgress = options.progress ? (await import('cli-progress')).default : null;
  const bar = cliProgress ? new cliProgress.SingleBar({ stream: process.stderr, format: 'Importing [{bar}] {value}/{total} pages | {eta_formatted} left', hideCursor: true }, cliProgress.Presets.shades_classic) : null;
  bar?.start(pages.length, 0);
  try {
    // Four batches in flight keep the server and its database busy (each page waits on ~10 round trips; measured:
    // 3 → 4 took 1,000 pages from ~195 to ~220 pages/s on 2 cores); the server serialises what must be.
    const batches = [...batchesOf(pages, options.batchSize)];
    const resultsByBatch: ImportResult[][] = [];
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const index = next++;
        resultsByBatch[index] = await sendBatch(client, batches[index]);
        bar?.increment(resultsByBatch[index].length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
    for (const batchResults of resultsByBatch) results.push(...batchResults);
  } finally {
    bar?.stop();
  }
  const elapsedMs = Date.now() - started;
  const wiki = await client.get<WikiSummary>('/api/reports/summary');
  return {
    folder,
    files: scan.files.length,
    counts: countByStatus(results),
    results: sortByPath(results),
    skipped: scan.skipped,
    elapsedMs,
    pagesPerSecond: Math.round((pages.length / Math.max(elapsedMs, 1)) * 1000),
    attachments,
    wiki,
  };
}

/**
 * Uploads every non-Markdown file at its path in the vault (`POST /api/attachments`, `onConflict=replace`): new ones
 * are created, changed ones replaced, identical ones left alone. A file the server refuses (too large, say) is
 * reported with its reason; the rest still arrive.
 */
async function importAttachments(client: KurateClient, root: string, files: VaultFile[]): Promise<AttachmentsImport> {
  const started = Date.now();
  const results: AttachmentsImport['results'] = new Array(files.length);
  let bytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      const file = files[index];
      try {
        const content = await readVaultBytes(root, file);
        bytes += content.length;
        const form = new FormData();
        form.append('path', file.relativePath);
        form.append('onConflict', 'replace');
        form.append('file', new Blob([new Uint8Array(content.buffer, content.byteOffset, content.byteLength)]), file.relativePath.slice(file.relativePath.lastIndexOf('/') + 1));
        const answer = await client.postForm<{ status: ImportStatus; mediaType: string }>('/api/attachments', form);
        results[index] = { path: file.relativePath, status: answer.status, mediaType: answer.mediaType };
      } catch (error) {
        if (!(error instanceof ServerError) || error.status >= 500 || error.status === 401 || error.status === 403) throw error;
        results[index] = { path: file.relativePath, status: 'failed', error: error.message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(UPLOADS_IN_FLIGHT, files.length) }, worker));
  const elapsedMs = Date.now() - started;
  return {
    files: files.length,
    bytes,
    counts: countByStatus(results as ImportResult[]),
    results,
    elapsedMs,
    megabytesPerSecond: Number((bytes / 1024 / 1024 / Math.max(elapsedMs / 1000, 0.001)).toPrecision(3)),
  };
}

export function formatImportReport(report: ImportReport): string {
  const { counts, wiki } = report;
  const lines = [
    `Imported ${report.files} files from ${report.folder} in ${(report.elapsedMs / 1000).toFixed(2)} s (${report.pagesPerSecond} pages/s).`,
    `  created   ${counts.created}`,
    `  updated   ${counts.updated}`,
    `  unchanged ${counts.unchanged}`,
    `  failed    ${counts.failed}`,
  ];
  const failed = report.results.filter((r) => r.status === 'failed');
  if (failed.length > 0) lines.push('Failed:', ...failed.map((r) => `  ${r.path}: ${r.error}`));
  const files = report.attachments;
  if (files.files > 0) {
    lines.push(
      `Uploaded ${files.files} other files (${(files.bytes / 1024 / 1024).toFixed(2)} MB in ${(files.elapsedMs / 1000).toFixed(2)} s, ${files.megabytesPerSecond} MB/s): ` +
        `${files.counts.created} created, ${files.counts.updated} updated, ${files.counts.unchanged} unchanged, ${files.counts.failed} failed.`,
    );
    const refused = files.results.filter((r) => r.status === 'failed');
    if (refused.length > 0) lines.push('Files not uploaded:', ...refused.map((r) => `  ${r.path}: ${r.error}`));
  }
  if (report.skipped.length > 0) lines.push(`Skipped ${report.skipped.length}:`, ...report.skipped.map((s) => `  ${s.relativePath}: ${s.reason}`));
  lines.push(
    `The wiki now has ${wiki.pages} pages; links: ${wiki.resolvedLinks} resolved, ${wiki.brokenLinks} broken ` +
      `(${wiki.wantedPages} wanted pages); ${wiki.orphans} orphans.`,
  );
  return lines.join('\n');
}

/** Batches bounded by count and by size, so that neither the server's batch limit nor its request limit is hit. */
function* batchesOf(pages: ImportPage[], batchSize: number): Generator<ImportPage[]> {
  let batch: ImportPage[] = [];
  let bytes = 0;
  for (const page of pages) {
    const size = Buffer.byteLength(page.body) + Buffer.byteLength(page.title) + Buffer.byteLength(page.path);
    if (batch.length > 0 && (batch.length >= batchSize || bytes + size > MAX_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(page);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Sends one batch. A batch the server refuses as a whole (one page too large or invalid) is halved until the
 * culprit travels alone, so that only that page fails, with the server's reason.
 */
async function sendBatch(client: KurateClient, batch: ImportPage[]): Promise<ImportResult[]> {
  try {
    const response = await client.post<{ results: ImportResult[] }>('/api/import', { pages: batch });
    return response.results;
  } catch (error) {
    const refused = error instanceof ServerError && (error.status === 400 || error.status === 413);
    if (!refused) throw error;
    if (batch.length === 1) return [{ path: batch[0].path, slug: '', status: 'failed', error: refusalReason(error) }];
    const half = Math.ceil(batch.length / 2);
    return [...(await sendBatch(client, batch.slice(0, half))), ...(await sendBatch(client, batch.slice(half)))];
  }
}

function refusalReason(error: ServerError): string {
  if (error.status === 413) return `${error.message} The server's limit is KURATE_MAX_BODY_BYTES.`;
  // Validation messages name the field by its place in the batch ("pages.0.body …"); alone in its batch, the page is obvious.
  return error.message.replace(/\bpages\.\d+\./g, '');
}

function countByStatus(results: ImportResult[]): Record<ImportStatus, number> {
  const counts: Record<ImportStatus, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const result of results) counts[result.status]++;
  return counts;
}

function sortByPath(results: ImportResult[]): ImportResult[] {
  return [...results].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function assertBatchSize(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_BATCH_SIZE) {
    throw new CliError(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}.`);
  }
  return value;
}
