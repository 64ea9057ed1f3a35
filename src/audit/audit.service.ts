import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditRepository, type AuditFilter } from './audit.repository.js';
import type { AuditEntryEntity } from './audit-entry.entity.js';

/** Who acted, as the log records them: the auth module's Actor is one (the log does not depend on how they logged in). */
export interface AuditActor {
  userId: string | null;
  name: string;
}

/**
 * The append-only audit log. Every admin action records one entry: who (the actor), what (`action`, e.g.
 * `user.role`), on what (`target`, e.g. `user:<id>`), the facts (`details`) and from where (`ip`).
 * Inside a transaction, pass its manager as `tx` (the entry then commits or rolls back with the change; on the
 * embedded database a query outside the open transaction would wait forever).
 */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  record(
    actor: AuditActor,
    action: string,
    target: string | null,
    details: Record<string, unknown> = {},
    ip: string | null = null,
    tx?: EntityManager,
  ): Promise<void> {
    return this.audit.insert({ actorUserId: actor.userId, actorName: actor.name, action, target, details, ip }, tx);
  }

  list(filter: AuditFilter): Promise<[AuditEntryEntity[], number]> {
    return this.audit.list(filter);
  }
}
