import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** The SQL of the database store: `attachment_blobs` (migration 0015). */
@Injectable()
export class AttachmentBlobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(sha256: string, bytes: Buffer): Promise<void> {
    await this.dataSource.query('INSERT INTO attachment_blobs (sha256, bytes) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING', [sha256, bytes]);
  }

  async find(sha256: string): Promise<Buffer | null> {
    const rows: { bytes: Uint8Array }[] = await this.dataSource.query('SELECT bytes FROM attachment_blobs WHERE sha256 = $1', [sha256]);
    // pg answers a Buffer, PGlite a Uint8Array.
    return rows.length === 0 ? null : Buffer.from(rows[0].bytes.buffer, rows[0].bytes.byteOffset, rows[0].bytes.byteLength);
  }

  async exists(sha256: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM attachment_blobs WHERE sha256 = $1', [sha256]);
    return rows.length > 0;
  }

  async delete(sha256: string): Promise<void> {
    await this.dataSource.query('DELETE FROM attachment_blobs WHERE sha256 = $1', [sha256]);
  }

  /** Up to `limit` contents stored more than `seconds` ago that no catalogue row references, after `after`. */
  async unreferencedOlderThan(seconds: number, after: string, limit: number): Promise<string[]> {
    const rows: { sha256: string }[] = await this.dataSource.query(
      `SELECT b.sha256 FROM attachment_blobs b
        WHERE b.sha256 > $3 AND b.created_at < now() - $1 * interval '1 second'
          AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.sha256 = b.sha256)
        ORDER BY b.sha256 LIMIT $2`,
      [seconds, limit, after],
    );
    return rows.map((row) => row.sha256);
  }

  /** Removes these contents, in the caller's transaction; answers how many bytes went. */
  async deleteMany(keys: readonly string[], tx: EntityManager): Promise<{ count: number; bytes: number }> {
    if (keys.length === 0) return { count: 0, bytes: 0 };
    const [row]: { count: number; bytes: string }[] = await tx.query(
      `WITH gone AS (DELETE FROM attachment_blobs WHERE sha256 = ANY($1::text[]) RETURNING octet_length(bytes) AS size)
       SELECT count(*)::int AS count, coalesce(sum(size), 0)::bigint AS bytes FROM gone`,
      [keys],
    );
    return { count: row.count, bytes: Number(row.bytes) };
  }
}
