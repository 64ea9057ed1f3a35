import type { INestApplicationContext } from '@nestjs/common';
import { BackupError, readBackupHeader, refuseToOverwrite } from './backup/backup-archive.js';
import type { BackupSummary, RestoreSummary } from './backup/backup.service.js';

/** The CLI tells a user's mistake (one line) from a bug by this class. */
export { BackupError };

/**
 * `kurate backup` and `kurate restore` work on the database itself (DATABASE_URL, or the embedded database in
 * KURATE_DATA_DIR), not over HTTP: a restore targets an instance with no users to log in as and replaces the very
 * accounts and tokens a server would check; a backup holds every password and token hash, which should take the
 * database's own credentials to read, as pg_dump does. The application's modules run in this process (no HTTP, no
 * job worker), so derived data is rebuilt by the same code a server runs. They load only once the arguments are
 * known to be usable: a mistake in them (a file to overwrite, a file that is no backup) is answered at once.
 */
export interface CommandResult {
  /** What to print. */
  lines: string[];
  json: BackupSummary | RestoreSummary;
}

/** Runs `work` with the application's modules on the configured database; errors a user can fix become BackupError. */
async function withApplication<T>(work: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  await import('reflect-metadata');
  const [{ NestFactory }, { AppModule }, { ConfigError, loadConfig }, { DatabaseSetupError }] = await Promise.all([
    import('@nestjs/core'),
    import('./app.module.js'),
    import('./config/kurate-config.js'),
    import('./db/migration-runner.js'),
  ]);
  let config;
  try {
    // Never create the first admin from this process's environment: a restore brings its own accounts.
    config = loadConfig({ ...process.env, KURATE_ADMIN_EMAIL: undefined, KURATE_ADMIN_PASSWORD: undefined, KURATE_LOG_LEVEL: process.env.KURATE_LOG_LEVEL ?? 'warn' });
  } catch (error) {
    if (error instanceof ConfigError) throw new BackupError(error.message);
    throw error;
  }
  let app: INestApplicationContext;
  try {
    // Silent while it starts: a failure to open the database is reported once, as one line, by the CLI.
    app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: false, abortOnError: false });
    app.useLogger(['error', 'warn']);
  } catch (error) {
    if (error instanceof DatabaseSetupError) throw new BackupError(error.message);
    throw error;
  }
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

export async function backup(file: string, options: { force?: boolean }): Promise<CommandResult> {
  refuseToOverwrite(file, options);
  return withApplication(async (app) => {
    const { BackupService } = await import('./backup/backup.service.js');
    const summary = await app.get(BackupService).write(file, options);
    const rows = summary.tables.reduce((n, t) => n + t.rows, 0);
    return {
      json: summary,
      lines: [
        `Wrote ${file}: ${rows} rows of ${summary.tables.length} tables, schema ${summary.schemaVersion}, ${formatBytes(summary.bytes)} before compression.`,
        `sha256 ${summary.checksum}`,
        'It holds password and token hashes: keep it as safe as the database.',
      ],
    };
  });
}

export async function restore(file: string, options: { force?: boolean }): Promise<CommandResult> {
  // A file that is not a backup is refused before the database is opened (or an embedded one created).
  await readBackupHeader(file);
  return withApplication(async (app) => {
    const { RestoreService } = await import('./backup/backup.service.js');
    const summary = await app.get(RestoreService).restore(file, options);
    const rows = summary.tables.reduce((n, t) => n + t.rows, 0);
    const { rebuilt } = summary;
    return {
      json: summary,
      lines: [
        summary.interruptedAt
          ? `Finished the restore of ${file} (taken ${summary.createdAt}) interrupted after its load committed at ${summary.interruptedAt}: its ${rows} rows were loaded then and are kept.`
          : `Restored ${file} (taken ${summary.createdAt}, schema ${summary.schemaVersion}): ${rows} rows of ${summary.tables.length} tables.`,
        `Rebuilt: links and search of ${rebuilt.pages} pages (${rebuilt.links} links), search of ${rebuilt.chunks} chunks; ` +
          `${rebuilt.extractionJobs} extraction jobs queued (kept chunks cost no extraction call; a worker runs them once a server starts).`,
        ...(rebuilt.unparsablePages.length > 0 ? [`Pages whose source does not parse (no links rebuilt): ${rebuilt.unparsablePages.join(', ')}`] : []),
        'Sessions are not in a backup: everyone logs in again. API tokens keep working.',
      ],
    };
  });
}

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
