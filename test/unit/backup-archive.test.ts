import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupError, BackupWriter, readBackupEntries, readBackupHeader, type BackupEntry, type BackupHeader } from '../../src/backup/backup-archive.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kurate-archive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER: BackupHeader = {
  format: 'kurate-backup', formatVersion: 1, createdAt: '2026-12-02T06:00:00.000Z', kurateVersion: '0.1.0', database: 'embedded',
  schemaVersion: ['0001_pages'], tables: [{ name: 'pages', rows: 2 }, { name: 'users', rows: 0 }],
};

async function write(file: string): Promise<string> {
  const writer = BackupWriter.open(file);
  await writer.header(HEADER);
  await writer.table('pages', 2);
  await writer.row('{"id": 1, "body": "line one\\nline two", "n": 12345678901234567890}');
  await writer.row('{"id": 2, "body": "ü ✓"}');
  await writer.table('users', 0);
  return (await writer.finish()).checksum;
}

async function entries(file: string): Promise<BackupEntry[]> {
  const out: BackupEntry[] = [];
  for await (const entry of readBackupEntries(file)) out.push(entry);
  return out;
}

describe('the backup archive', () => {
  it('reads back what was written, rows as the exact text given (big numbers too), and the checksum last', async () => {
    const file = path.join(dir, 'a.kbk');
    const checksum = await write(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(await readBackupHeader(file)).toEqual(HEADER);
    expect(await entries(file)).toEqual([
      { kind: 'table', name: 'pages', rows: 2 },
      { kind: 'row', json: '{"id": 1, "body": "line one\\nline two", "n": 12345678901234567890}' },
      { kind: 'row', json: '{"id": 2, "body": "ü ✓"}' },
      { kind: 'table', name: 'users', rows: 0 },
      { kind: 'end', checksum },
    ]);
  });

  it('refuses to overwrite a file unless forced, and a row that is not one line of a JSON object', async () => {
    const file = path.join(dir, 'b.kbk');
    await write(file);
    expect(() => BackupWriter.open(file)).toThrow(/exists already/);
    const writer = BackupWriter.open(file, { force: true });
    await expect(writer.row('{"a":\n1}')).rejects.toThrow(BackupError);
    await writer.abort();
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it('refuses a changed file, a cut-short one, a row count that does not match, and what is not a backup', async () => {
    const file = path.join(dir, 'c.kbk');
    await write(file);
    const text = gunzipSync(readFileSync(file)).toString('utf8');
    const variant = (name: string, content: string | Buffer) => {
      const target = path.join(dir, name);
      writeFileSync(target, typeof content === 'string' ? gzipSync(content) : content);
      return target;
    };
    await expect(entries(variant('changed', text.replace('ü', 'u')))).rejects.toThrow(/does not match its checksum/);
    await expect(entries(variant('cut', text.slice(0, text.indexOf('#table users'))))).rejects.toThrow(/ends before its checksum line/);
    await expect(entries(variant('count', text.replace('#table pages 2', '#table pages 3')))).rejects.toThrow(/table pages has 2 rows where its header says 3/);
    await expect(readBackupHeader(variant('json', '{"format":"other"}\n'))).rejects.toThrow(/not a Kurate backup/);
    await expect(readBackupHeader(variant('plain', Buffer.from('not gzip at all')))).rejects.toThrow(/cannot be read as a gzipped Kurate backup/);
    await expect(readBackupHeader(variant('future', `${JSON.stringify({ ...HEADER, formatVersion: 2 })}\n`))).rejects.toThrow(/format 2; this Kurate reads format 1/);
  });
});
