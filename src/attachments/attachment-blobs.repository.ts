import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

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
}
