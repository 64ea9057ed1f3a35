import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity.js';

/**
 * `read`, `write` and `admin` say which role a token acts as at most (reader, author, admin). `metrics` adds the right
 * to scrape /metrics, and only an admin may grant it (a token with only `metrics` acts as a reader otherwise).
 */
export const TOKEN_SCOPES = ['read', 'write', 'admin', 'metrics'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

@Entity('api_tokens')
@Index('api_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('api_tokens_user_idx', ['userId'])
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_tokens_user_id_fkey' })
  user?: UserEntity;

  @Column('text')
  name: string;

  /** The token's first characters, so that lists can show which token is which. */
  @Column('text')
  prefix: string;

  /** SHA-256 (hex) of the token; the token itself is shown once and never stored. */
  @Column('text', { name: 'token_hash', select: false })
  tokenHash: string;

  @Column('text', { array: true })
  scopes: TokenScope[];

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
