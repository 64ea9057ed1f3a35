import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';

/**
 * The archive `kurate backup` writes: one gzipped text file of lines.
 *
 *   {"format":"kurate-backup","formatVersion":1,…,"schemaVersion":[…],"tables":[{"name":"pages","rows":3},…]}
 *   #table pages 3
 *   {"id":"…","slug":"…",…}            one row per line, as PostgreSQL's own to_jsonb(row)::text
 *   …
 *   #sha256 <hex>                       of every byte above it, uncompressed
 *
 * Rows are PostgreSQL's JSON text, never parsed in JavaScript, so numbers, timestamps and bytes come back exactly.
 * The last line is the checksum: a file cut short or changed is refused before anything of it is committed.
 */
export const BACKUP_FORMAT = 'kurate-backup';
export const BACKUP_FORMAT_VERSION = 1;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  createdAt: string;
  kurateVersion: string;
  /** Where it was taken from: `postgres` or `embedded`. */
  database: string;
  /** The applied migrations (schema_migrations), in order. */
  schemaVersion: string[];
  tables: { name: string; rows: number }[];
}

/** A backup or restore that cannot go ahead, with the reason in words (the file, the target, the schema). */
export class BackupError extends Error {}

/** An archive is never written over an existing file unless forced. */
export function refuseToOverwrite(file: string, options: { force?: boolean }): void {
  if (existsSync(file) && !options.force) throw new BackupError(`${file} exists already: choose another name, or add --force to overwrite it.`);
}

/** Writes an archive to `<file>.partial` (mode 0600: it holds password hashes) and renames it when complete. */
export class BackupWriter {
  private readonly hash: Hash = createHash('sha256');
  private readonly partial: string;
  private bytes = 0;

  private constructor(
    readonly file: string,
    private readonly gzip: Gzip,
    private readonly out: WriteStream,
  ) {
    this.partial = `${file}.partial`;
  }

  static open(file: string, options: { force?: boolean } = {}): BackupWriter {
    refuseToOverwrite(file, options);
    const out = createWriteStream(`${file}.partial`, { mode: 0o600 });
    const gzip = createGzip();
    gzip.pipe(out);
    return new BackupWriter(file, gzip, out);
  }

  header(header: BackupHeader): Promise<void> {
    return this.line(JSON.stringify(header));
  }

  table(name: string, rows: number): Promise<void> {
    return this.line(`#table ${name} ${rows}`);
  }

  /** One row: PostgreSQL's JSON text of it (one line: JSON text never holds a raw newline). */
  async row(json: string): Promise<void> {
    if (!json.startsWith('{') || json.includes('\n')) throw new BackupError('A backup row must be one line of a JSON object.');
    return this.line(json);
  }

  /** Writes the checksum line, closes the file and puts it in place; returns the checksum and the uncompressed size. */
  async finish(): Promise<{ checksum: string; bytes: number }> {
    const checksum = this.hash.digest('hex');
    this.gzip.end(`#sha256 ${checksum}\n`);
    await once(this.out, 'close');
    renameSync(this.partial, this.file);
    return { checksum, bytes: this.bytes };
  }

  /** Leaves nothing behind after a failure. */
  async abort(): Promise<void> {
    this.gzip.destroy();
    this.out.destroy();
    rmSync(this.partial, { force: true });
  }

  private async line(text: string): Promise<void> {
    const data = `${text}\n`;
    this.hash.update(data);
    this.bytes += Buffer.byteLength(data);
    if (!this.gzip.write(data)) await once(this.gzip, 'drain');
  }
}

export type BackupEntry =
  | { kind: 'table'; name: string; rows: number }
  | { kind: 'row'; json: string }
  /** The last entry, once the checksum matched. */
  | { kind: 'end'; checksum: string };

/** The header alone (the first line), to check a backup before anything is opened or written. */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  const lines = lineReader(file);
  try {
    for await (const line of lines) return parseHeader(line);
    throw new BackupError(`${file} is empty: it is not a Kurate backup.`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} cannot be read as a gzipped Kurate backup (${(error as Error).message}).`);
  } finally {
    lines.close();
  }
}

/**
 * The archive's tables and rows, in order, after its header. The checksum is checked at the end: a caller loads
 * inside a transaction and commits only after the `end` entry.
 */
export async function* readBackupEntries(file: string): AsyncGenerator<BackupEntry> {
  const hash = createHash('sha256');
  const lines = lineReader(file);
  let first = true;
  let expected: { name: string; rows: number } | null = null;
  let seen = 0;
  try {
    for await (const line of lines) {
      if (line.startsWith('#sha256 ')) {
        endTable(expected, seen);
        const checksum = line.slice('#sha256 '.length).trim();
        if (checksum !== hash.digest('hex')) throw new BackupError(`${file} does not match its checksum: it was changed or damaged after it was written.`);
        yield { kind: 'end', checksum };
        return;
      }
      hash.update(`${line}\n`);
      if (first) {
        parseHeader(line);
        first = false;
      } else if (line.startsWith('#table ')) {
        endTable(expected, seen);
        const [, name, rows] = line.split(' ');
        expected = { name, rows: Number(rows) };
        seen = 0;
        if (!/^[a-z_][a-z0-9_]*$/.test(name) || !Number.isInteger(expected.rows)) throw new BackupError(`A table line of the backup is malformed: ${line.slice(0, 80)}`);
        yield { kind: 'table', ...expected };
      } else if (line.startsWith('{') && expected) {
        seen++;
        yield { kind: 'row', json: line };
      } else {
        throw new BackupError(`The backup has a line that is neither a table nor a row: ${line.slice(0, 80)}`);
      }
    }
  } catch (error) {
    if (error instanceof BackupError) throw error;
    // zlib's "unexpected end of file" and friends.
    throw new BackupError(`${file} cannot be read as a gzipped Kurate backup (${(error as Error).message}).`);
  } finally {
    lines.close();
  }
  throw new BackupError(`${file} ends before its checksum line: it is incomplete (cut short while written or copied).`);
}

function endTable(table: { name: string; rows: number } | null, seen: number): void {
  if (table && seen !== table.rows) throw new BackupError(`The backup's table ${table.name} has ${seen} rows where its header says ${table.rows}.`);
}

function parseHeader(line: string): BackupHeader {
  let header: BackupHeader;
  try {
    header = JSON.parse(line) as BackupHeader;
  } catch {
    throw new BackupError('This file is not a Kurate backup (its first line is not a backup header).');
  }
  if (header?.format !== BACKUP_FORMAT) throw new BackupError('This file is not a Kurate backup (its first line is not a backup header).');
  if (header.formatVersion !== BACKUP_FORMAT_VERSION) {
    throw new BackupError(`This backup is in format ${header.formatVersion}; this Kurate reads format ${BACKUP_FORMAT_VERSION}.`);
  }
  if (!Array.isArray(header.schemaVersion) || !Array.isArray(header.tables)) throw new BackupError('The backup header has no schema version or table list.');
  return header;
}

function lineReader(file: string) {
  if (!existsSync(file)) throw new BackupError(`There is no file ${file}.`);
  const input = createReadStream(file).pipe(createGunzip());
  return createInterface({ input, crlfDelay: Infinity });
}
