import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { KgOrigin } from './kg-origin.js';

/** An approved entity of the knowledge graph. */
@Entity('kg_nodes')
@Index('kg_nodes_signature_key', ['signature'], { unique: true })
@Check('kg_nodes_origin_check', "origin IN ('extracted', 'manual', 'import')")
export class KgNodeEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  /** Normalised name + type. */
  @Column('text')
  signature: string;

  @Column('text')
  name: string;

  @Column('text', { name: 'node_type' })
  nodeType: string;

  @Column('text', { array: true, default: () => "'{}'" })
  aliases: string[];

  @Column('text', { default: '' })
  description: string;

  @Column('text', { default: 'extracted' })
  origin: KgOrigin;

  @Column('text', { name: 'created_by' })
  createdBy: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
