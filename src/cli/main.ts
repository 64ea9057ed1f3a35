import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { fetchAllPages, exportWiki, type ApiPage } from './export-command.js';
import { withExamples } from './help.js';
import { assertBatchSize, formatImportReport, importVault, MAX_BATCH_SIZE, type WikiSummary } from './import-command.js';
import { CliError, KurateClient } from './kurate-client.js';
import { registerKgCommands } from './kg-commands.js';
import { registerLoginCommands } from './login-commands.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerServiceAccountCommands } from './service-account-commands.js';
import { registerTokenCommands } from './token-commands.js';
import { registerUserCommands } from './user-commands.js';

/** `kurate`: imports, exports and reads a running Kurate, and manages its accounts, over its REST API (see docs/cli.md). */
function buildProgram(): Command {
  const program = new Command('kurate')
    .description(
      'Command-line client of a running Kurate server.\nKURATE_URL (default http://localhost:3000) says where; KURATE_TOKEN, when set, is sent as a bearer token, ' +
        'else the token kurate login saved for that server.',
    )
    .version(packageVersion())
    // Before any subcommand exists, so that they all inherit it: a usage mistake is one line, like every other error.
    .configureOutput({ outputError: (message, write) => write(`kurate: ${message.replace(/^error: /, '').trimEnd()} (run with --help for usage)\n`) });
  const client = () => KurateClient.fromEnvironment();

  withExamples(
    program.command('import'),
    'kurate import ~/notes/my-vault',
    'KURATE_URL=http://wiki.internal:3000 kurate import ./vault --json > report.json',
  )
    .description('Import a folder of Markdown (an Obsidian or Foam vault): new pages are created, changed ones updated, identical ones left alone; every other file (images, PDFs, …) is uploaded at its path.')
    .argument('<folder>', 'the vault folder; read recursively (.md and .markdown are pages, the rest attachments), skipping symlinks and dot folders')
    .addOption(new Option('--batch-size <n>', `pages per request (at most ${MAX_BATCH_SIZE})`).default(100).argParser((v) => assertBatchSize(Number(v))))
    .option('--json', 'print the full report as JSON')
    .action(async (folder: string, options: { batchSize: number; json?: boolean }) => {
      const report = await importVault(client(), folder, { batchSize: options.batchSize, progress: !options.json && process.stderr.isTTY === true });
      console.log(options.json ? JSON.stringify(report, null, 2) : formatImportReport(report));
      if (report.counts.failed > 0) throw new CliError(`${report.counts.failed} of ${report.files} files were not imported (reasons above).`);
      if (report.attachments.counts.failed > 0) throw new CliError(`${report.attachments.counts.failed} of ${report.attachments.files} other files were not uploaded (reasons above).`);
    });

  withExamples(program.command('export'), 'kurate export ./backup', 'kurate export ./backup --force')
    .description('Write every page as <folder>/<cluster>/<title>.md with its full source, frontmatter included, and every file you may read at its path, byte for byte.')
    .argument('<folder>', 'where to write (created if missing)')
    .option('--force', 'overwrite files that already exist')
    .option('--json', 'print the written files as JSON')
    .action(async (folder: string, options: { force?: boolean; json?: boolean }) => {
      const { files, attachments } = await exportWiki(client(), folder, { force: options.force === true });
      const also = attachments.length > 0 ? ` and ${attachments.length} ${attachments.length === 1 ? 'file' : 'files'}` : '';
      console.log(options.json ? JSON.stringify({ folder, files, attachments }, null, 2) : `Exported ${files.length} pages${also} to ${folder}.`);
    });

  const pages = withExamples(program.command('pages').description('List pages.'), 'kurate pages list');
  withExamples(pages.command('list'), 'kurate pages list --cluster user/features')
    .description('List live pages by title.')
    .option('--cluster <cluster>', 'only pages of this cluster (e.g. user/features)')
    .option('--json', 'print JSON')
    .action(async (options: { cluster?: string; json?: boolean }) => {
      const items = (await fetchAllPages(client(), options.cluster)).map(listing);
      console.log(options.json ? JSON.stringify({ items, total: items.length }, null, 2) : formatTable(items));
    });

  const page = withExamples(program.command('page').description('Read one page.'), 'kurate page get getting-started');
  withExamples(page.command('get'), 'kurate page get getting-started > getting-started.md')
    .description('Print a page’s source (frontmatter + Markdown).')
    .argument('<slug>', 'the page slug, e.g. getting-started')
    .option('--json', 'print the page with its metadata as JSON')
    .action(async (slug: string, options: { json?: boolean }) => {
      const found = await client().get<ApiPage>(`/api/pages/${encodeURIComponent(slug)}`);
      if (options.json) console.log(JSON.stringify(found, null, 2));
      else process.stdout.write(found.body.endsWith('\n') ? found.body : `${found.body}\n`);
    });

  withExamples(program.command('summary'), 'kurate summary --json')
    .description('Count pages, resolved and broken links, wanted pages and orphans.')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const summary = await client().get<WikiSummary>('/api/reports/summary');
      console.log(options.json ? JSON.stringify(summary, null, 2) : Object.entries(summary).map(([k, v]) => `${k.padEnd(14)}${v}`).join('\n'));
    });

  registerLoginCommands(program);
  registerBackupCommands(program);
  registerUserCommands(program);
  registerServiceAccountCommands(program);
  registerTokenCommands(program);
  registerKgCommands(program);
  registerMcpCommand(program);
  return withExamples(
    program,
    'kurate login ada@example.org',
    'kurate import ~/notes/my-vault',
    'KURATE_TOKEN=kur_… kurate user create ada@example.org --role author',
    'kurate token create --name laptop --scope write',
    'kurate kg extract --cluster docs',
    'KURATE_TOKEN=kur_… kurate mcp',
  );
}

/**
 * `kurate backup` and `kurate restore` open the database themselves (src/backup-command.ts says why), so they
 * load the server's modules, and only when one of them runs: the path is computed so that the other commands neither
 * load nor compile the server.
 */
interface BackupCommands {
  BackupError: abstract new (...args: never[]) => Error;
  backup(file: string, options: { force: boolean }): Promise<{ lines: string[]; json: unknown }>;
  restore(file: string, options: { force: boolean }): Promise<{ lines: string[]; json: unknown }>;
}

function registerBackupCommands(program: Command): void {
  const run = async (command: 'backup' | 'restore', file: string, options: { force?: boolean; json?: boolean }) => {
    const module = (await import(new URL('../backup-command.js', import.meta.url).href)) as BackupCommands;
    try {
      const result = await module[command](file, { force: options.force === true });
      console.log(options.json ? JSON.stringify(result.json, null, 2) : result.lines.join('\n'));
    } catch (error) {
      if (error instanceof module.BackupError) throw new CliError(error.message);
      throw error;
    }
  };
  withExamples(program.command('backup'), 'kurate backup kurate-2026-12-01.kbk', 'DATABASE_URL=postgres://kurate@db/kurate kurate backup /backups/kurate.kbk')
    .description('Write everything that is not derived (pages with history, users, tokens, policies, the knowledge graph and its journal, audit logs, settings) to one archive, from DATABASE_URL or the embedded database in KURATE_DATA_DIR (stop the server first when embedded).')
    .argument('<file>', 'the archive to write (gzipped; mode 0600: it holds password hashes)')
    .option('--force', 'overwrite the file if it exists')
    .option('--json', 'print the summary as JSON')
    .action((file: string, options: { force?: boolean; json?: boolean }) => run('backup', file, options));
  withExamples(program.command('restore'), 'KURATE_DATA_DIR=./data-new kurate restore kurate-2026-12-01.kbk', 'DATABASE_URL=postgres://kurate@db/kurate_new kurate restore kurate.kbk')
    .description('Load an archive of `kurate backup` into an empty instance (DATABASE_URL, or the embedded database in KURATE_DATA_DIR), then rebuild links, search and the graph’s derived data. Stop the servers of that database first.')
    .argument('<file>', 'the archive to load')
    .option('--force', 'replace everything in a non-empty instance')
    .option('--json', 'print the summary as JSON')
    .action((file: string, options: { force?: boolean; json?: boolean }) => run('restore', file, options));
}

function listing(page: ApiPage) {
  return { slug: page.slug, title: page.title, cluster: page.cluster, tags: page.tags, version: page.version, updatedAt: page.updatedAt };
}

function formatTable(items: ReturnType<typeof listing>[]): string {
  if (items.length === 0) return 'No pages.';
  const width = Math.min(60, Math.max(...items.map((i) => i.slug.length)));
  return items.map((i) => `${i.slug.padEnd(width)}  ${i.title}${i.cluster ? `  [${i.cluster}]` : ''}`).join('\n');
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    // Anything else is unexpected, but the user still gets one line, not a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`kurate: ${message}`);
    process.exitCode = 1;
  });
