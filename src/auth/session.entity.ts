import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity.js';

/** One express-session session; `user_id` is copied out of `data` so that a user's sessions can be ended at once. */
@Entity('user_sessions')
@Index('user_sessions_user_idx', ['userId'])
@Index('user_sessions_expires_at_idx', ['expiresAt'])
export class SessionEntity {
  @PrimaryColumn('text')
  sid: string;

  @Column('uuid', { name: 'user_id', nullable: true })
  userId: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'user_sessions_user_id_fkey' })
  user?: UserEntity;

  @Column('jsonb')
  data: Record<string, unknown>;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
