import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan, MoreThan, type QueryDeepPartialEntity } from 'typeorm';
import { SessionEntity } from './session.entity.js';

/** All SQL over user_sessions (the express-session store's rows). */
@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findLive(sid: string): Promise<Record<string, unknown> | null> {
    const row = await this.dataSource.manager.findOne(SessionEntity, { where: { sid, expiresAt: MoreThan(new Date()) } });
    return row?.data ?? null;
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
