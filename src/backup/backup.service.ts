import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PageFileRefsService } from '../attachments/page-file-refs.service.js';
import { AuditService, type AuditActor } from '../audit/audit.service.js';
import { KurateConfig } from '../config/kurate-config.js';
import { DatabaseSetupError } from '../db/migration-runner.js';
import { KgExtractionQueue } from '../kg/kg-extraction-queue.service.js';
import { PagesService } from '../pages/pages.service.js';
import { PolicyReconciler } from '../policy/policy-reconciler.service.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupError, BackupWriter, readBackupEntries, readBackupHeader, type BackupHeader } from './backup-archive.js';
import { BackupRepository } from './backup.repository.js';
import { BACKUP_TABLES, DERIVED_TABLES, INSTANCE_TABLES, type BackupTable } from './backup-tables.js';

/** Who runs `kurate backup` and `kurate restore`: whoever holds the database, as the audit log records them. */
export const BACKUP_ACTOR: AuditActor = Object.freeze({ userId: null, name: 'kurate backup' });

/** Rows inserted per statement during a restore. */
const INSERT_BATCH = 200;

export interface BackupSummary {
  file: string;
  checksum: string;
  bytes: number;
  schemaVersion: string;
  tables: { name: string; rows: number }[];
}

export interface RestoreSummary {
  file: string;
  checksum: string;
  schemaVersion: string;
  createdAt: string;
  tables: { name: string; rows: number }[];
  rebuilt: RestoreRebuilt;
  /** When this run only finished the rebuild of an earlier run of the same archive, killed after its load committed: when that load committed. */
  interruptedAt: string | null;
}

export interface RestoreRebuilt {
  pages: number;
  links: number;
  unparsablePages: string[];
  chunks: number;
  extractionJobs: number;
}

/** `kurate backup`: everything that is not derived, as of one moment, into one archive (src/backup/backup-archive.ts). */
@Injectable()
export class BackupService {
  constructor(
    private readonly repository: BackupRepository,
    private readonly audit: AuditService,
    private readonly config: KurateConfig,
  ) {}

  async write(file: string, options: { force?: boolean; actor?: AuditActor } = {}): Promise<BackupSummary> {
    const writer = BackupWriter.open(file, options);
    let tables: { name: string; rows: number }[];
    let schemaVersion: string[];
    try {
      ({ tables, schemaVersion } = await this.repository.snapshot(async (db) => {
        const schema = await this.repository.schemaVersion(db);
        const counts: { name: string; rows: number }[] = [];
        for (const table of BACKUP_TABLES) counts.push({ name: table.name, rows: await this.repository.count(table.name, db) });
        const header: BackupHeader = {
          format: BACKUP_FORMAT, formatVersion: BACKUP_FORMAT_VERSION, createdAt: new Date().toISOString(), kurateVersion: kurateVersion(),
          database: this.config.database.kind, schemaVersion: schema, tables: counts,
        };
        await writer.header(header);
        for (const [i, table] of BACKUP_TABLES.entries()) {
          await writer.table(table.name, counts[i].rows);
          for await (const row of this.repository.rows(table, db)) await writer.row(row);
        }
        return { tables: counts, schemaVersion: schema };
      }));
    } catch (error) {
      await writer.abort();
      throw error;
    }
    const { checksum, bytes } = await writer.finish();
    const latest = schemaVersion.at(-1) ?? 'none';
    await this.audit.record(options.actor ?? BACKUP_ACTOR, 'backup.create', path.basename(file), { checksum, schemaVersion: latest, rows: rowCounts(tables) });
    return { file, checksum, bytes, schemaVersion: latest, tables };
  }
}

/**
 * `kurate restore`: loads an archive into an empty instance (or, forced, over a non-empty one) in one transaction
 * that commits only when the archive's checksum matched, then rebuilds what derives from it as the app does: links
 * and search vectors from the pages' Markdown, the inclusion policy's decisions, word statistics, and extraction
 * and embedding jobs (which a worker runs once a server starts).
 *
 * The load's transaction also records that the rebuild is owed (restore_rebuild_owed, migration 0033), and the
 * rebuild removes the mark when its last step is done. A restore killed in between is finished by whatever runs
 * next: a server, as it starts and before it serves (onApplicationBootstrap), or `kurate restore` run again. Every
 * step recomputes from the restored rows, so running one again is harmless.
 */
@Injectable()
export class RestoreService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Restore');

  constructor(
    private readonly repository: BackupRepository,
    private readonly audit: AuditService,
    private readonly pages: PagesService,
    private readonly reconciler: PolicyReconciler,
    private readonly extraction: KgExtractionQueue,
    private readonly fileRefs: PageFileRefsService,
    private readonly config: KurateConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /**
   * A server starting on an instance whose restore was killed after its load committed finishes the rebuild before
   * it serves (pages saved meanwhile would race it). Not the job-worker role (the web or all process does it; no jobs
   * exist before it has), nor the backup commands' own application (no HTTP adapter): `kurate restore` run again
   * finishes it itself.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.adapterHost.httpAdapter || this.config.extraction.role === 'worker') return;
    const owed = await this.repository.rebuildOwed();
    if (!owed) return;
    this.logger.warn(`The restore of ${owed.file} (load committed at ${owed.loadedAt}) was interrupted before its rebuild finished: finishing it before serving`);
    try {
      const rebuilt = await this.rebuild(owed.checksum);
      this.logger.warn(`Finished the rebuild of the restore of ${owed.file}: ${rebuilt.pages} pages (${rebuilt.links} links), ${rebuilt.chunks} chunks, ${rebuilt.extractionJobs} extraction jobs queued`);
    } catch (error) {
      throw new DatabaseSetupError(
        `the restore of ${owed.file} (load committed at ${owed.loadedAt}) was interrupted, and finishing its rebuild failed: ${(error as Error).message}. ` +
          'Start again to retry, or run kurate restore with the archive (add --force to load it again).',
      );
    }
  }

  async restore(file: string, options: { force?: boolean; actor?: AuditActor } = {}): Promise<RestoreSummary> {
    const header = await readBackupHeader(file);
    await this.assertSameSchema(header);
    const known = new Map(BACKUP_TABLES.map((t) => [t.name, t]));
    const unknown = header.tables.map((t) => t.name).filter((name) => !known.has(name));
    if (unknown.length > 0) throw new BackupError(`The backup has tables this Kurate does not restore (${unknown.join(', ')}): restore it with the Kurate version that wrote it.`);
    if (!options.force) {
      // A run of this restore killed after its load committed: finish it, without loading again.
      const owed = await this.repository.rebuildOwed();
      if (owed) {
        this.logger.warn(`Finishing the rebuild of the restore of ${owed.file} interrupted at ${owed.loadedAt} (its load had committed)`);
        const rebuilt = await this.rebuild(owed.checksum);
        if (owed.archiveCreatedAt === header.createdAt) {
          return { file, checksum: owed.checksum, schemaVersion: header.schemaVersion.at(-1) ?? 'none', createdAt: header.createdAt, tables: header.tables, rebuilt, interruptedAt: owed.loadedAt };
        }
        this.logger.warn(`The instance holds ${owed.file} (taken ${owed.archiveCreatedAt}), not this archive (taken ${header.createdAt})`);
      }
      const filled = await this.repository.nonEmpty(BACKUP_TABLES.filter((t) => t.content).map((t) => t.name));
      if (filled.length > 0) {
        const what = filled.map((t) => `${t.table} (${t.rows} rows)`).join(', ');
        throw new BackupError(`This instance is not empty: ${what}. Restore into a new database (or data folder), or add --force to replace everything in this one.`);
      }
    }

    // The start-up reconciliation runs in the background; it must not interleave with the load.
    await this.reconciler.whenStartupRebuildDone();
    let checksum = '';
    await this.repository.transaction(async (tx) => {
      const every = [...BACKUP_TABLES.map((t) => t.name), ...DERIVED_TABLES.map((t) => t.name), ...INSTANCE_TABLES.filter((t) => t.name !== 'schema_migrations').map((t) => t.name)];
      await this.repository.clear(every, BACKUP_TABLES.filter((t) => t.appendOnly).map((t) => t.name), tx);
      let table: BackupTable | null = null;
      let rows: string[] = [];
      const flush = async () => {
        if (table) await this.repository.insert(table.name, rows, tx);
        rows = [];
      };
      for await (const entry of readBackupEntries(file)) {
        if (entry.kind === 'table') {
          await flush();
          table = known.get(entry.name)!;
        } else if (entry.kind === 'row') {
          rows.push(entry.json);
          if (rows.length >= INSERT_BATCH) await flush();
        } else {
          await flush();
          checksum = entry.checksum;
        }
      }
      await this.repository.resetSequences(BACKUP_TABLES.map((t) => t.name), tx);
      await this.repository.excludeEveryPage(tx);
      await this.audit.record(options.actor ?? BACKUP_ACTOR, 'backup.restore', path.basename(file), {
        checksum, createdAt: header.createdAt, from: header.database, schemaVersion: header.schemaVersion.at(-1) ?? 'none', rows: rowCounts(header.tables), forced: options.force === true,
      }, null, tx);
      // Committed with the load: until the rebuild below removes it, the next start or restore finishes the rebuild.
      await this.repository.markRebuildOwed({ file: path.basename(file), checksum, archiveCreatedAt: header.createdAt }, tx);
    });

    this.logger.log(`Loaded ${file}; rebuilding links, search and the knowledge graph's derived data`);
    const rebuilt = await this.rebuild(checksum);
    return { file, checksum, schemaVersion: header.schemaVersion.at(-1) ?? 'none', createdAt: header.createdAt, tables: header.tables, rebuilt, interruptedAt: null };
  }

  /**
   * Everything that derives from the restored rows, computed again; then the mark that it was owed goes. Each step
   * recomputes from the rows (or enqueues jobs unique per page and source), so a rebuild cut short is run again whole.
   */
  private async rebuild(checksum: string): Promise<RestoreRebuilt> {
    const index = await this.pages.rebuildIndex();
    // The Page Graph's links to files, from the restored references (page_links was rebuilt without them).
    await this.fileRefs.relinkAll();
    if (index.unparsable.length > 0) this.logger.warn(`Pages whose source no longer parses kept their stored link keys and have no links: ${index.unparsable.join(', ')}`);
    // At a server's start, after its own reconciliation (two at once would only repeat each other).
    await this.reconciler.whenStartupRebuildDone();
    await this.reconciler.reconcileAll('restore');
    const kg = await this.extraction.rebuildAfterRestore();
    await this.repository.clearRebuildOwed(checksum);
    return { pages: index.pages, links: index.links, unparsablePages: index.unparsable, chunks: kg.chunks, extractionJobs: kg.enqueued };
  }

  /** The archive's rows fit this database only if both have the same migrations applied. */
  private async assertSameSchema(header: BackupHeader): Promise<void> {
    const here = await this.repository.schemaVersion();
    const theirs = header.schemaVersion;
    const missingHere = theirs.filter((v) => !here.includes(v));
    const missingThere = here.filter((v) => !theirs.includes(v));
    if (missingHere.length === 0 && missingThere.length === 0) return;
    if (missingHere.length > 0) {
      throw new BackupError(`The backup was made by a newer Kurate (schema ${missingHere.join(', ')} is not known here): upgrade Kurate, then restore.`);
    }
    throw new BackupError(
      `The backup was made at an older schema (without ${missingThere.join(', ')}). Restore it with the Kurate version that wrote it (${header.kurateVersion}), ` +
        'then start this version on that database: its migrations bring the data forward.',
    );
  }
}

function rowCounts(tables: { name: string; rows: number }[]): Record<string, number> {
  return Object.fromEntries(tables.map((t) => [t.name, t.rows]));
}

function kurateVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
