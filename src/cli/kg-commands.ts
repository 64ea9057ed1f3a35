import { createInterface } from 'node:readline/promises';
import cliProgress from 'cli-progress';
import { InvalidArgumentError, type Command } from 'commander';
import { withExamples } from './help.js';
import { CliError, KurateClient } from './kurate-client.js';
import { formatColumns, shortTime } from './table.js';

/** What `POST /api/admin/kg/extract` answers (src/kg/dto/kg-admin.dto.ts). */
export interface ApiExtractAnswer {
  scope: 'all' | 'cluster' | 'page';
  target: string | null;
  dryRun: boolean;
  backend: string;
  model: string;
  pages: number;
  includedPages: number;
  excludedPages: number;
  pagesToExtract: number;
  upToDatePages: number;
  chunks: number;
  estimatedCalls: number;
  requestId: string | null;
  enqueued: number;
  alreadyQueued: number;
  summary: string;
}

interface ApiProgress {
  requestId: string;
  total: number;
  queued: number;
  retrying: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  done: boolean;
}

interface JobCounts {
  queued: number;
  retrying: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
}

interface ApiFailure {
  id: string;
  slug: string;
  title: string;
  backend: string;
  model: string | null;
  reason: string;
  attempts: number;
  failedAt: string;
}

/** What `GET /api/admin/kg/status` answers. */
export interface ApiKgStatus {
  backend: { extractor: string; model: string; embedder: string; embeddingModel: string; concurrency: number; ratePerMinute: number; confidenceThreshold: number };
  role: string;
  runningHere: number;
  queues: (JobCounts & { queue: string })[];
  backends: (JobCounts & { backend: string; pagesExtracted: number; calls: number })[];
  pages: { included: number; extracted: number; changedSinceExtraction: number; neverExtracted: number };
  proposals: { pending: number; approved: number; rejected: number; retired: number };
  openFailures: number;
  failures: ApiFailure[];
}

export interface ExtractOptions {
  all?: boolean;
  cluster?: string;
  page?: string;
  dryRun?: boolean;
  yes?: boolean;
  wait: boolean;
  json?: boolean;
  pollMs: number;
}

/** No job of the request started for this long: say that a worker may be missing (and keep waiting). */
const STALL_HINT_MS = 60_000;

/** Where `kurate kg extract` reads and writes: the process's own terminal, or a test's stand-in for it. */
export interface ExtractTerminal {
  stdout: NodeJS.WritableStream;
  /** The estimate, the progress bar (drawn only when this is a terminal) and hints. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Asks a yes/no question; null when there is no one to ask (stdin is not a terminal). */
  confirm: ((question: string) => Promise<boolean>) | null;
  stallHintMs: number;
}

function processTerminal(): ExtractTerminal {
  return { stdout: process.stdout, stderr: process.stderr, confirm: process.stdin.isTTY === true ? confirm : null, stallHintMs: STALL_HINT_MS };
}

/** `kurate kg …`: knowledge-graph extraction, through `/api/admin/kg/*` with an admin's token. */
export function registerKgCommands(program: Command): void {
  const client = () => KurateClient.fromEnvironment(process.env, { needsAdmin: true });
  const kg = withExamples(
    program.command('kg').description("Knowledge-graph extraction: estimate and start it, and see how it goes (needs an admin's API token in KURATE_TOKEN)."),
    'kurate kg extract --cluster docs',
    'kurate kg status',
    'kurate kg check',
  );

  withExamples(
    kg
      .command('extract')
      .summary('extract the included pages of a scope (new and changed ones only)')
      .description(
        'Estimate, then enqueue, the extraction of every included page (--all), of a cluster and its sub-clusters (--cluster), or of one page (--page). ' +
          'Only pages new or changed since their last extraction are enqueued, and only their new chunks cost a call. ' +
          'The estimate is printed first; at a terminal you are asked to confirm (--yes skips that). Then a progress bar follows the jobs until they are done.',
      )
      .option('--all', 'every included page')
      .option('--cluster <cluster>', 'the included pages of a cluster (with its sub-clusters), e.g. docs or work/notes')
      .option('--page <slug>', 'one page, by slug')
      .option('--dry-run', 'print the estimate only; enqueue nothing')
      .option('-y, --yes', 'do not ask for confirmation')
      .option('--no-wait', 'return once the jobs are enqueued')
      .option('--json', 'print the estimate (and the final progress) as JSON')
      .option('--poll-ms <ms>', 'how often to check progress', parsePositive, 1000),
    'kurate kg extract --cluster docs --dry-run',
    'kurate kg extract --all --yes',
    'kurate kg extract --page getting-started --no-wait',
  ).action((options: ExtractOptions) => runExtract(client(), options));

  withExamples(
    kg
      .command('status')
      .summary('extraction jobs: queued, running, failed, per backend')
      .description('Show the extraction backend, the pages extracted and waiting, the jobs per queue and per backend (queued, retrying, running, failed, done), proposals, and the latest permanent failures with their reason.')
      .option('--json', 'print the status as JSON'),
    'kurate kg status',
    'kurate kg status --json',
  ).action(async (options: { json?: boolean }) => {
    const status = await client().get<ApiKgStatus>('/api/admin/kg/status');
    console.log(options.json ? JSON.stringify(status, null, 2) : formatStatus(status));
  });

  withExamples(
    kg
      .command('check')
      .summary('check every invariant of the knowledge graph; --repair mends the safe ones')
      .description(
        'Check every invariant the knowledge graph relies on (read-only): per invariant, how many rows break it and a few examples. ' +
          '--repair mends those that can be mended safely (counts, unsupported pending proposals, mentions named by a variant, co-mentions; re-extraction and re-embedding enqueued), ' +
          `in one transaction written to the audit log; it never deletes approved knowledge. Exits with ${CHECK_FINDINGS_EXIT} when findings remain, 0 when every invariant holds.`,
      )
      .option('--repair', 'repair what can be repaired safely, then check again')
      .option('--json', 'print the report as JSON'),
    'kurate kg check',
    'kurate kg check --repair',
    'kurate kg check --json || alert "the knowledge graph has findings"',
  ).action(async (options: CheckOptions) => {
    process.exitCode = await runCheck(client(), options, (text) => process.stdout.write(`${text}\n`));
  });
}

/** The exit code of `kurate kg check` when findings remain (1 is any error). */
export const CHECK_FINDINGS_EXIT = 2;

export interface CheckOptions {
  repair?: boolean;
  json?: boolean;
}

/** What `GET /admin/kg-policy/health` answers (src/consistency/dto/kg-check.dto.ts). */
export interface ApiCheckReport {
  ok: boolean;
  findings: number;
  repairable: number;
  unrepairable: number;
  embeddingModel: string;
  durationMs: number;
  summary: string;
  invariants: { name: string; explanation: string; count: number; examples: string[]; repairable: boolean; repair: string | null; ok: boolean }[];
}

interface ApiRepairReport {
  before: ApiCheckReport;
  repair: { actions: string[]; pagesEnqueued: number; reembedEnqueued: boolean; repaired: Record<string, number> };
  after: ApiCheckReport;
}

/** `kurate kg check [--repair]`: prints the report; returns the exit code (0: every invariant holds). */
export async function runCheck(api: KurateClient, options: CheckOptions, out: (text: string) => void): Promise<number> {
  if (options.repair) {
    const result = await api.post<ApiRepairReport>('/admin/kg-policy/health/repair', {});
    out(options.json ? JSON.stringify(result, null, 2) : [...result.repair.actions.map((a) => `Repaired: ${a}`), '', formatCheck(result.after)].join('\n'));
    return result.after.ok ? 0 : CHECK_FINDINGS_EXIT;
  }
  const report = await api.get<ApiCheckReport>('/admin/kg-policy/health');
  out(options.json ? JSON.stringify(report, null, 2) : formatCheck(report));
  return report.ok ? 0 : CHECK_FINDINGS_EXIT;
}

export function formatCheck(report: ApiCheckReport): string {
  const lines = [
    formatColumns(
      ['INVARIANT', 'FINDINGS', 'REPAIR'],
      report.invariants.map((i) => [i.name, String(i.count), i.count === 0 ? '' : i.repairable ? '--repair' : 'needs an admin']),
    ),
  ];
  for (const i of report.invariants.filter((x) => x.count > 0)) {
    lines.push('', `${i.name}: ${i.explanation}`, ...i.examples.map((e) => `  ${e}`));
    if (i.count > i.examples.length) lines.push(`  … and ${i.count - i.examples.length} more`);
  }
  lines.push('', report.summary);
  return lines.join('\n');
}

/** `kurate kg extract`: the estimate, a confirmation at a terminal, then the jobs enqueued and followed to their end. */
export async function runExtract(api: KurateClient, options: ExtractOptions, terminal: ExtractTerminal = processTerminal()): Promise<void> {
  const out = (line: string) => terminal.stdout.write(`${line}\n`);
  const err = (line: string) => terminal.stderr.write(`${line}\n`);
  const chosen = [options.all === true, options.cluster !== undefined, options.page !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new CliError('Say what to extract with exactly one of --all, --cluster <cluster> or --page <slug>.');
  const scope = options.all ? { all: true } : options.cluster !== undefined ? { cluster: options.cluster } : { page: options.page };
  const estimate = await api.post<ApiExtractAnswer>('/api/admin/kg/extract', { ...scope, dryRun: true });
  if (options.dryRun || estimate.pagesToExtract === 0) {
    out(options.json ? JSON.stringify(estimate, null, 2) : formatEstimate(estimate, options.dryRun === true));
    return;
  }
  if (!options.json) err(formatEstimate(estimate, false));
  if (!options.yes && terminal.confirm && !(await terminal.confirm('Start the extraction? [y/N] '))) {
    err('Nothing was enqueued.');
    return;
  }
  const started = await api.post<ApiExtractAnswer>('/api/admin/kg/extract', scope);
  const queued = `Enqueued ${plural(started.enqueued, 'page')}${started.alreadyQueued > 0 ? ` (${started.alreadyQueued} already had a job waiting)` : ''}`;
  if (!options.wait || started.requestId === null || started.enqueued === 0) {
    out(options.json ? JSON.stringify(started, null, 2) : `${queued}. Follow it with: kurate kg status`);
    return;
  }
  if (!options.json) err(`${queued}; request ${started.requestId}.`);
  const progress = await follow(api, started.requestId, {
    stream: terminal.stderr,
    bar: !options.json && terminal.stderr.isTTY === true,
    pollMs: options.pollMs,
    stallHintMs: terminal.stallHintMs,
  });
  out(options.json ? JSON.stringify({ ...started, progress }, null, 2) : formatDone(progress));
  if (progress.failed > 0) throw new CliError(`${plural(progress.failed, 'page')} failed to extract; kurate kg status shows why.`);
}

async function follow(
  api: KurateClient,
  requestId: string,
  options: { stream: NodeJS.WritableStream; bar: boolean; pollMs: number; stallHintMs: number },
): Promise<ApiProgress> {
  const bar = options.bar
    ? new cliProgress.SingleBar(
        {
          stream: options.stream,
          format: 'Extracting [{bar}] {value}/{total} pages | {running} running, {failed} failed | {eta_formatted} left',
          // Before the first page is done the rate is unknown: cli-progress would print its 'NULL'/'INF' markers, cut to "LLs"/"NFs".
          formatTime: (seconds, format, roundTo) => (typeof seconds === 'number' && Number.isFinite(seconds) ? cliProgress.Format.TimeFormat(seconds, format, roundTo) : '?'),
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let progress = await api.get<ApiProgress>(`/api/admin/kg/extract/${requestId}`);
  bar?.start(progress.total, 0, { running: 0, failed: 0 });
  let lastChange = Date.now();
  let seen = -1;
  let hinted = false;
  try {
    while (!progress.done) {
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
      progress = await api.get<ApiProgress>(`/api/admin/kg/extract/${requestId}`);
      const finished = progress.completed + progress.failed + progress.cancelled;
      bar?.update(finished, { running: progress.running, failed: progress.failed });
      if (finished + progress.running !== seen) {
        seen = finished + progress.running;
        lastChange = Date.now();
      } else if (!hinted && progress.running === 0 && Date.now() - lastChange > options.stallHintMs) {
        hinted = true;
        bar?.stop();
        options.stream.write(`No job has started for ${duration(options.stallHintMs)}: is a worker running (KURATE_ROLE=worker or all)? Still waiting; Ctrl-C stops waiting, not the jobs.\n`);
        // Drawn again below the hint, so that a worker starting later is still seen at work.
        bar?.start(progress.total, finished, { running: progress.running, failed: progress.failed });
      }
    }
  } finally {
    bar?.stop();
  }
  return progress;
}

export function formatEstimate(estimate: ApiExtractAnswer, dryRun: boolean): string {
  const lines = [estimate.summary];
  if (estimate.excludedPages > 0) lines.push(`${plural(estimate.excludedPages, 'page')} in scope ${estimate.excludedPages === 1 ? 'is' : 'are'} excluded by the inclusion policy and will not be read.`);
  if (dryRun && estimate.pagesToExtract > 0) lines.push('Nothing was enqueued (dry run).');
  return lines.join('\n');
}

function formatDone(progress: ApiProgress): string {
  const parts = [`${plural(progress.completed, 'page')} extracted`];
  if (progress.failed > 0) parts.push(`${progress.failed} failed`);
  if (progress.cancelled > 0) parts.push(`${progress.cancelled} cancelled`);
  return `Done: ${parts.join(', ')}.`;
}

export function formatStatus(status: ApiKgStatus): string {
  const { backend, pages, proposals } = status;
  const limit = backend.ratePerMinute > 0 ? `${backend.ratePerMinute} calls/min` : 'no rate limit';
  const lines = [
    `Backend     ${backend.extractor} (${backend.model}); embeddings ${backend.embedder} (${backend.embeddingModel})`,
    `            ${plural(backend.concurrency, 'call')} at a time, ${limit}, confidence threshold ${backend.confidenceThreshold}`,
    `Pages       ${pages.included} included: ${pages.extracted} extracted, ${pages.changedSinceExtraction} changed since, ${pages.neverExtracted} never extracted`,
    `Proposals   ${proposals.pending} pending, ${proposals.approved} approved, ${proposals.rejected} rejected, ${proposals.retired} retired`,
    '',
    formatColumns(
      ['QUEUE', 'QUEUED', 'RETRYING', 'RUNNING', 'FAILED', 'DONE'],
      status.queues.map((q) => [q.queue, String(q.queued), String(q.retrying), String(q.running), String(q.failed), String(q.completed)]),
    ),
    '',
    formatColumns(
      ['BACKEND', 'QUEUED', 'RETRYING', 'RUNNING', 'FAILED', 'PAGES', 'CALLS'],
      status.backends.map((b) => [b.backend, String(b.queued), String(b.retrying), String(b.running), String(b.failed), String(b.pagesExtracted), String(b.calls)]),
    ),
  ];
  lines.push('');
  if (status.openFailures === 0) {
    lines.push('No failed extraction.');
  } else {
    lines.push(`Failed extractions (${status.openFailures}, newest first; fixed by a later successful extraction of the page):`);
    lines.push(
      formatColumns(
        ['WHEN', 'PAGE', 'BACKEND', 'ATTEMPTS', 'REASON'],
        status.failures.map((f) => [shortTime(f.failedAt), f.slug, f.backend, String(f.attempts), f.reason.replace(/\s+/g, ' ')]),
      ),
    );
  }
  return lines.join('\n');
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function duration(ms: number): string {
  return ms === 60_000 ? 'a minute' : ms % 1000 === 0 ? plural(ms / 1000, 'second') : `${ms} ms`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 50) throw new InvalidArgumentError('must be a whole number of milliseconds, at least 50');
  return n;
}
