import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Values generated once and shared by every app process (session secret, setup code). */
@Entity('server_secrets')
export class ServerSecretEntity {
  @PrimaryColumn('text')
  name: string;

  @Column('text')
  value: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
