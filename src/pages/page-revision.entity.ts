import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PageEntity } from './page.entity.js';

@Entity('page_revisions')
@Index('page_revisions_page_version_key', ['pageId', 'version'], { unique: true })
@Index('page_revisions_created_at_idx', ['createdAt'])
export class PageRevisionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'page_revisions_page_id_fkey' })
  page?: PageEntity;

  @Column('integer')
  version: number;

  @Column('text')
  slug: string;

  @Column('text')
  title: string;

  @Column('text')
  body: string;

  @Column('text', { name: 'content_hash' })
  contentHash: string;

  @Column('text')
  author: string;

  @Column('text', { default: '' })
  message: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
