import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity.js';
import { UserEntity } from './user.entity.js';
import { entityColumns, entityValues } from '../db/entity-columns.js';
import { preparedQuery } from '../db/prepared-query.js';

export type NewApiToken = Pick<ApiTokenEntity, 'userId' | 'name' | 'prefix' | 'tokenHash' | 'scopes' | 'expiresAt'>;

/** All SQL over api_tokens. */
@Injectable()
export class ApiTokensRepository {
  /** findByHash's statement, built from the entities' metadata on first use. */
  private byHashSql: string | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(token: NewApiToken, db: EntityManager): Promise<ApiTokenEntity> {
    const result = await db.insert(ApiTokenEntity, token);
    return (await this.findById((result.identifiers[0] as { id: string }).id, db))!;
  }

  findById(id: string, db: EntityManager = this.dataSource.manager): Promise<ApiTokenEntity | null> {
    return db.findOne(ApiTokenEntity, { where: { id }, relations: { user: true } });
  }

  /**
   * The token with this hash and its owner, whatever their state (the caller decides). Every request with a token
   * asks, so it is a prepared statement whose row becomes the entities TypeORM would have read.
   */
  async findByHash(tokenHash: string): Promise<ApiTokenEntity | null> {
    this.byHashSql ??= `SELECT ${entityColumns(this.dataSource, ApiTokenEntity, 't', 't.')}, ${entityColumns(this.dataSource, UserEntity, 'u', 'u.')}
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`;
    const rows: Record<string, unknown>[] = await preparedQuery(this.dataSource, this.byHashSql, [tokenHash]);
    if (rows.length === 0) return null;
    const db = this.dataSource.manager;
    return db.create(ApiTokenEntity, { ...entityValues(rows[0], 't.'), user: db.create(UserEntity, entityValues(rows[0], 'u.')) });
  }

  /** Newest first; `userId` null lists everyone's. */
  list(userId: string | null): Promise<ApiTokenEntity[]> {
    return this.dataSource.manager.find(ApiTokenEntity, {
      where: userId ? { userId } : {},
      relations: { user: true },
      order: { createdAt: 'DESC' },
    });
  }

  /** Revokes a token not revoked yet; false when it already was (by a request that committed first). */
  async revoke(id: string, db: EntityManager): Promise<boolean> {
    const result = await db.update(ApiTokenEntity, { id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** At most one write a minute per token (ApiTokensService asks only when the row it read is older than that). */
  async touch(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }
}
