import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { LinkKind } from './markdown/wikilinks.js';
import { PageEntity } from './page.entity.js';

/** One edge of the Page Graph: a page links (once or more) to a target key, resolved to a live page or not. */
@Entity('page_links')
@Index('page_links_from_key_key', ['fromPageId', 'targetKey'], { unique: true })
@Index('page_links_target_key_idx', ['targetKey'])
@Index('page_links_resolved_idx', ['resolvedPageId'])
export class PageLinkEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'from_page_id' })
  fromPageId: string;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'from_page_id', foreignKeyConstraintName: 'page_links_from_page_id_fkey' })
  fromPage?: PageEntity;

  @Column('text')
  kind: LinkKind;

  @Column('text')
  target: string;

  @Column('text', { name: 'target_key' })
  targetKey: string;

  @Column('text', { nullable: true })
  heading: string | null;

  @Column('integer')
  position: number;

  @Column('uuid', { name: 'resolved_page_id', nullable: true })
  resolvedPageId: string | null;

  @ManyToOne(() => PageEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'resolved_page_id', foreignKeyConstraintName: 'page_links_resolved_page_id_fkey' })
  resolvedPage?: PageEntity;

  /** The stored file a link to a file reached (migration 0015; kept by attachments/): such a link is not broken. */
  @Column('uuid', { name: 'resolved_attachment_id', nullable: true })
  resolvedAttachmentId: string | null;
}
