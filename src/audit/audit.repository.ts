import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { AuditEntryEntity } from './audit-entry.entity.js';

export interface AuditFilter {
  /** The actor's display name, matched case-insensitively. */
  actor?: string;
  /** An action (`user.role`) or a family of actions (`user` matches `user.*`). */
  action?: string;
  from?: Date;
  /** Exclusive. */
  until?: Date;
  limit: number;
  offset: number;
}

export type NewAuditEntry = Pick<AuditEntryEntity, 'actorUserId' | 'actorName' | 'action' | 'target' | 'details' | 'ip'>;

/** All SQL over audit_log: insert and read, nothing else (the database refuses changes anyway). */
@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(entry: NewAuditEntry, db: EntityManager = this.dataSource.manager): Promise<void> {
    await db.insert(AuditEntryEntity, entry as QueryDeepPartialEntity<AuditEntryEntity>);
  }

  async list(filter: AuditFilter): Promise<[AuditEntryEntity[], number]> {
    const query = this.dataSource.manager.createQueryBuilder(AuditEntryEntity, 'a');
    if (filter.actor) query.andWhere('lower(a.actor_name) = lower(:actor)', { actor: filter.actor });
    if (filter.action) {
      query.andWhere(`(a.action = :action OR a.action LIKE :family ESCAPE '\\')`, {
        action: filter.action,
        family: `${filter.action.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`,
      });
    }
    if (filter.from) query.andWhere('a.at >= :from', { from: filter.from });
    if (filter.until) query.andWhere('a.at < :until', { until: filter.until });
    return query.orderBy('a.at', 'DESC').addOrderBy('a.id', 'DESC').take(filter.limit).skip(filter.offset).getManyAndCount();
  }
}
