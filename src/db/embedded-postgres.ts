import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DatabaseSetupError } from './migration-runner.js';

/** Written into the data folder while a process has the embedded database open (PGlite itself takes no lock). */
export const EMBEDDED_LOCK_FILE = 'kurate.lock';

/** The provider of the embedded PGlite instance (null on PostgreSQL). */
export const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');
const held = new Set<string>();

/** Opens (or creates on first start) the embedded PostgreSQL: PGlite with pgvector, in-process. */
export async function openEmbeddedPostgres(dataDir: string, snapshot?: Blob): Promise<PGlite> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    lockDataDir(dataDir);
  }
  try {
    return await PGlite.create(inMemory ? undefined : dataDir, {
      extensions: { vector, pg_trgm },
      ...(snapshot ? { loadDataDir: snapshot } : {}),
    });
  } catch (error) {
    if (!inMemory) unlockDataDir(dataDir);
    throw error;
  }
}

/** Closes the embedded database and lets other processes open its folder. */
export async function closeEmbeddedPostgres(pglite: PGlite, dataDir: string): Promise<void> {
  if (!pglite.closed) await pglite.close();
  if (!dataDir.startsWith('memory://')) unlockDataDir(dataDir);
}

/**
 * One process at a time may open a data folder: two would corrupt it. A lock left by a process that died (kill -9,
 * a crash) names a process that is gone, or one on another host (a container that was replaced): it is taken over.
 */
function lockDataDir(dataDir: string): void {
  const file = path.join(dataDir, EMBEDDED_LOCK_FILE);
  if (held.has(file)) throw new DatabaseSetupError(`The embedded database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      closeSync(fd);
      held.add(file);
      process.once('exit', () => held.has(file) && rmSync(file, { force: true }));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = lockOwner(file);
      if (owner && owner.host === hostname() && owner.pid !== process.pid && isAlive(owner.pid)) {
        throw new DatabaseSetupError(
          `The embedded database in ${dataDir} is in use by process ${owner.pid} (a running Kurate server?). Stop it first: one process at a time may open it.`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DatabaseSetupError(`Could not lock the embedded database in ${dataDir} (${file}).`);
}

function unlockDataDir(dataDir: string): void {
  const file = path.join(dataDir, EMBEDDED_LOCK_FILE);
  if (held.delete(file)) rmSync(file, { force: true });
}

function lockOwner(file: string): { pid: number; host: string } | null {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? { pid: owner.pid, host: owner.host } : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
