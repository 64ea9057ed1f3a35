import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan, type QueryDeepPartialEntity } from 'typeorm';
import { preparedQuery } from '../db/prepared-query.js';
import type { Role } from './actor.js';
import { SessionEntity } from './session.entity.js';

/** The user a live session belongs to, read with it (who is asking, for the identity middleware). */
export interface SessionUser {
  id: string;
  displayName: string;
  role: Role;
  disabled: boolean;
}

/** All SQL over user_sessions (the express-session store's rows). */
@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A live session's data and, in the same statement, its user (null: a visitor's session, or its user is gone).
   * Every request with a session cookie asks for both: one prepared round trip instead of two TypeORM reads.
   */
  async findLiveWithUser(sid: string): Promise<{ data: Record<string, unknown>; user: SessionUser | null; expiresAt: Date } | null> {
    const [row]: { data: Record<string, unknown>; expires_at: Date; id: string | null; display_name: string; role: Role; disabled: boolean }[] = await preparedQuery(
      this.dataSource,
      `SELECT s.data, s.expires_at, u.id, u.display_name, u.role, u.disabled_at IS NOT NULL AS disabled
         FROM user_sessions s LEFT JOIN users u ON u.id = s.user_id
        WHERE s.sid = $1 AND s.expires_at > $2`,
      [sid, new Date()],
    );
    if (!row) return null;
    return { data: row.data, expiresAt: new Date(row.expires_at), user: row.id ? { id: row.id, displayName: row.display_name, role: row.role, disabled: row.disabled } : null };
  }

  async upsert(sid: string, userId: string | null, data: Record<string, unknown>, expiresAt: Date): Promise<void> {
    await this.dataSource.manager.upsert(SessionEntity, { sid, userId, data, expiresAt } as QueryDeepPartialEntity<SessionEntity>, { conflictPaths: ['sid'] });
  }

  async delete(sid: string): Promise<void> {
    await this.dataSource.manager.delete(SessionEntity, { sid });
  }

  /** Ends every session of a user (disabled, password reset). */
  async deleteByUser(userId: string, db: EntityManager = this.dataSource.manager): Promise<number> {
    return (await db.delete(SessionEntity, { userId })).affected ?? 0;
  }

  async countByUser(userId: string): Promise<number> {
    return this.dataSource.manager.count(SessionEntity, { where: { userId } });
  }

  async deleteExpired(): Promise<number> {
    return (await this.dataSource.manager.delete(SessionEntity, { expiresAt: LessThan(new Date()) })).affected ?? 0;
  }
}
