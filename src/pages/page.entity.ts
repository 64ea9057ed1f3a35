import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { PageFrontmatter } from './markdown/frontmatter.js';

@Entity('pages')
@Index('pages_slug_key', ['slug'], { unique: true })
// TypeORM cannot describe GIN indexes: these are declared so it leaves them alone; the schema test checks them.
@Index('pages_link_keys_idx', { synchronize: false })
@Index('pages_updated_at_idx', ['updatedAt'])
@Index('pages_cluster_idx', ['cluster'])
@Index('pages_tags_idx', { synchronize: false })
// Migration 0028: trigram indexes of titles and aliases (search's "did you mean"); 0029: the trash's page ids.
@Index('pages_title_trgm_idx', { synchronize: false })
@Index('pages_aliases_trgm_idx', { synchronize: false })
@Index('pages_trashed_idx', { synchronize: false })
export class PageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  slug: string;

  @Column('text')
  title: string;

  /** The full source as the author wrote it, frontmatter block included. */
  @Column('text')
  body: string;

  @Column('jsonb', { default: () => "'{}'" })
  frontmatter: PageFrontmatter;

  /** The primary cluster (first of `clusters`). */
  @Column('text', { nullable: true })
  cluster: string | null;

  @Column('text', { array: true, default: () => "'{}'" })
  clusters: string[];

  @Column('text', { array: true, default: () => "'{}'" })
  tags: string[];

  @Column('text', { array: true, default: () => "'{}'" })
  aliases: string[];

  @Column('text', { name: 'page_type', nullable: true })
  pageType: string | null;

  @Column('boolean', { name: 'is_system', default: false })
  isSystem: boolean;

  /** Every key a link may use to reach this page: slug, slugified title and aliases. */
  @Column('text', { name: 'link_keys', array: true, default: () => "'{}'" })
  linkKeys: string[];

  @Column('integer', { default: 1 })
  version: number;

  @Column('text', { name: 'content_hash' })
  contentHash: string;

  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  search: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('text', { name: 'created_by' })
  createdBy: string;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;

  @Column('text', { name: 'updated_by' })
  updatedBy: string;

  /** The note's path in the vault it was imported from (`Getting started/Index.md`): where `kurate export` writes it. */
  @Column('text', { name: 'vault_path', nullable: true })
  vaultPath: string | null;

  /** The `cluster:` line `kurate import` added to the note for its folder (null: none), which export leaves out. */
  @Column('text', { name: 'vault_cluster', nullable: true })
  vaultCluster: string | null;

  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt: Date | null;

  @Column('text', { name: 'deleted_by', nullable: true })
  deletedBy: string | null;
}
