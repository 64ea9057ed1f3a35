import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One row of the append-only audit log (the database refuses UPDATE, DELETE and TRUNCATE on it). */
@Entity('audit_log')
@Index('audit_log_at_idx', ['at'])
@Index('audit_log_action_idx', ['action'])
@Index('audit_log_actor_name_idx', ['actorName'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('timestamptz', { default: () => 'now()' })
  at: Date;

  @Column('uuid', { name: 'actor_user_id', nullable: true })
  actorUserId: string | null;

  @Column('text', { name: 'actor_name' })
  actorName: string;

  @Column('text')
  action: string;

  @Column('text', { nullable: true })
  target: string | null;

  @Column('jsonb', { default: () => "'{}'" })
  details: Record<string, unknown>;

  @Column('text', { nullable: true })
  ip: string | null;
}
