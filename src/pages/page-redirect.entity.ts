import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PageEntity } from './page.entity.js';

/** A slug a page used to have; visiting it redirects to the page's current slug. */
@Entity('page_redirects')
@Index('page_redirects_page_idx', ['pageId'])
export class PageRedirectEntity {
  @PrimaryColumn('text', { name: 'old_slug' })
  oldSlug: string;

  @Column('uuid', { name: 'page_id' })
  pageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id', foreignKeyConstraintName: 'page_redirects_page_id_fkey' })
  page?: PageEntity;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
